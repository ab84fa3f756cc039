"""The official MCP Inspector (a third-party TypeScript client) drives `graphmem serve` over stdio.

Runs when the Inspector is installed: `.ci/run` installs a pinned `@modelcontextprotocol/inspector` from
npm and points MCP_INSPECTOR_CLI at it; elsewhere put `mcp-inspector` on PATH, or the test is skipped
with that reason. The Inspector CLI exits 0 on a tool result with isError, so the test reads isError.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

INSPECTOR = os.environ.get("MCP_INSPECTOR_CLI") or shutil.which("mcp-inspector")
GRAPHMEM = str(Path(sys.executable).with_name("graphmem"))

pytestmark = pytest.mark.skipif(not INSPECTOR, reason="MCP Inspector not installed (see module docstring)")


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")}
    env["GRAPHMEM_DB"] = str(tmp_path / "m.db")
    return subprocess.run([str(INSPECTOR), "--cli", GRAPHMEM, "serve", "--create", *args], env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def _inspect(tmp_path: Path, *args: str) -> dict:
    done = _run(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_inspector_lists_calls_and_reads_structured_results(tmp_path):
    tools = {tool["name"]: tool for tool in _inspect(tmp_path, "--method", "tools/list")["tools"]}
    assert tools["memory_search"]["annotations"]["readOnlyHint"] is True
    stored = _inspect(tmp_path, "--method", "tools/call", "--tool-name", "memory_store",
                      "--tool-arg", "content=Use an idempotency key header check before creating orders")
    found = _inspect(tmp_path, "--method", "tools/call", "--tool-name", "memory_search",
                     "--tool-arg", "query=idempotency orders")
    assert found["structuredContent"]["hits"][0]["id"] == stored["structuredContent"]["id"]
    refused = _run(tmp_path, "--method", "tools/call", "--tool-name", "memory_associate",
                   "--tool-arg", "query=x", "--tool-arg", "mode=dream")
    output = refused.stdout + refused.stderr
    if refused.returncode == 0:  # 0.15.0 exits 0 and prints the tool result
        assert json.loads(refused.stdout)["isError"] is True
    assert "mode" in output and "Traceback" not in output


def test_the_inspector_writes_and_then_reads_the_graph_resource(tmp_path):
    _inspect(tmp_path, "--method", "tools/call", "--tool-name", "memory_store",
             "--tool-arg", "content=Rollbacks use the previous image tag")
    read = _inspect(tmp_path, "--method", "resources/read", "--uri", "graphmem://graph")
    assert json.loads(read["contents"][0]["text"])["stats"]["memories"] == 1
