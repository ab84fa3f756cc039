"""Run the ``console`` blocks of README.md and docs/*.md the way a reader would, and compare what they print.

The convention (``tests/test_docs.py`` explains it to doc writers) in short:

- A page's blocks run in order, in one fresh directory shown as ``/home/me/webshop`` (``HOME`` is
  ``/home/me``), holding a copy of ``data/`` and a project store with the bundled corpus imported
  (``graphmem init``, then ``graphmem import data/observations.jsonl``). ``<!-- doccheck: fresh directory -->``
  on a page leaves out the store: the page makes its own.
- In a block, a line starting ``$ `` is a command (run by ``bash`` with ``graphmem`` on ``PATH``); the lines
  after it, up to the next command, are what it prints (stdout and stderr as they interleave, without the
  ``graphmem: using store …`` line every command writes to stderr).
- In the shown output, a line ``…`` (indented or not) stands for any lines and ``…`` inside a line for any text. Ids
  (``mem_…``, ``rel_…``, ``fact_…``, ``ses_…``, ``prm_…``, ``skill_…``, ``clu_…``) match the id printed at that
  place, the same one wherever the page shows the same id, and a command that uses a shown id gets the printed
  one. A timestamp matches itself, or one printed during the page's run (the "now" of the example).
- ``<!-- doccheck: skip: REASON -->`` right before a block keeps it from running; ``<!-- doccheck: file PATH -->``
  right before a block writes the block's text to ``PATH`` first, and ``<!-- doccheck: file PATH`` followed by
  lines and ``-->`` writes those lines (a file the page uses but does not show).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

__all__ = ["Block", "Command", "Page", "Runner", "Sandbox", "Transcript", "match", "parse_page"]

ROOT = Path(__file__).resolve().parent.parent
SHOWN_HOME = Path("/home/me")
SHOWN_CWD = SHOWN_HOME / "webshop"
STORE_LINE = re.compile(r"^graphmem: using store .*$")
ELLIPSIS = "…"
ID = re.compile(r"\b(?:(?:mem|rel|fact|ses|prm|skill)_[0-9a-hjkmnp-tv-z]{20}|clu_[0-9a-f]{16})\b")
TIMESTAMP = re.compile(r"\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,6})?(?:Z|[+-]\d\d:\d\d)")
_TOKEN = re.compile(f"{ELLIPSIS}|{ID.pattern}|{TIMESTAMP.pattern}")
_FENCE = re.compile(r"^```(\S*)[^\n]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)
_DIRECTIVE = re.compile(r"^<!--\s*doccheck:\s*(.*?)\s*-->\s*$", re.DOTALL)
_FILE_INLINE = re.compile(r"^<!--\s*doccheck:\s*file[ \t]+(\S+)\n(.*?)^-->", re.DOTALL | re.MULTILINE)
FRESH_DIRECTORY = re.compile(r"^<!-- doccheck: fresh directory -->$", re.MULTILINE)


@dataclass(frozen=True)
class Command:
    """One ``$ `` line of a block and the output lines shown under it."""

    line: int
    text: str
    expected: tuple[str, ...]


@dataclass(frozen=True)
class Block:
    """One ``console`` block: where it is, its commands, and why it does not run (if it does not)."""

    page: str
    line: int
    commands: tuple[Command, ...]
    skip: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


@dataclass(frozen=True)
class Page:
    """A page's console blocks, the files it writes first, and whether it starts with the corpus imported."""

    name: str
    blocks: tuple[Block, ...]
    files: tuple[tuple[str, str], ...]
    corpus: bool


def _commands(body: str, first_line: int) -> tuple[Command, ...]:
    commands: list[Command] = []
    current: tuple[int, str, list[str]] | None = None
    for offset, raw in enumerate(body.splitlines()):
        if raw.startswith("$ "):
            if current is not None:
                commands.append(Command(current[0], current[1], tuple(current[2])))
            current = (first_line + offset, raw[2:].strip(), [])
        elif current is not None:
            current[2].append(raw.rstrip())
        elif raw.strip():
            raise ValueError(f"line {first_line + offset}: output before any `$ ` command: {raw!r}")
    if current is not None:
        commands.append(Command(current[0], current[1], tuple(current[2])))
    return tuple(commands)


