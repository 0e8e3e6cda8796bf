"""TurnWindowStore: the L1 table of raw-turn windows — vector, text and search terms in one LanceDB table.

Windows are derived from L3 sessions alone (:mod:`alaya_engine.raw.windows`),
written by ingest and by ``rebuild --l1``, so one table holds everything a
recall reads. Ingest embeds at most ``INGEST_EMBED_BUDGET`` windows per call:
a pasted 100k-turn log would otherwise hold the store for minutes (50,000
windows at ~500 a second). The rest are written with ``embedded`` false and a
zero vector, found by full-text search meanwhile, and embedded by the next
``distill`` (which ``introspect`` and ``ingest --distill`` run).

Full-text search runs over the ``terms`` column
(:func:`alaya_engine.foundations.terms.search_terms`) with LanceDB's whitespace tokenizer
and English stemming; rows added since the index was last folded are scanned,
so a window is searchable as soon as ingest returns.
"""

from __future__ import annotations

import sys
import threading
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundations.terms import search_terms
from .async_table import AsyncTable
from .packed_rows import PackedRows
from .store import read_codes, unusable_rows
from .versions import TableVersions

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ..foundations.domain import Session
    from ..raw.windows import TurnWindow
    from .async_table import NameRows

    Embed = Callable[[list[str]], np.ndarray]
    Progress = Callable[[int, int], None] | None

TURN_WINDOWS = "turn_windows"
EMBED_BATCH = 256
"""Windows embedded and written per batch: one LanceDB version per batch, progress between batches."""
INGEST_EMBED_BUDGET = 2048
"""Windows one ingest call embeds (~4 s here); beyond it they wait for the next distill."""
INGEST_STEP = 8
"""Sessions an ingest stores per step, their windows in one write: LanceDB makes a version per write, each listing
every fragment, so a version per session grew with the table (3,000 sessions' windows: 253 s and 549 MB of
versions one session a write, 29 s and 58 MB eight at a time)."""
_READ = ["id", "session_id", "first", "last", "time", "text"]
STATS_FILE = "turn_window_stats.json"
UNWRITTEN = sys.maxsize
"""The version a session being rewritten has until its write is done: no load holds its new text yet."""


