"""TurnWindowStore: the L1 table of raw-turn windows — vector, text and search terms in one LanceDB table.

Windows are derived from L3 sessions alone (:mod:`alaya_engine.raw.windows`),
written by ingest and by ``rebuild --l1``, never updated in place, so one table
holds everything a recall reads. Full-text search runs over the ``terms``
column (:func:`alaya_engine.terms.search_terms`) with LanceDB's whitespace
tokenizer and English stemming; rows added since the index was last folded
are scanned, so a window is searchable as soon as ingest returns.
"""

from __future__ import annotations

from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..terms import search_terms
from .full_text import FullTextSearch
from .store import _float_rows
from .versions import TableVersions

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    from ..domain import Session
    from ..raw.windows import TurnWindow

TURN_WINDOWS = "turn_windows"
EMBED_BATCH = 256
"""Windows embedded and written per batch: one LanceDB version per batch, progress between batches."""
_READ = ["id", "session_id", "first", "last", "time", "text"]


def _schema(dimension: int):
    import pyarrow as pa

    return pa.schema([
        ("id", pa.string()), ("session_id", pa.string()), ("first", pa.int32()), ("last", pa.int32()),
        ("time", pa.int64()), ("text", pa.string()), ("terms", pa.string()),
        ("vector", pa.list_(pa.float32(), dimension)),
    ])


class TurnWindowStore:
    def __init__(self, folder: Path, dimension: int):
        import lancedb

        self.folder, self.dimension = folder, dimension
        self._db = lancedb.connect(str(folder), read_consistency_interval=timedelta(0))
        self._table = None
        self._indexed = False
        self._versions = TableVersions(folder)
        self._full_text = FullTextSearch(folder, TURN_WINDOWS)

    def create_table(self) -> None:
        self._db.create_table(TURN_WINDOWS, schema=_schema(self.dimension), exist_ok=True)

    def exists(self) -> bool:
        """Stores made before turn windows existed have no table until ``rebuild --l1`` (verify says so)."""
        return (self.folder / f"{TURN_WINDOWS}.lance").is_dir()

    def table(self):
        if self._table is None:
            self._table = self._db.open_table(TURN_WINDOWS)
        return self._table

    def index(self, sessions: list["Session"], embed: "Callable[[list[str]], np.ndarray]",
              progress: "Callable[[int, int], None] | None" = None) -> int:
        """Make these sessions' windows exactly those of their current content (ingest, rebuild); returns how
        many windows were written."""
        from ..raw.windows import session_windows

        windows = [window for session in sessions for window in session_windows(session)]
        self.replace_sessions([session.id for session in sessions], [], [])
        for start in range(0, len(windows), EMBED_BATCH):
            batch = windows[start:start + EMBED_BATCH]
            self.replace_sessions([], batch, embed([window.text for window in batch]))
            if progress:
                progress(start + len(batch), len(windows))
        self.refresh_full_text_index()
        return len(windows)

    def replace_sessions(self, session_ids: list[str], windows: list["TurnWindow"], vectors: "np.ndarray") -> None:
        """These sessions' windows become exactly ``windows`` (a replaced session's old windows go)."""
        table = self.table()
        if session_ids:
            table.delete(_in("session_id", session_ids))
        if windows:
            table.add([{"id": window.id, "session_id": window.session_id, "first": window.first,
                        "last": window.last, "time": window.time, "text": window.text,
                        "terms": search_terms(window.text), "vector": vector.tolist()}
                       for window, vector in zip(windows, vectors)])

    def refresh_full_text_index(self) -> None:
        """Build the index once; later fold new rows into it (they are searchable before that too)."""
        table = self.table()
        if not table.count_rows():
            return
        if self._has_index():
            table.optimize()
        else:
            from lancedb.index import FTS

            table.create_index("terms", config=FTS(base_tokenizer="whitespace", lower_case=True, stem=True,
                                                   remove_stop_words=True, ascii_folding=True))
            self._indexed = True

    def start_search(self, text: str, limit: int) -> "Future[dict[str, float]]":
        """Window ids best matching ``text`` with their BM25 scores, on the full-text thread."""
        terms = search_terms(text)
        if not terms or not self.exists() or not self._has_index():
            done: Future[dict[str, float]] = Future()
            done.set_result({})
            return done
        return self._full_text.submit(terms, limit, index_only=False)

    def _has_index(self) -> bool:
        if not self._indexed:
            self._indexed = any(index.index_type == "FTS" for index in self.table().list_indices())
        return self._indexed

    def vectors_version(self) -> int:
        return self._versions.version(TURN_WINDOWS, lambda: self.table().version)

    def active_vectors(self) -> tuple[list[str], "np.ndarray"]:
        """Every window's id and vector (all of them are resident: see docs/recall.md for the memory cost)."""
        import numpy as np

        table = self.table()
        matrix = np.empty((table.count_rows(), self.dimension), dtype=np.float32)
        ids: list[str] = []
        for batch in table.search().select(["id", "vector"]).limit(None).to_batches():
            matrix[len(ids):len(ids) + batch.num_rows] = _float_rows(batch.column("vector"), self.dimension)
            ids.extend(batch.column("id").to_pylist())
        return ids, matrix[:len(ids)]

    def windows(self, ids: list[str]) -> dict[str, dict[str, Any]]:
        """The rows (without vector and terms) of these windows."""
        if not ids:
            return {}
        rows = self.table().search().where(_in("id", ids)).select(_READ).limit(None).to_list()
        return {row["id"]: row for row in rows}

    def session_counts(self) -> dict[str, int]:
        """Windows per session: what verify compares with L3."""
        from collections import Counter

        if not self.exists():
            return {}
        column = self.table().search().select(["session_id"]).limit(None).to_arrow().column("session_id")
        return dict(Counter(column.to_pylist()))

    def count(self) -> int:
        return self.table().count_rows() if self.exists() else 0


def _in(column: str, values: list[str]) -> str:
    return "{} IN ({})".format(column, ", ".join("'" + value.replace("'", "''") + "'" for value in values))
