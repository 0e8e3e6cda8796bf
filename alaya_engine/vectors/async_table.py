"""AsyncTable: the queries a recall makes of one LanceDB table — full-text search, reading a few rows — each as
one asynchronous query, on an event loop thread of its own.

LanceDB's synchronous API makes six round trips through its background loop
for one search (schema lookups for blob columns, version checks, batches): at
100k cards ~2 ms of a ~5 ms search, and the hand-offs of the GIL slow the
query embedding that runs beside it. The asynchronous query is a single round
trip; measured in ``Engine.recall`` at 100k cards: 13.6-16.2 ms p50 instead of
18.4-19.8 ms. Reading the ten windows a recall returns from 200k took 9.6 ms
this way against 21.6 ms synchronously (medians, on a loaded machine).

One loop thread serves every store in the process (it starts on the first
search and sleeps in between); each :class:`AsyncTable` opens its own
asynchronous handle on the table there, with ``read_consistency_interval`` 0
like the store's synchronous handles, so a search sees every committed write.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path

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
        self._table = None

    def search(self, text: str, limit: int, index_only: bool) -> "Future[dict[str, float]]":
        """Start a full-text search: ``{id: score}``, best first (the score is BM25's: recall fuses it with the
        cosine); ``index_only`` leaves out rows the index does not hold yet (no scan of them)."""
        return asyncio.run_coroutine_threadsafe(self._search(text, limit, index_only), _shared_loop())

    def rows(self, where: str, columns: list[str]) -> list[dict]:
        """The rows matching ``where`` (an SQL filter), these columns only; waits for them."""
        return asyncio.run_coroutine_threadsafe(self._rows(where, columns), _shared_loop()).result()

    async def _rows(self, where: str, columns: list[str]) -> list[dict]:
        return (await (await self._opened()).query().where(where).select(columns).to_arrow()).to_pylist()

    async def _search(self, text: str, limit: int, index_only: bool) -> dict[str, float]:
        try:
            query = (await self._opened()).query().nearest_to_text(text)
            if index_only:
                query = query.fast_search()
            hits = await query.select(["id", "_score"]).limit(limit).to_arrow()
        except (ValueError, RuntimeError, OSError) as exc:
            log.warning("full-text search failed for %r: %s", text[:80], exc)
            return {}
        return dict(zip(hits.column("id").to_pylist(), hits.column("_score").to_pylist()))

    async def _opened(self):
        if self._table is None:
            from .lancedb_import import import_lancedb

            lancedb = import_lancedb()

            database = await lancedb.connect_async(str(self.folder), read_consistency_interval=timedelta(0))
            self._table = await database.open_table(self.table_name)
        return self._table
