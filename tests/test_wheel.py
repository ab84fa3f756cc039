"""A built wheel works outside the checkout: installed into a fresh virtual environment, ``graphmem demo`` runs on
the sample corpus it carries as package data (docs: README "Install")."""

from __future__ import annotations

import os
import site
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _run(argv: list[str], cwd: Path, **environ: str) -> subprocess.CompletedProcess[str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("GRAPHMEM_", "PYTHON", "VIRTUAL_ENV"))} | environ
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_the_wheel_installed_in_a_fresh_environment_runs_the_demo(tmp_path):
    built = _run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path / "dist"), str(ROOT)],
                 tmp_path)
    assert built.returncode == 0, built.stderr
    wheel = next((tmp_path / "dist").glob("graphmem-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        assert {"graphmem/sample_data/observations.jsonl", "graphmem/sample_data/demo_queries.json"} <= set(
            archive.namelist())
    fresh = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", "--without-pip", str(fresh)], tmp_path).returncode == 0
    python = fresh / "bin" / "python"
    # Only graphmem is installed from the wheel; its dependencies come from this environment's site-packages
    # (a path in a .pth file: the editable graphmem of this checkout is not on it), so the test stays fast.
    purelib = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                        tmp_path).stdout.strip())
    (purelib / "dependencies.pth").write_text("\n".join(site.getsitepackages()) + "\n", encoding="utf-8")
    installed = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                      str(wheel)], tmp_path)
    assert installed.returncode == 0, installed.stderr
    where = _run([str(python), "-c", "import graphmem; print(graphmem.__file__)"], tmp_path)
    assert where.stdout.startswith(str(purelib)), where.stdout + where.stderr
    demo = _run([str(fresh / "bin" / "graphmem"), "demo"], tmp_path, HOME=str(tmp_path / "home"))
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert "341" in demo.stdout + demo.stderr, demo.stdout[-2000:]
