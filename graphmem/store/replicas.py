"""Read routing: writes to the primary, reads to a PostgreSQL streaming replica when it has caught up.

A server given a replica (``replica_db``, docs/configuration.md) sends every write to the primary and
every read it can to the replica. The rule that keeps a lagging replica harmless is one integer:

    a read may go to the replica only once the replica's store generation has reached the generation
    this process already reflects (its own last write, or the newest write it has followed).

The store generation is bumped by every write inside its own transaction, and generations commit in
order (:mod:`graphmem.store.changes`), so a replica that shows generation ``g`` has replayed every write
up to ``g``, this process's own included; one at generation ``< g`` may lack one of them, and the read
goes to the primary instead. A client therefore never misses its own write on its next read, and the
rows a read fetches are never older than the projection that found them. It is the same guarantee as
comparing the primary's WAL position after the write with the replica's ``pg_last_wal_replay_lsn()``,
but needs no WAL functions and no extra query on the write path.

Replay only moves forward, so the highest generation ever seen on the replica is a floor: once it has
reached what the process reflects, further reads go there without asking again.

A replica that cannot be reached (stopped, restarting, a network cut) is treated as one that has not caught
up: the reads go to the primary, stderr says so once, and the replica is asked again after
:data:`RETRY_S` seconds, so an outage costs one failed connection attempt per interval, not one per read. A
read already sent to the replica when it went away fails with the database's error; the next read goes to
the primary.
"""

from __future__ import annotations

import sys
import threading
import time
from dataclasses import dataclass

from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

from graphmem.store.changes import GenerationProbe

__all__ = ["RETRY_S", "ReadRouter", "ReplicaHealth"]

RETRY_S = 5.0  # how long reads skip a replica that could not be reached


@dataclass(frozen=True, slots=True)
class ReplicaHealth:
    """What ``memory_status`` reports about the replica: reachable, and how far behind the primary."""

    reachable: bool
    primary_generation: int
    replica_generation: int | None  # None when it could not be reached
    lag_generations: int | None  # writes the primary has committed and the replica has not replayed yet


class ReadRouter:
    """The engine each read uses: the primary alone, or a replica once it has caught up with the process."""

    def __init__(self, primary: Engine, replica: Engine | None = None) -> None:
        self.primary = primary
        self.replica = replica
        self._probes = {id(primary): GenerationProbe(primary)}
        if replica is not None:
            self._probes[id(replica)] = GenerationProbe(replica)
        self._replica_reached = -1  # the highest generation seen on the replica (replay never goes back)
        self._down_until = 0.0  # monotonic time before which reads skip an unreachable replica
        self._warned = False
        self._lock = threading.Lock()

    def freshest(self, floor: int) -> tuple[Engine, int]:
        """An engine whose rows reflect at least generation ``floor``, and its current generation: the replica
        if it has reached ``floor`` (asked now, so other processes' writes show as soon as it replays them),
        else the primary."""
        if self.replica is not None:
            generation = self._probe_replica()
            if generation >= floor:
                return self.replica, generation
        return self.primary, self.generation(self.primary)

    def reader(self, floor: int) -> Engine:
        """The engine for a read that must see generation ``floor``: the replica if it is known to have
        reached it (asked only when the last answer was older), else the primary."""
        if self.replica is None or self._skipping():
            return self.primary
        if self._replica_reached >= floor or self._probe_replica() >= floor:
            return self.replica
        return self.primary

    def generation(self, engine: Engine) -> int:
        """The newest generation committed (primary) or replayed (replica) on ``engine``."""
        return self._probes[id(engine)].generation()

    def replica_generation(self) -> int | None:
        """The replica's generation now, or ``None`` without a replica or when it cannot be reached."""
        if self.replica is None:
            return None
        generation = self._probe_replica()
        return None if generation < 0 else generation

    def health(self) -> ReplicaHealth | None:
        """The replica's state now (asked even while reads skip it), or ``None`` without a replica."""
        if self.replica is None:
            return None
        primary = self.generation(self.primary)
        with self._lock:
            self._down_until = 0.0
        replica = self.replica_generation()
        lag = None if replica is None else max(0, primary - replica)
        return ReplicaHealth(replica is not None, primary, replica, lag)

    def close(self) -> None:
        for probe in self._probes.values():
            probe.close()
        if self.replica is not None:
            self.replica.dispose()

    def _skipping(self) -> bool:
        return time.monotonic() < self._down_until

    def _probe_replica(self) -> int:
        """The replica's generation, or -1 when it cannot be reached (reads then skip it for RETRY_S)."""
        assert self.replica is not None
        if self._skipping():
            return -1
        try:
            generation = self._probes[id(self.replica)].generation()
        except DBAPIError as error:
            with self._lock:
                self._down_until = time.monotonic() + RETRY_S
                self._replica_reached = -1  # after the outage, only a fresh answer sends reads there again
                warn, self._warned = not self._warned, True
            if warn:
                print(f"graphmem: the read replica cannot be reached ({type(error.orig).__name__}); reads go to the "
                      f"primary, and the replica is tried again every {RETRY_S:.0f} s", file=sys.stderr)
            self.replica.dispose()  # its pooled connections are dead; the next try opens fresh ones
            return -1
        with self._lock:
            self._replica_reached = max(self._replica_reached, generation)
            self._warned = False
        return generation
