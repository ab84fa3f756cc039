"""The official TypeScript SDK client (strict about capabilities) drives `graphmem serve` over stdio: it may
subscribe to a resource because the server advertises it, and receives updates for it only while subscribed.

Runs when the SDK is installed: `.ci/run` installs a pinned `@modelcontextprotocol/sdk` from npm beside the
Inspector and points MCP_NODE_MODULES at their node_modules; elsewhere the test is skipped with that reason.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.server.test_transports import GRAPHMEM

NODE_MODULES = os.environ.get("MCP_NODE_MODULES")
NODE = shutil.which("node")
SCRIPT = Path(__file__).with_name("node_sdk_client.mjs")

pytestmark = pytest.mark.skipif(not (NODE and NODE_MODULES and (Path(NODE_MODULES) / "@modelcontextprotocol" / "sdk")
                                     .is_dir()), reason="node or the MCP TypeScript SDK not installed (see docstring)")


def test_the_typescript_sdk_subscribes_and_gets_updates_only_while_subscribed(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_")} | {
        "GRAPHMEM_DB": str(tmp_path / "m.db"), "NODE_PATH": str(NODE_MODULES)}
    done = subprocess.run([str(NODE), str(SCRIPT), GRAPHMEM, "--create", "serve"], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["capabilities"]["resources"]["subscribe"] is True
    assert (report["before"], report["subscribed"], report["after"]) == ([], ["graphmem://graph"], [])
    assert report["read"] == ["graphmem://graph"]
