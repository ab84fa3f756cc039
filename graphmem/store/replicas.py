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
"""

from __future__ import annotations

import threading

from sqlalchemy.engine import Engine

from graphmem.store.changes import GenerationProbe

__all__ = ["ReadRouter"]


class ReadRouter:
    """The engine each read uses: the primary alone, or a replica once it has caught up with the process."""

    def __init__(self, primary: Engine, replica: Engine | None = None) -> None:
        self.primary = primary
        self.replica = replica
        self._probes = {id(primary): GenerationProbe(primary)}
        if replica is not None:
            self._probes[id(replica)] = GenerationProbe(replica)
        self._replica_reached = -1  # the highest generation seen on the replica (replay never goes back)
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
        if self.replica is None:
            return self.primary
        if self._replica_reached >= floor or self._probe_replica() >= floor:
            return self.replica
        return self.primary

    def generation(self, engine: Engine) -> int:
        """The newest generation committed (primary) or replayed (replica) on ``engine``."""
        return self._probes[id(engine)].generation()

    def replica_generation(self) -> int | None:
        """The replica's generation now, or ``None`` without a replica."""
        return None if self.replica is None else self._probe_replica()

    def close(self) -> None:
        for probe in self._probes.values():
            probe.close()
        if self.replica is not None:
            self.replica.dispose()

    def _probe_replica(self) -> int:
        assert self.replica is not None
        generation = self._probes[id(self.replica)].generation()
        with self._lock:
            self._replica_reached = max(self._replica_reached, generation)
        return generation
