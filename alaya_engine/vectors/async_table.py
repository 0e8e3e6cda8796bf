"""AsyncTable: the queries a recall makes of one LanceDB table — full-text search, reading a few rows — each as
one asynchronous query, on an event loop thread of its own.

LanceDB's synchronous API makes six round trips through its background loop
for one search (schema lookups for blob columns, version checks, batches): at
100k cards ~2 ms of a ~5 ms search, and the hand-offs of the GIL slow the
query embedding that runs beside it. The asynchronous query is a single round
trip; measured in ``Engine.recall`` at 100k cards: 13.6-16.2 ms p50 instead of
18.4-19.8 ms. Reading the ten windows a recall returns from 200k took 9.6 ms
this way against 21.6 ms synchronously (medians, on a loaded machine).

A search can also run on the table as of one version and return LanceDB's row ids, which the caller names from
what it holds of that version (:meth:`AsyncTable.search_at`): reading the ids of a search's hits cost ~2 ms CPU of
~6 at 200k windows.

One loop thread serves every store in the process (it starts on the first
search and sleeps in between); each :class:`AsyncTable` opens its own
asynchronous handle on the table there, with ``read_consistency_interval`` 0
like the store's synchronous handles, so a search sees every committed write.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    import numpy as np

    NameRows = Callable[[np.ndarray], list[str | None]]  # row ids of one version → their ids, None where unknown

PINNED_VERSIONS = 2
"""Handles checked out at a version kept per table: the resident load's, and the one a reload brings next."""
log = logging.getLogger(__name__)

_loop: asyncio.AbstractEventLoop | None = None
_loop_started = threading.Lock()


def _shared_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _loop_started:
        if _loop is None:
            _loop = asyncio.new_event_loop()
            threading.Thread(target=_loop.run_forever, name="alaya-full-text", daemon=True).start()
        return _loop


class AsyncTable:
    """One LanceDB table's full-text searches and row reads, returning futures."""

    def __init__(self, folder: Path, table_name: str):
        self.folder, self.table_name = folder, table_name
        self._database = None
        self._table = None
        self._pinned: OrderedDict[int, object] = OrderedDict()

    def search(self, text: str, limit: int, index_only: bool, version: int | None = None) -> "Future[dict[str, float]]":
        """Start a full-text search: ``{id: score}``, best first (the score is BM25's: recall fuses it with the
        cosine); ``index_only`` leaves out rows the index does not hold yet (no scan of them). ``version``: of the
        table as of that version (the latest if it cannot be read), else of the latest."""
        return asyncio.run_coroutine_threadsafe(self._search(text, limit, index_only, version), _shared_loop())

    def search_at(self, text: str, limit: int, version: int, ids_of: "NameRows") -> "Future[dict[str, float]]":
        """The search of :meth:`search` in the table as of ``version``, its hits named by ``ids_of`` (row ids of
        that version → ids) instead of read from the table; a hit it does not know is read by its row id. If that
        version cannot be read (gone), the latest one is searched instead."""
        return asyncio.run_coroutine_threadsafe(self._search_at(text, limit, version, ids_of), _shared_loop())

    def rows(self, where: str, columns: list[str]) -> list[dict]:
        """The rows matching ``where`` (an SQL filter), these columns only; waits for them."""
        return asyncio.run_coroutine_threadsafe(self._rows(where, columns), _shared_loop()).result()

    async def _rows(self, where: str, columns: list[str]) -> list[dict]:
        return (await (await self._opened()).query().where(where).select(columns).to_arrow()).to_pylist()

    async def _search(self, text: str, limit: int, index_only: bool, version: int | None = None) -> dict[str, float]:
        try:
            table = await (self._opened() if version is None else self._at(version))
            query = table.query().nearest_to_text(text)
            if index_only:
                query = query.fast_search()
            hits = await query.select(["id", "_score"]).limit(limit).to_arrow()
        except (ValueError, RuntimeError, OSError) as exc:
            if version is not None:
                log.warning("full-text search of version %d failed for %r (%s); searching the latest", version,
                            text[:80], exc)
                return await self._search(text, limit, index_only)
            log.warning("full-text search failed for %r: %s", text[:80], exc)
            return {}
        return dict(zip(hits.column("id").to_pylist(), hits.column("_score").to_pylist()))

    async def _search_at(self, text: str, limit: int, version: int, ids_of: "NameRows") -> dict[str, float]:
        try:
            table = await self._at(version)
            hits = await table.query().nearest_to_text(text).select(["_score"]).with_row_id().limit(limit).to_arrow()
            row_ids = hits.column("_rowid").to_numpy()
            ids = ids_of(row_ids)
            unknown = [int(row_id) for row_id, name in zip(row_ids, ids) if name is None]
            if unknown:
                read = await table.take_row_ids(unknown).select(["id"]).with_row_id().to_arrow()
                named = dict(zip(read.column("_rowid").to_pylist(), read.column("id").to_pylist()))
                ids = [named.get(int(row_id)) if name is None else name for row_id, name in zip(row_ids, ids)]
        except (ValueError, RuntimeError, OSError) as exc:
            log.warning("full-text search of version %d failed for %r (%s); searching the latest", version,
                        text[:80], exc)
            return await self._search(text, limit, index_only=False)
        return {name: score for name, score in zip(ids, hits.column("_score").to_pylist()) if name is not None}

    async def _at(self, version: int):
        """A handle on the table checked out at ``version``, opened once (a handle is never checked out again:
        two searches of different versions may run at once)."""
        if version not in self._pinned:
            await self._opened()
            table = await self._database.open_table(self.table_name)
            await table.checkout(version)
            self._pinned[version] = table
            while len(self._pinned) > PINNED_VERSIONS:
                self._pinned.popitem(last=False)
        return self._pinned[version]

    async def _opened(self):
        if self._table is None:
            from .lancedb_import import import_lancedb

            lancedb = import_lancedb()

            self._database = await lancedb.connect_async(str(self.folder), read_consistency_interval=timedelta(0))
            self._table = await self._database.open_table(self.table_name)
        return self._table