def parse_page(name: str, text: str) -> Page:
    """The console blocks of one page with their directives (see the module docstring)."""
    blocks: list[Block] = []
    files: list[tuple[str, str]] = [(path, content) for path, content in _FILE_INLINE.findall(text)]
    for fence in _FENCE.finditer(text):
        language, body = fence.group(1), fence.group(2)
        before = text[:fence.start()].rstrip("\n")
        directive = _DIRECTIVE.search(before.rsplit("\n", 1)[-1]) if before else None
        command = directive.group(1) if directive else ""
        if command.startswith("file ") and "\n" not in command:
            files.append((command[5:].strip(), body))
        if language != "console":
            continue
        line = text.count("\n", 0, fence.start()) + 1
        skip = command[5:].strip() if command.startswith("skip:") else None
        if skip == "":
            raise ValueError(f"{name}:{line}: `doccheck: skip:` needs a reason")
        blocks.append(Block(name, line, _commands(body, line + 1), skip))
    return Page(name, tuple(blocks), tuple(files), FRESH_DIRECTORY.search(text) is None)


@dataclass
class Bindings:
    """Shown id or timestamp → the one printed, over one page."""

    started_ms: int
    shown: dict[str, str] = field(default_factory=dict)

    def copy(self) -> Bindings:
        return Bindings(self.started_ms, dict(self.shown))

    def substitute(self, command: str) -> str:
        """``command`` with every shown id replaced by the printed one (an id not shown yet is an error)."""
        def replace(found: re.Match[str]) -> str:
            if found.group(0) not in self.shown:
                raise KeyError(f"the command uses {found.group(0)}, which no output above it shows")
            return self.shown[found.group(0)]
        return ID.sub(replace, command)

    def _now_ish(self, printed: str) -> bool:
        moment = datetime.fromisoformat(printed.replace("Z", "+00:00")).timestamp() * 1000
        return self.started_ms - 2_000 <= moment <= time.time() * 1000 + 2_000

    def line(self, shown: str, printed: str) -> Bindings | None:
        """These bindings extended so that ``shown`` matches ``printed``, or None."""
        pattern, tokens, seen = [], [], {}
        position = 0
        for found in _TOKEN.finditer(shown):
            pattern.append(re.escape(shown[position:found.start()]))
            token = found.group(0)
            if token == ELLIPSIS:
                pattern.append(".*?")
            elif token in self.shown:
                pattern.append(re.escape(self.shown[token]))
            elif token in seen:
                pattern.append(f"(?P=t{seen[token]})")
            else:
                seen[token] = len(tokens)
                tokens.append(token)
                pattern.append(f"(?P<t{seen[token]}>{(ID if ID.fullmatch(token) else TIMESTAMP).pattern})")
            position = found.end()
        pattern.append(re.escape(shown[position:]))
        found_line = re.fullmatch("".join(pattern), printed)
        if found_line is None:
            return None
        extended = self.copy()
        taken = set(self.shown.values())
        for index, token in enumerate(tokens):
            value = found_line.group(f"t{index}")
            if ID.fullmatch(token):
                if value in taken:  # two shown ids must be two printed ids
                    return None
            elif value != token and not self._now_ish(value):
                return None
            extended.shown[token] = value
            taken.add(value)
        return extended


def match(shown: tuple[str, ...], printed: list[str], bindings: Bindings) -> Bindings | None:
    """The bindings under which the ``shown`` lines match the ``printed`` ones, or None."""
    current: Bindings | None = bindings
    while shown and shown[0].strip() != ELLIPSIS:  # a run of plain lines: one printed line each
        if not printed or current is None:
            return None
        current = current.line(shown[0], printed[0])
        shown, printed = shown[1:], printed[1:]
    if current is None or not shown:
        return current if current is not None and not printed else None
    for cut in range(len(printed) + 1):  # a line `…`: any number of lines
        result = match(shown[1:], printed[cut:], current)
        if result is not None:
            return result
    return None


@dataclass(frozen=True)
class Transcript:
    """What one command printed, as the docs show it."""

    command: str
    lines: list[str]
    returncode: int


