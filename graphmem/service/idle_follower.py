"""The thread that applies committed writes to the projection once the process is idle.

A write of the unit of work commits its rows and queues its projection effects; the next read applies them
before it reads (read-your-writes), and so does this thread once no write has committed for
``quiet_s``: an agent's next call comes seconds after its store, and by then the store's effects are in
the projection, so neither the store nor the read pays them. The thread waits that long after the last
commit so that it never competes for the interpreter with the reply of the call that queued the work.
A client that writes back to back is never quiet that long; the unit of work bounds its queue itself.
"""

from __future__ import annotations

import threading
import time
import weakref
from collections.abc import Callable

__all__ = ["IdleFollower"]

_CHECK_OWNER_S = 60.0


class IdleFollower:
    """Calls ``catch_up`` (a bound method) on a daemon thread once ``quiet_s`` has passed since the last
    :meth:`nudge`. The thread holds its object weakly: a unit of work nobody closed is still collected."""

    def __init__(self, catch_up: Callable[[], None], quiet_s: float) -> None:
        self._catch_up = weakref.WeakMethod(catch_up)
        self.quiet_s = quiet_s
        self._wake = threading.Event()
        self._stopped = False
        self._last_nudge = 0.0
        # Whether the thread already waits for a quiet moment: a nudge then only moves that moment, and never
        # wakes the thread (a wake per write cost each store a hand-over of the interpreter under load).
        self._armed = False
        self._thread: threading.Thread | None = None
        # Set whenever the thread has nothing left to apply (tests wait on it instead of sleeping).
        self.idle = threading.Event()
        self.idle.set()

    def nudge(self) -> None:
        """A write was queued: apply it once the process has been quiet for ``quiet_s``."""
        self._last_nudge = time.monotonic()
        if self._armed:
            return
        self._armed = True
        self.idle.clear()
        if self._thread is None:  # started by the first write a server queues, never by a read-only command
            self._thread = threading.Thread(target=self._run, name="graphmem-idle-follower", daemon=True)
            self._thread.start()
        self._wake.set()

    def stop(self) -> None:
        """End the thread (what is still queued waits for the next read, or is read from the log on open)."""
        self._stopped = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self) -> None:
        while True:
            if not self._wake.wait(_CHECK_OWNER_S):
                if self._catch_up() is None:
                    return  # its unit of work was collected without a close
                continue
            self._wake.clear()
            while not self._stopped:  # each nudge since has pushed the moment back
                wait = self._last_nudge + self.quiet_s - time.monotonic()
                if wait <= 0:
                    break
                self._wake.wait(wait)  # only stop() sets it meanwhile
                self._wake.clear()
            catch_up = self._catch_up()
            if self._stopped or catch_up is None:
                self.idle.set()
                return
            self._armed = False  # before the catch-up: a write queued during it arms the thread again
            catch_up()
            del catch_up
            if not self._armed:
                self.idle.set()