def read_window_stats(folder: Path) -> dict[str, int] | None:
    """Windows and those waiting for their vector, as last written (None in a store whose windows were not
    counted yet), without importing LanceDB: what ``alaya status`` shows."""
    import json

    try:
        return json.loads((folder / STATS_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _schema(dimension: int):
    import pyarrow as pa

    return pa.schema([
        ("id", pa.string()), ("session_id", pa.string()), ("first", pa.int32()), ("last", pa.int32()),
        ("time", pa.int64()), ("text", pa.string()), ("terms", pa.string()),
        ("vector", pa.list_(pa.float32(), dimension)), ("embedded", pa.bool_()),
    ])


class TurnWindowStore:
    def __init__(self, folder: Path, dimension: int):
        from .lancedb_import import import_lancedb

        lancedb = import_lancedb()

        self.folder, self.dimension = folder, dimension
        self._db = lancedb.connect(str(folder), read_consistency_interval=timedelta(0))
        self._table = None
        self._indexed = False
        self._versions = TableVersions(folder)
        self._async = AsyncTable(folder, TURN_WINDOWS)
        self.rewritten: dict[str, int] = {}
        """Sessions whose windows this store replaced since it opened, with the table version that wrote them: a
        load of an earlier version may hold their old text (the windows of every other session never change once
        written). :meth:`caught_up` forgets those a load has read since."""
        self._rewritten_lock = threading.Lock()

    def exists(self) -> bool:
        """Stores made before turn windows existed have no table until ``rebuild --l1`` (verify says so)."""
        return (self.folder / f"{TURN_WINDOWS}.lance").is_dir()

    def table(self):
        """The table, created on first use in a store made before windows existed (its sessions' windows come
        with the next ingest of each, or all at once with ``rebuild --l1``, as verify says)."""
        if self._table is None:
            self._table = self._db.create_table(TURN_WINDOWS, schema=_schema(self.dimension), exist_ok=True)
        return self._table

    # Writing -------------------------------------------------------------------------------------------------------

    def index(self, sessions: list["Session"], embed: Embed, progress: Progress = None,
              budget: int | None = None, refresh: bool = True, replacing: bool = True) -> int:
        """Make these sessions' windows exactly those of their current content; the first ``budget`` of them
        (all when None) are embedded now, the rest by :meth:`embed_pending`. ``refresh`` folds them into the
        full-text index at the end (ingest does it once for all its sessions); ``replacing`` false skips deleting
        earlier windows of sessions that cannot have any (new to the store: a delete costs a table version).
        Returns how many were written."""
        import numpy as np

        from ..raw.windows import session_windows

        windows = [window for session in sessions for window in session_windows(session)]
        embedding = len(windows) if budget is None else min(budget, len(windows))
        if replacing:
            self.replace_sessions([session.id for session in sessions], [], np.zeros((0, self.dimension), np.float32))
        for start in range(0, len(windows), EMBED_BATCH):
            batch = windows[start:start + EMBED_BATCH]
            now = batch[:max(0, embedding - start)]
            vectors = window_vectors(embed, [window.text for window in now]) if now \
                else np.zeros((0, self.dimension), np.float32)
            waiting = np.zeros((len(batch) - len(now), self.dimension), np.float32)
            self.replace_sessions([], batch, np.vstack([vectors, waiting]), embedded=len(now))
            if progress:
                progress(start + len(batch), len(windows))
        if refresh:
            self.refresh_full_text_index()
        return len(windows)

    def replace_sessions(self, session_ids: list[str], windows: list["TurnWindow"], vectors: "np.ndarray",
                         embedded: int | None = None) -> None:
        """These sessions' windows become exactly ``windows`` (a replaced session's old windows go); only the
        first ``embedded`` vectors (all when None) are real, the rest wait for :meth:`embed_pending`."""
        table = self.table()
        if session_ids:
            self._rewriting(session_ids, UNWRITTEN)  # no load holds the new text until the version is known
            table.delete(_in("session_id", session_ids))
        if windows:
            table.add(self._arrow(windows, vectors, len(windows) if embedded is None else embedded))
        if session_ids:
            self._rewriting(session_ids, table.version)

    def _arrow(self, windows: list["TurnWindow"], vectors: "np.ndarray", embedded: int):
        """The rows as one Arrow table, vectors straight from numpy (a list of floats per row took seconds for
        the 50,000 windows of a 100k-turn session)."""
        import numpy as np
        import pyarrow as pa

        flat = pa.array(np.ascontiguousarray(vectors, dtype=np.float32).ravel())
        return pa.Table.from_arrays([
            pa.array([window.id for window in windows]), pa.array([window.session_id for window in windows]),
            pa.array([window.first for window in windows], pa.int32()),
            pa.array([window.last for window in windows], pa.int32()),
            pa.array([window.time for window in windows], pa.int64()),
            pa.array([window.text for window in windows]),
            pa.array([search_terms(window.text) for window in windows]),
            pa.FixedSizeListArray.from_arrays(flat, self.dimension),
            pa.array([position < embedded for position in range(len(windows))]),
        ], schema=_schema(self.dimension))

    def pending(self) -> int:
        """Windows written but not embedded yet."""
        return self.table().count_rows("NOT embedded") if self.exists() else 0

    def embed_pending(self, embed: Embed, progress: Progress = None) -> int:
        """Embed the windows an ingest left waiting; returns how many."""
        total, done = self.pending(), 0
        while done < total:
            rows = self.table().search().where("NOT embedded").select(_READ + ["terms"]).limit(EMBED_BATCH).to_list()
            if not rows:
                break
            vectors = window_vectors(embed, [row["text"] for row in rows])
            self.table().merge_insert("id").when_matched_update_all().execute(
                [{**row, "vector": vector.tolist(), "embedded": True} for row, vector in zip(rows, vectors)])
            done += len(rows)
            if progress:
                progress(done, total)
        if done:
            self.write_stats()
        return done

    def refresh_full_text_index(self) -> None:
        """Build the indexes once — full text over ``terms``, a B-tree over ``id`` (reading the ten windows a
        recall returns scanned every row without it: 16 ms at 200k windows) — and later fold new rows into them
        (they are searchable and readable before that too)."""
        table = self.table()
        if not table.count_rows():
            return
        if self._has_index():
            table.optimize()
        else:
            from lancedb.index import FTS, BTree

            table.create_index("terms", config=FTS(base_tokenizer="whitespace", lower_case=True, stem=True,
                                                   remove_stop_words=True, ascii_folding=True))
            table.create_index("id", config=BTree())
            self._indexed = True
        self.write_stats()

    def write_stats(self) -> None:
        """The counts :func:`read_window_stats` reads; written where a write of windows ends (an ingest, a
        distill's embedding of the waiting ones, a rebuild), not per session."""
        from ..foundations.atomic import atomic_write_json

        atomic_write_json(self.folder / STATS_FILE, {"windows": self.count(), "pending": self.pending()})

    # Reading -------------------------------------------------------------------------------------------------------

    def start_search(self, text: str, limit: int, version: int | None = None,
                     ids_of: "NameRows | None" = None) -> "Future[dict[str, float]]":
        """Window ids best matching ``text`` with their BM25 scores, on the full-text thread. With ``version`` and
        ``ids_of`` (row ids of that version → window ids, None where unknown: the resident load read at that
        version), the table as of ``version`` is searched and its hits named by ``ids_of``: reading the hits' ids
        from the table took ~2 of the ~6 ms CPU a search costs at 200k windows."""
        terms = search_terms(text)
        if not terms or not self.exists() or not self._has_index():
            done: Future[dict[str, float]] = Future()
            done.set_result({})
            return done
        if version is not None and ids_of is not None:
            return self._async.search_at(terms, limit, version, ids_of)
        return self._async.search(terms, limit, index_only=False)

    def _has_index(self) -> bool:
        if not self._indexed:
            self._indexed = any(index.index_type == "FTS" for index in self.table().list_indices())
        return self._indexed

    def _rewriting(self, session_ids: list[str], version: int) -> None:
        with self._rewritten_lock:
            self.rewritten.update(dict.fromkeys(session_ids, version))

    def caught_up(self, version: int) -> None:
        """A load of ``version`` was read: the sessions rewritten up to it are its text now (a server that ingests
        for weeks would otherwise keep every session it ever rewrote). Called from the thread that loaded."""
        with self._rewritten_lock:
            for session in [session for session, written in self.rewritten.items() if written <= version]:
                del self.rewritten[session]

    def vectors_version(self) -> int:
        return self._versions.version(TURN_WINDOWS, lambda: self.table().version)

    def identity(self) -> tuple[int, str] | None:
        """See :meth:`.versions.TableVersions.identity`."""
        return self._versions.identity(TURN_WINDOWS, lambda: self.table().version)

    def active_windows(self, with_rows: bool, version: int
                       ) -> tuple[list[str], "np.ndarray", "np.ndarray", list | None, "np.ndarray"]:
        """The ids and vectors of the embedded windows (int8 codes and their scales: windows grow with every
        session, and as floats were the largest thing recall holds), ``with_rows`` their rows (one
        :class:`.packed_rows.PackedRows` per batch, in the same order) or None, and their LanceDB row ids, from one
        scan of the table as of ``version`` (:meth:`vectors_version`): recall holds all of them in memory
        (docs/benchmarks.md gives the cost per 1,000 sessions), and names a full-text search's hits of that version
        by their row ids (:meth:`start_search`)."""
        import numpy as np

        table = self._db.open_table(TURN_WINDOWS)
        table.checkout(version)
        rows: list = []
        row_ids: list = []

        def batches():
            columns = _READ + ["vector"] if with_rows else ["id", "vector"]
            for batch in table.search().where("embedded").select(columns).with_row_id(True).limit(None).to_batches():
                if with_rows:  # packed: copies, so nothing keeps LanceDB's batch alive, vectors included
                    rows.append(PackedRows(batch))
                row_ids.append(batch.column("_rowid").to_numpy().copy())  # a view would keep the batch alive
                yield batch

        ids, codes, scales = read_codes(batches(), table.count_rows("embedded"), self.dimension)
        row_id_array = np.concatenate(row_ids) if row_ids else np.zeros(0, np.uint64)
        return ids, codes, scales, rows if with_rows else None, row_id_array

    def unusable_vectors(self) -> list[str]:
        """Embedded windows whose vector is not finite or all zero."""
        if not self.exists():
            return []
        table = self.table()
        return unusable_rows(table.search().where("embedded").select(["id", "vector"]).limit(None).to_batches(),
                             table.schema.field("vector").type.list_size)

    def windows(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The rows (without vector and terms) of these windows."""
        if not ids:
            return {}
        return {row["id"]: row for row in self._async.rows(_in("id", ids), _READ)}

    def session_counts(self) -> dict[str, int]:
        """Windows per session: what verify compares with L3."""
        from collections import Counter

        if not self.exists():
            return {}
        column = self.table().search().select(["session_id"]).limit(None).to_arrow().column("session_id")
        return dict(Counter(column.to_pylist()))

    def count(self) -> int:
        return self.table().count_rows() if self.exists() else 0


def window_vectors(embed: Embed, texts: list[str]) -> "np.ndarray":
    """Each window's vector: the normalised sum of its lines' vectors, every distinct line embedded once.

    Windows every two turns share a turn with each neighbour, so embedding whole windows embedded each turn 1.5
    times on average; the model's cost is its text's length. Measured against whole-window embeddings on the
    quality yardsticks in docs/benchmarks.md.
    """
    import numpy as np

    from ..embedding.base import normalise_rows
    from ..raw.windows import embedded_lines

    lines = [embedded_lines(text) for text in texts]
    distinct = list(dict.fromkeys(line for window in lines for line in window))
    row = {line: position for position, line in enumerate(distinct)}
    embedded = embed(distinct)
    return normalise_rows(np.vstack([embedded[[row[line] for line in window]].sum(axis=0) for window in lines]))


def _in(column: str, values: list[str]) -> str:
    return "{} IN ({})".format(column, ", ".join("'" + value.replace("'", "''") + "'" for value in values))