class Runner:
    """Runs ``graphmem ARGS`` commands fast: one process imports graphmem once and forks a child per command.

    Each child is a new process from the same freshly imported state, with the command's environment and
    directory, and it runs ``graphmem.cli.main`` as the ``graphmem`` script does, so no state passes from one
    command to the next; only the import time (seconds per command on a loaded machine) is saved.
    """

    def __init__(self) -> None:
        environ = {name: value for name, value in os.environ.items() if not name.startswith(("GRAPHMEM_", "XDG_"))}
        environ.update({"PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"})
        self.process = subprocess.Popen([sys.executable, "-m", "tests.doc_console", "--serve"], cwd=ROOT,
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environ, text=True,
                                        encoding="utf-8")

    def run(self, argv: list[str], cwd: Path, environ: dict[str, str], timeout: float) -> tuple[str, int]:
        assert self.process.stdin is not None and self.process.stdout is not None
        request = {"argv": argv, "cwd": str(cwd), "environ": environ, "timeout": timeout}
        self.process.stdin.write(json.dumps(request) + "\n")
        self.process.stdin.flush()
        answer = json.loads(self.process.stdout.readline())
        return str(answer["output"]), int(answer["code"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)


def _serve() -> None:  # pragma: no cover - runs in the runner's process
    """The runner's side: import graphmem, then one forked child per request line on stdin."""
    import graphmem.cli
    import graphmem.service.memory_service

    for request_line in sys.stdin:
        request = json.loads(request_line)
        with tempfile.NamedTemporaryFile(prefix="doccheck", delete=False) as handle:
            output_path = handle.name
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                os.chdir(request["cwd"])
                os.environ.clear()
                os.environ.update(request["environ"])
                descriptor = os.open(output_path, os.O_WRONLY | os.O_TRUNC)
                os.dup2(descriptor, 1)
                os.dup2(descriptor, 2)
                os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
                stream = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115 - lives until os._exit
                sys.stdout = sys.stderr = stream
                sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115 - lives until os._exit
                signal.alarm(int(request["timeout"]))
                code = graphmem.cli.main(request["argv"])
            except SystemExit as stop:  # argparse: usage errors and --help
                code = stop.code if isinstance(stop.code, int) else 2
            except BaseException:
                traceback.print_exc()
            finally:
                sys.stdout.flush()
                os._exit(code)
        _, status = os.waitpid(pid, 0)
        output = Path(output_path).read_text(encoding="utf-8", errors="replace")
        os.unlink(output_path)
        code = os.waitstatus_to_exitcode(status)
        sys.stdout.write(json.dumps({"output": output, "code": code}) + "\n")
        sys.stdout.flush()


_SHELL = re.compile(r"[|&;<>()$`*?~\[\]{}\\]")


class Sandbox:
    """A fresh ``/home/me/webshop`` under ``root``: a copy of ``data/``, a private ``HOME`` and a clean environment."""

    def __init__(self, root: Path, runner: Runner | None = None) -> None:
        self.root = root
        self.runner = runner
        self.home = root / SHOWN_HOME.relative_to("/")
        self.cwd = root / SHOWN_CWD.relative_to("/")
        self.cwd.mkdir(parents=True)
        shutil.copytree(ROOT / "data", self.cwd / "data")
        self.environ = {name: value for name, value in os.environ.items()
                        if not name.startswith(("GRAPHMEM_", "XDG_"))}
        bin_dir = str(Path(sys.executable).parent)
        self.environ.update({
            "HOME": str(self.home), "PYTHONUNBUFFERED": "1", "COLUMNS": "100", "LC_ALL": "C.UTF-8",
            "PYTHONPATH": str(ROOT), "PATH": bin_dir + os.pathsep + self.environ.get("PATH", "/usr/bin:/bin"),
        })
        for name in ("TERM", "FORCE_COLOR", "NO_COLOR"):
            self.environ.pop(name, None)

    def write(self, path: str, content: str) -> None:
        target = self.cwd / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8")

    def run(self, command: str, timeout: float = 300) -> Transcript:
        """Run ``command`` in the sandbox (``bash``, or the runner for a plain ``graphmem …``); what it printed."""
        argv = [] if _SHELL.search(command) else shlex.split(command)
        if self.runner is not None and argv[:1] == ["graphmem"]:
            text, code = self.runner.run(argv[1:], self.cwd, self.environ, timeout)
        else:
            done = subprocess.run(["bash", "-c", command], cwd=self.cwd, env=self.environ,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                  text=True, timeout=timeout, check=False)
            text, code = done.stdout, done.returncode
        text = text.replace(str(self.root), "")
        lines = [line.rstrip() for line in text.splitlines() if not STORE_LINE.match(line)]
        return Transcript(command, lines, code)


def blocks_of(pages: dict[str, Page]) -> Iterator[Block]:
    for page in pages.values():
        yield from page.blocks


if __name__ == "__main__" and sys.argv[1:] == ["--serve"]:
    _serve()
