"""ResidentGraph: a :class:`GraphSnapshot` kept fresh in the background for a long-lived owner of the store.

Reading the whole graph takes ~2 s at 100k cards, so it is no use to a
one-shot command; the owner server (and anything else that holds a store for
long) keeps one. Freshness is exact, not timed: the snapshot carries the
:attr:`GraphStore.generation` it was read at, and :meth:`ResidentGraph.current`
hands it out only while no write has finished since — otherwise recall asks
the database as before, and the builder reads again once the graph has been
quiet for :data:`QUIET_SECONDS`, or for as long as its last read took if that
was longer (so a long ingest is not slowed by a rebuild after every card: at a
million cards a read takes ~40 s, and rebuilding in every pause of an ingest
kept a core busy and recalls waiting for the interpreter, p95 4.6 s). While
the owner says a write job runs (``busy``), it does not read at all, and a read
under way stops: the job's next write would leave it stale, and at 100k cards
the reads in an ingest's pauses were two fifths of the interpreter's time.

The builder reads through a connection of its own: LadybugDB lets that read
run beside the owner's writes, so neither waits for the other. The contents of
the cards a recall returns (the snapshot does not hold them) are read through
another, one recall at a time.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from typing import TYPE_CHECKING

from ..foundations.background import run_in_background
from ..foundations.memory import release_freed_memory
from .snapshot import GraphSnapshot, ReadStopped

if TYPE_CHECKING:
    from collections.abc import Callable

    from .store import GraphStore

QUIET_SECONDS = 0.5
log = logging.getLogger(__name__)


class ResidentGraph:
    """The snapshot of one open :class:`GraphStore`; :meth:`close` before the store closes."""

    def __init__(self, graph: "GraphStore", busy: "Callable[[], bool]" = lambda: False):
        """``busy()`` says a write job is running (the owner server's ingest, distill or introspect)."""
        self.graph = graph
        self._busy = busy
        self.snapshot: GraphSnapshot | None = None
        self._wake = threading.Event()
        self._stopping = threading.Event()
        self._fresh = threading.Condition()
        self._failed_generation: int | None = None
        self._build_seconds = 0.0
        """How long the last read of the snapshot took: the quiet a rebuild waits for."""
        self._contents_reader: GraphStore | None = graph.reader()
        self._reading = threading.Lock()
        self._thread = threading.Thread(target=self._run, name="alaya-graph-snapshot", daemon=True)
        self._thread.start()
        self._wake.set()

    def current(self) -> GraphSnapshot | None:
        """The snapshot if no write has finished since it was read; else None, and a rebuild is asked for."""
        snapshot, generation = self.snapshot, self.graph.generation
        if snapshot is not None and snapshot.generation == generation:
            return snapshot
        if generation != self._failed_generation:
            self._wake.set()
        return None

    def wait_fresh(self, timeout: float) -> bool:
        """Block until the snapshot matches the graph (warm-up, benchmarks, tests); False on timeout."""
        deadline = time.monotonic() + timeout
        with self._fresh:
            while self.current() is None:
                left = deadline - time.monotonic()
                if left <= 0 or not self._thread.is_alive():
                    return False
                self._fresh.wait(min(left, QUIET_SECONDS))
        return True

    def close(self) -> None:
        """Stop the builder, waiting for the query in progress of a read (the database must not close under it):
        the read ends before its next one."""
        self._stopping.set()
        self._wake.set()
        self._thread.join()
        with self._reading:
            if self._contents_reader is not None:
                self._contents_reader.close()
                self._contents_reader = None

    def read_stops(self) -> bool:
        """Whether a read under way ends at its next query: the owner stops, or a write job began."""
        return self._stopping.is_set() or self._busy()

    def _contents(self, card_ids: list[str]) -> dict[str, str]:
        """The snapshot's way to the cards' contents (none once closed: the cards are then left out)."""
        with self._reading:
            return {} if self._contents_reader is None else self._contents_reader.card_contents(card_ids)

    def _run(self) -> None:
        run_in_background()  # a read of the whole graph is long work: recalls meanwhile read the database first
        connection = self.graph.connect(threads=1)  # on every core, its scans starved recalls reading meanwhile
        try:
            while self._wake.wait() and not self._stopping.is_set():
                self._wake.clear()
                generation = self._quiet_generation()
                if generation is None:
                    break
                if self.snapshot is not None and self.snapshot.generation == generation:
                    continue
                self._build(connection, generation)
        finally:
            connection.close()

    def _quiet_generation(self) -> int | None:
        """The write generation once it has stood still for ``QUIET_SECONDS``, or as long as the last build took;
        None when stopping. The first read waits for no quiet unless a job runs: the quiet keeps a writer's pauses
        free of rebuilds, and there is nothing to rebuild yet (a benchmark's store is served 0.5 s sooner)."""
        generation, still = self.graph.generation, 0
        if self.snapshot is None and not self._busy():
            return generation
        while not self._stopping.wait(QUIET_SECONDS):
            if self.graph.generation != generation or self._busy():
                generation, still = self.graph.generation, 0
                continue
            still += 1
            if still >= max(1, math.ceil(self._build_seconds / QUIET_SECONDS)):  # the last build's, read each time
                return generation
        return None

    def _build(self, connection, generation: int) -> None:
        started = time.perf_counter()
        try:
            snapshot = GraphSnapshot.read(connection, generation, self._contents, self.read_stops)
        except ReadStopped:
            return
        except Exception as exc:  # the database path keeps answering; try again after the next write
            self._failed_generation = generation
            log.warning("graph snapshot at generation %d failed: %s", generation, exc)
            return
        with self._fresh:  # the build's time first: whoever the snapshot wakes sees the quiet the next one waits for
            self._build_seconds = time.perf_counter() - started
            self.snapshot = snapshot
            self._fresh.notify_all()
        release_freed_memory()  # the previous snapshot and the read's query results
        log.info("graph snapshot of %d cards at generation %d in %.2f s", snapshot.card_count(), generation,
                 self._build_seconds)
        if self.graph.generation != generation:
            self._wake.set()
