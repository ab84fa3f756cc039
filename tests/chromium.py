"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe`` (no websocket library).

Chromium reads NUL-terminated JSON commands from fd 3 and writes responses and events to fd 4; the
browser runs headless with every network-touching background feature off.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

__all__ = ["FLAGS", "Browser", "find_chromium"]

FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--remote-debugging-pipe")


def _above_nine(fd: int) -> int:
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


def find_chromium() -> str | None:
    """Debian's ``/usr/bin/chromium`` (or another chromium on PATH)."""
    for candidate in ("/usr/bin/chromium", shutil.which("chromium"), shutil.which("chromium-browser")):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


class Browser:
    """One headless Chromium with one page, driven over CDP; collects every event it sees."""

    def __init__(self, executable: str, user_data_dir: Path, timeout: float = 20.0) -> None:
        command_read, self._command_write = os.pipe()
        self._reply_read, reply_write = os.pipe()
        # Move the child's ends above 9 first: if a pipe got fd 3 or 4 itself, "3<&x 4>&y" would
        # overwrite one end with the other. bash, not sh: dash only redirects one-digit fds.
        command_read, reply_write = (_above_nine(fd) for fd in (command_read, reply_write))
        self.deadline = time.monotonic() + timeout
        script = f'exec "$0" "$@" 3<&{command_read} 4>&{reply_write}'
        command = [executable, *FLAGS, f"--user-data-dir={user_data_dir}", "about:blank"]
        self.process = subprocess.Popen(
            ["/bin/bash", "-c", script, *command],
            pass_fds=(command_read, reply_write), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(command_read)
        os.close(reply_write)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def send(self, method: str, params: dict[str, Any] | None = None, *,
             page: bool = False) -> dict[str, Any]:
        """Send one command (to the page session with ``page``) and wait for its result."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if page:
            message["sessionId"] = self.session
        os.write(self._command_write, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_for(self, method: str) -> dict[str, Any]:
        """The first event named ``method`` (already seen or still to come)."""
        while True:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.events.append(self._read())

    def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (awaiting a promise) and return its JSON value."""
        result = self.send("Runtime.evaluate", {"expression": expression, "awaitPromise": True,
                                                "returnByValue": True}, page=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page error: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                   "clickCount": 1}, page=True)

    def screenshot(self, path: Path) -> Path:
        data = self.send("Page.captureScreenshot", {"format": "png"}, page=True)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            remaining = self.deadline - time.monotonic()
            ready, _, _ = select.select([self._reply_read], [], [], max(remaining, 0))
            if not ready:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._reply_read, 1 << 16)
            if not chunk:
                raise RuntimeError("chromium closed the DevTools pipe")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def close(self) -> None:
        with contextlib.suppress(RuntimeError, TimeoutError, OSError):  # it may exit before answering
            self.send("Browser.close")
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._command_write)
        os.close(self._reply_read)
