"""Windows of raw turns as recall units.

A question whose answer no card holds must still find it in L3: windows of
consecutive raw turns (:mod:`alaya_engine.raw.windows`) are searched like
cards — resident vectors plus full-text search — and compete with cards on the
same h-distance, their concept distance fused with their BM25 score as a
card's is (:mod:`.lexical`). A window is a seed (depth 0, no relation), so its
h is ``α · concept_distance``, as a card found by search has.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..raw.windows import TurnWindow
from .index import ResidentIndex, ResidentVectors
from .lexical import LexicalFusion
from .result import RecallNode

if TYPE_CHECKING:
    from concurrent.futures import Future

    import numpy as np

    from ..raw.store import RawStore
    from ..vectors.turn_windows import TurnWindowStore
    from .saved_loads import SavedLoads

WINDOW_KIND = "session_turns"
WINDOW_TIER = "RAW"
_VECTOR_SEARCHES = ThreadPoolExecutor(max_workers=2, thread_name_prefix="alaya-window-search")
"""Where a recall's window vector search runs, beside its card search: SimSIMD's 8-bit products release the GIL and
are bound by the core, not by memory, so the two searches take about as long as the longer one (measured in
docs/benchmarks.md). Two threads: the owner server may run recalls at once."""


class WindowIndex(ResidentIndex):
    """The resident windows: their vectors, searched as cards' are, and for a long-lived holder (the owner server)
    from the same scan their rows (session, span, time, text), so a recall reads the windows it returns from
    memory (from LanceDB, reading five of 200k took 4-6 ms of a recall). A one-shot process does not read the rows:
    at 200k windows they took the load from ~1 to ~3 s and ~170 MB. A window written since the load (an ingest; a
    large table is reloaded in the background), or of a session rewritten since, is read from the table
    (:meth:`TurnSearch._held`)."""

    def __init__(self, vectors: "TurnWindowStore", background_above: int | None = None,
                 saved: "SavedLoads | None" = None):
        from ..vectors.turn_windows import TURN_WINDOWS
        from .saved_loads import SavedTable

        super().__init__(vectors, background_above, saved and SavedTable(
            saved, TURN_WINDOWS, vectors.identity, ResidentWindows.of_arrays))
        self.with_rows = False

    def keep_rows(self) -> None:
        """Hold the rows from the next load on (a load without them is replaced at the next refresh)."""
        if not self.with_rows:
            self.with_rows = True
            self._version = None

    def _read(self, version: int) -> "ResidentWindows":
        return ResidentWindows(*self.store.active_windows(self.with_rows, version), version)

    def save(self) -> bool:
        """Only a load with rows is saved: one without them would make every later owner server load again (a
        process without rows uses a saved load too: its rows stay on disk unless read)."""
        return self.resident.rows is not None and super().save()

    def _load_version(self, version: int) -> None:
        super()._load_version(version)
        self.store.caught_up(version)
        if self.with_rows and self.resident.rows is None:  # keep_rows came during this load: load again with rows
            self._version = None

    def current(self) -> "ResidentWindows | None":
        """The load, when it is of the table's current version (with or without rows): a full-text search of that
        version names its hits from it."""
        load = self.held()
        return load if load is not None and load.version == self.store.vectors_version() else None

    def held(self) -> "ResidentWindows | None":
        """The load, whichever version it is of (None before the first)."""
        load = self.resident
        return load if isinstance(load, ResidentWindows) else None


class ResidentWindows(ResidentVectors):
    """One load of the window index: the embedded windows' vectors, and their rows (packed batches, in the same
    order: :class:`~alaya_engine.vectors.packed_rows.PackedRows`) or None."""

    def __init__(self, ids: list[str], codes: "np.ndarray", scales: "np.ndarray", batches: list | None,
                 row_ids: "np.ndarray", version: int):
        from itertools import accumulate

        import numpy as np

        super().__init__(ids, codes, scales)
        self.version = version
        self.rows = batches
        self._starts = [0, *accumulate(batch.num_rows for batch in batches or [])]
        self._by_row_id = np.argsort(row_ids, kind="stable")
        self._sorted_row_ids = row_ids[self._by_row_id]

    def arrays(self) -> "tuple[dict[str, np.ndarray], dict[str, list[str]]]":
        import numpy as np

        from ..vectors.packed_rows import pack_batches

        arrays, texts = super().arrays()
        arrays.update({"by_row_id": self._by_row_id, "sorted_row_ids": self._sorted_row_ids,
                       "version": np.array([self.version])})
        if self.rows is not None:
            packed, texts["sessions"] = pack_batches(self.rows)
            arrays.update({f"rows_{name}": array for name, array in packed.items()})
        return arrays, texts

    @classmethod
    def of_arrays(cls, arrays: "dict[str, np.ndarray]", texts: dict[str, list[str]]) -> "ResidentWindows":
        from itertools import accumulate

        from ..vectors.packed_rows import unpack_batches

        load = super().of_arrays({name: array for name, array in arrays.items() if not name.startswith("rows_")},
                                 texts)
        load.version = int(arrays["version"][0])
        rows = {name.removeprefix("rows_"): array for name, array in arrays.items() if name.startswith("rows_")}
        load.rows = unpack_batches(rows, texts["sessions"]) if rows else None
        load._starts = [0, *accumulate(batch.num_rows for batch in load.rows or [])]
        load._by_row_id, load._sorted_row_ids = arrays["by_row_id"], arrays["sorted_row_ids"]
        if len(load._sorted_row_ids) != len(load.ids) or (load.rows is not None and load._starts[-1] != len(load.ids)):
            raise ValueError("its rows and row ids disagree with its ids")
        return load

    def ids_of(self, row_ids: "np.ndarray") -> list[str | None]:
        """The ids of the windows at these LanceDB row ids of this load's version; None for a row it does not hold
        (a window not embedded yet)."""
        import numpy as np

        if not len(self.ids):
            return [None] * len(row_ids)
        found = np.minimum(np.searchsorted(self._sorted_row_ids, row_ids), len(self.ids) - 1)
        return [self.ids[self._by_row_id[place]] if self._sorted_row_ids[place] == row_id else None
                for place, row_id in zip(found.tolist(), row_ids.tolist())]

    def windows(self, window_ids: list[str]) -> dict[str, TurnWindow]:
        """The rows of these windows the load holds (none without rows), each read out of its batch
        (``Table.take`` over hundreds of batches took 15 ms, and joining them into one copy of the text held it
        twice while it was made)."""
        from bisect import bisect_right

        if self.rows is None:
            return {}
        windows = {}
        for window_id in window_ids:
            row = self.position.get(window_id)
            if row is not None:
                batch = bisect_right(self._starts, row) - 1
                windows[window_id] = _window(window_id, self.rows[batch].row(row - self._starts[batch]))
        return windows


def _window(window_id: str, row: dict) -> TurnWindow:
    return TurnWindow(window_id, row["session_id"], row["first"], row["last"], row["time"], row["text"])


@dataclass
class TurnSearch:
    """What a recall needs to search the windows: their resident index and its ``load`` of the table's current
    version (None when it is behind the table), the full-text search (None without free text), and L3, where a
    merged window is read (it is no row of the table: see :func:`.run.take_units`)."""

    index: WindowIndex
    load: ResidentWindows | None
    full_text: "Future[dict[str, float]] | None"
    raw: "RawStore"
    nearest: "Future[list[str]] | None" = None

    @classmethod
    def start(cls, index: WindowIndex, raw: "RawStore", words: str | None, limit: int,
              during_job: bool = False) -> "TurnSearch":
        """The window search of one recall: its full-text part, of ``words`` (None: none), started on LanceDB's
        threads to run beside the query embedding; its hits are named from the load when it is current. While a
        write job runs in this process (``during_job``), of the version the load holds even when the job has
        written since, as the cards' search does (``VectorStore.start_full_text_search``): the job's new windows
        are found once it ends."""
        load = index.current()
        searched = index.held() if during_job else load
        version, ids_of = (searched.version, searched.ids_of) if searched is not None else (None, None)
        full_text = None if words is None else index.store.start_search(words, limit, version, ids_of)
        return cls(index, load, full_text, raw)

    def start_vector_search(self, queries: "np.ndarray", top_k: int, min_similarity: float) -> None:
        """Start the vector search of :meth:`distances` on a thread of its own, so the caller searches the cards
        meanwhile."""
        self.nearest = _VECTOR_SEARCHES.submit(self.index.vector_search, queries, top_k, min_similarity)

    def distances(self, queries: "np.ndarray", fusion: LexicalFusion) -> dict[str, float]:
        """Concept distance of every window found by the vector search started for ``queries`` or by full-text
        search."""
        import numpy as np

        nearest = self.nearest.result()
        hits = self.full_text.result() if self.full_text is not None else {}
        lexical = fusion.shares(hits)
        found = list(dict.fromkeys(nearest + list(hits)))
        if not found or not len(queries):
            return {}
        missing = np.zeros(queries.shape[1], np.float32)  # not embedded yet: found by its words alone
        matrix = np.vstack([vector if vector is not None else missing for vector in self.index.vectors_of(found)])
        similarities = (matrix @ np.asarray(queries, dtype=matrix.dtype).T).max(axis=1).tolist()
        return {window_id: fusion.distance(max(0.0, 1.0 - similarity), lexical.get(window_id, 0.0))
                for window_id, similarity in zip(found, similarities)}

    def nodes(self, chosen: dict[str, tuple[float, float]], merged: set[str]) -> dict[str, RecallNode]:
        """Result nodes of the chosen windows: id → (h, concept distance). A window is read from memory when the
        resident rows hold it (:meth:`_held`), else from the table; a ``merged`` span (no row of the table) is read
        from L3. A window L3 no longer has either (ingested again since) is left out."""
        from ..raw.windows import parse_window_id, read_spans, window_heading

        windows = self._held([unit for unit in chosen if unit not in merged])
        unread = [window_id for window_id in chosen if window_id not in windows and window_id not in merged]
        windows.update((window_id, _window(window_id, row))
                       for window_id, row in self.index.store.windows(unread).items())
        spans = [parse_window_id(window_id) for window_id in chosen if window_id not in windows]
        if spans:
            windows.update(read_spans(self.raw, spans))
        nodes = {}
        for window_id, (h, distance) in chosen.items():
            window = windows.get(window_id)
            if window is None:
                continue
            nodes[window_id] = RecallNode(
                card_id=window_id, title=window_heading(window), content=window.text, score=round(1.0 - h, 4),
                h_distance=h, matched_rel=None, rel_similarity=None, type=WINDOW_KIND, tags=[], tier=WINDOW_TIER,
                depth=0, via=None, source="session", concept_distance=distance, relation_distance=0.0,
                kind=WINDOW_KIND, session_id=window.session_id, turn_range=[window.first, window.last],
                time=window.time)
        return nodes

    def _held(self, window_ids: list[str]) -> dict[str, TurnWindow]:
        """The windows the resident rows hold. A load behind the table (an ingest writing meanwhile) still holds
        every window of a session not rewritten since: a window's text never changes once written, and reading
        the returned windows from the table while it is written to took a fifth of a recall's time."""
        if self.load is not None:
            return self.load.windows(window_ids)
        behind = self.index.resident
        if not isinstance(behind, ResidentWindows):
            return {}
        rewritten = self.index.store.rewritten
        return {window_id: window for window_id, window in behind.windows(window_ids).items()
                if rewritten.get(window.session_id, 0) <= behind.version}
