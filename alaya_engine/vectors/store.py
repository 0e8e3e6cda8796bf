"""VectorStore: the L1 tables in LanceDB.

Layout chosen from measurements (LanceDB 0.40): vectors and counters live in
separate tables, so a counter update never rewrites a vector; a COLD card's
vector leaves ``card_vectors`` (what recall holds in memory as floats) for
``cold_vectors``, as 8-bit codes with a scale per row: a quarter of the bytes,
and the card stays findable by meaning (docs/architecture.md); writes are
batched (every ``add`` makes a version and a fragment). ``import lancedb`` costs over 2 s, so this module is
imported only by commands that touch vectors; the row counts ``alaya status``
shows are kept in ``stats.json`` beside the tables, rewritten after every
write by the store's single writer.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from concurrent.futures import Future
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..foundations.atomic import atomic_write_json
from ..foundations.domain import TIERS
from ..foundations.errors import RUNTIME, AlayaError
from .async_table import AsyncTable
from .versions import TableVersions

if TYPE_CHECKING:
    from collections.abc import Iterator

    import numpy as np
    import pyarrow as pa

    from ..foundations.domain import Card

CARD_VECTORS = "card_vectors"
CARD_META = "card_meta"
CARD_HEAT = "card_heat"
COLD_VECTORS = "cold_vectors"
RELATIONS = "relations"
STATS_FILE = "stats.json"
log = logging.getLogger(__name__)


def _schemas(dimension: int) -> dict[str, Any]:
    import pyarrow as pa

    vector = pa.list_(pa.float32(), dimension)
    return {
        CARD_VECTORS: pa.schema([
            ("id", pa.string()), ("vector", vector), ("tier", pa.string()), ("type", pa.string()),
        ]),
        CARD_META: pa.schema([
            ("id", pa.string()), ("card_id", pa.string()), ("content_hash", pa.string()),
            ("created_at", pa.int64()), ("title", pa.string()), ("tags", pa.list_(pa.string())),
            ("type", pa.string()), ("text", pa.string()),
        ]),
        CARD_HEAT: pa.schema([
            ("id", pa.string()), ("created_at", pa.int64()), ("type", pa.string()), ("last_accessed", pa.int64()),
            ("access_count", pa.int64()), ("relevance", pa.float64()), ("temperature", pa.float64()),
            ("tier", pa.string()),
        ]),
        COLD_VECTORS: pa.schema([
            ("id", pa.string()), ("code", pa.list_(pa.int8(), dimension)), ("scale", pa.float32()),
        ]),
        RELATIONS: pa.schema([
            ("relation", pa.string()), ("vector", vector), ("frequency", pa.int64()), ("is_core", pa.bool_()),
            ("examples", pa.list_(pa.string())), ("created_at", pa.int64()), ("updated_at", pa.int64()),
        ]),
    }


def read_stats(folder: Path) -> dict[str, Any]:
    """Row counts as last written, without importing LanceDB."""
    path = folder / STATS_FILE
    if not path.exists():
        return {"cards": 0, "by_tier": dict.fromkeys(TIERS, 0), "relations": 0}
    return json.loads(path.read_text(encoding="utf-8"))


HEAT_MOVED = ("temperature", "tier", "last_accessed", "access_count", "relevance")
"""The columns a store made before ``card_heat`` kept in ``card_meta`` (see :meth:`VectorStore._split_heat`)."""
UNINDEXED_SEARCHABLE_ROWS = 1000
"""Rows written since the full-text index was refreshed that a search still scans (a few are scanned in no time)."""

MERGE_BYTES = 64 << 20
"""The most input one LanceDB ``merge_insert`` is given; a larger write is merged slice by slice. A merge holds
its input's join in LanceDB's memory pool (300 MB unless ``LANCE_MEM_POOL_SIZE`` says otherwise), which it cannot
spill, and matching through ``card_meta``'s id index adds ~250 bytes a row: the first cool-down of a million-card
store rewrote every card's heat in one merge and failed for want of 244 MB more (docs/benchmarks.md)."""
MERGE_ROW_BYTES = 256
"""What a merged row costs beside its own bytes (the id index's candidates, above)."""

WRITTEN_KEPT = 20_000
"""Vectors of cards written since a resident index's last load kept at most (~40 MB at 512 dimensions): an ingest
with no recall between would grow them otherwise; a card beyond is scored on its embedded title, as before."""


class VectorStore:
    def __init__(self, folder: Path, dimension: int):
        from .lancedb_import import import_lancedb

        lancedb = import_lancedb()

        self.folder = folder
        self.dimension = dimension
        self._db = lancedb.connect(str(folder), read_consistency_interval=timedelta(0))
        self._tables: dict[str, Any] = {}
        self._full_text_index: str | None = None
        self._async = AsyncTable(folder, CARD_META)
        self._relations_cache: tuple | None = None
        self._versions = TableVersions(folder)
        self._written: dict[str, tuple[int, Any]] | None = None
        """Vectors of the cards this store wrote, with the ``card_vectors`` version holding them, kept (once a
        resident index asks: :meth:`keep_written`) until it has loaded that version (:meth:`written_vector`).
        A distill step writes them while a background reload lets them go: both under ``_written_lock``."""
        self._written_lock = threading.Lock()
        self._heat_split = False
        self._behind_at: tuple[int, bool] | None = None
        """(``card_meta`` version, whether its index then missed too many rows), read by :meth:`_index_behind`: as
        the last full-text search outside a write job found them, which is what one during a job reads."""

    def table(self, name: str):
        """This store's handle on a table, opened once: an opening reads the newest manifest (~0.8 ms, three per
        recall), where an open handle checks for a newer version in ~0.3 ms (``read_consistency_interval`` 0:
        every read sees every committed write, this process's or another's)."""
        table = self._tables.get(name)
        if table is None:
            if name in (CARD_META, CARD_HEAT) and not self._heat_split:
                self._split_heat()
            if name in (COLD_VECTORS, CARD_HEAT):  # a store made before the table was kept gets it on first use
                table = self._db.create_table(name, schema=_schemas(self.dimension)[name], exist_ok=True)
            else:
                table = self._db.open_table(name)
            self._tables[name] = table
        return table

    def _split_heat(self) -> None:
        """A store made before ``card_heat`` kept its counters, temperature and tier in ``card_meta``, beside the
        searched text: the nightly cool-down rewrote most of its rows, and LanceDB rewrites a whole row to update
        one column (at a million cards, 5 s and +1.5 GB for the 394k rows one night changes, and the full-text
        index to refresh after; 0.9 s and +0.1 GB for the same rows of the narrow table). Moved here, once: the
        table made from those columns in one commit (two processes moving at once: one makes it), then the columns
        dropped, so a move cut short is finished by the next opener."""
        names = set(self._db.list_tables().tables)
        if CARD_META in names:
            meta = self._db.open_table(CARD_META)
            moved = [name for name in HEAT_MOVED if name in meta.schema.names]
            if moved and CARD_HEAT not in names:
                schema = _schemas(self.dimension)[CARD_HEAT]
                rows = meta.search().select(schema.names).limit(None).to_arrow().select(schema.names).cast(schema)
                try:
                    self._db.create_table(CARD_HEAT, data=rows, schema=schema)
                except ValueError:  # "already exists": made meanwhile by another process
                    self._db.open_table(CARD_HEAT)
            if moved:
                try:
                    meta.drop_columns(moved)
                except RuntimeError:  # another process dropped them first (LanceDB: a commit conflict)
                    if set(HEAT_MOVED) & set(self._db.open_table(CARD_META).schema.names):
                        raise
        self._heat_split = True

    def create_tables(self) -> None:
        for name, schema in _schemas(self.dimension).items():
            self._db.create_table(name, schema=schema, exist_ok=True)
        self.write_stats()

    def upsert_relations(self, names: list[str], vectors: "np.ndarray", is_core: bool,
                         examples: list[list[str]]) -> None:
        """Insert or replace relation embeddings by name, in one batched write."""
        import pyarrow as pa

        now = int(time.time() * 1000)
        schema = _schemas(self.dimension)[RELATIONS]
        batch = pa.table({
            "relation": names,
            "vector": [row.tolist() for row in vectors],
            "frequency": [0] * len(names),
            "is_core": [is_core] * len(names),
            "examples": examples,
            "created_at": [now] * len(names),
            "updated_at": [now] * len(names),
        }, schema=schema)
        table = self.table(RELATIONS)
        table.merge_insert("relation").when_matched_update_all().when_not_matched_insert_all().execute(batch)
        self.write_stats()

    def mark_core(self, names: list[str]) -> None:
        """Flag relations ``is_core`` (a promotion), leaving their vectors and examples as they are."""
        import pyarrow as pa

        known = [name for name in names if name in self.relation_names()]
        if known:
            self.table(RELATIONS).merge_insert("relation").when_matched_update_all().execute(
                pa.table({"relation": known, "is_core": [True] * len(known)}))

    def relation_names(self) -> list[str]:
        table = self.table(RELATIONS)
        return sorted(table.to_arrow().column("relation").to_pylist())

    def relation_vectors(self) -> tuple[list[str], "np.ndarray"]:
        """Relation names and vectors, re-read only when the relations table has a new version."""
        version = self.version(RELATIONS)
        if self._relations_cache is None or self._relations_cache[0] != version:
            table = self.table(RELATIONS)
            rows = table.to_arrow()
            self._relations_cache = (table.version, rows.column("relation").to_pylist(), self._matrix(rows))
        return self._relations_cache[1], self._relations_cache[2]

    def set_relation_frequencies(self, frequencies: dict[str, int]) -> None:
        """Update usage counts only (a partial merge: the vectors are not rewritten)."""
        import pyarrow as pa

        known = set(self.relation_names())
        rows = {name: count for name, count in frequencies.items() if name in known}
        if not rows:
            return
        update = pa.table({"relation": list(rows), "frequency": pa.array(list(rows.values()), pa.int64()),
                           "updated_at": pa.array([int(time.time() * 1000)] * len(rows), pa.int64())})
        self.table(RELATIONS).merge_insert("relation").when_matched_update_all().execute(update)

    def upsert_cards(self, cards: list["Card"], vectors: "np.ndarray") -> None:
        """One batched write per table: vectors replaced by id; metadata inserted, or its text columns updated.

        Counters (``access_count``, ``last_accessed``) of an existing card are never reset here.
        """
        import pyarrow as pa

        if not cards:
            return
        schemas = _schemas(self.dimension)
        ids = [card.id for card in cards]
        rows = pa.table({"id": ids, "vector": [row.tolist() for row in vectors], "tier": [card.tier for card in cards],
                         "type": [card.type for card in cards]}, schema=schemas[CARD_VECTORS])
        if self._all_new(CARD_VECTORS, ids):
            self.table(CARD_VECTORS).add(rows)
        else:
            merge_in_slices(self.table(CARD_VECTORS), "id", rows, insert=True)
        self._delete_where(COLD_VECTORS, ids)  # a card has one vector: the one just written
        meta, heat = self.meta_rows(cards), self.new_heat_rows(cards)
        if self._all_new(CARD_META, ids):
            self.table(CARD_META).add(meta)
            self.table(CARD_HEAT).add(heat)
        else:
            merge_in_slices(self.table(CARD_META), "id", meta, update=False, insert=True)
            merge_in_slices(self.table(CARD_META), "id", meta.select(["id", "content_hash", "title", "tags", "type",
                                                                      "text"]))
            merge_in_slices(self.table(CARD_HEAT), "id", heat, update=False, insert=True)
            merge_in_slices(self.table(CARD_HEAT), "id", heat.select(["id", "type"]))
        if self._written is not None:
            version = self.table(CARD_VECTORS).version
            with self._written_lock:
                self._written.update((card_id, (version, vector)) for card_id, vector in zip(ids, vectors))
                for card_id in list(itertools.islice(self._written, max(0, len(self._written) - WRITTEN_KEPT))):
                    del self._written[card_id]
        self.write_stats()

    def keep_written(self) -> None:
        """Keep the vectors of the cards written from now on for :meth:`written_vector` (a resident index's
        store; a rebuild or an ingest without one keeps nothing)."""
        with self._written_lock:
            if self._written is None:
                self._written = {}

    def written_vector(self, card_id: str) -> "np.ndarray | None":
        """The vector this store wrote for the card, while no resident index has loaded it yet: a card a distill
        step wrote a moment ago, reached by full-text search or the graph before a large store's background reload,
        is scored on its own vector instead of its title embedded at query time."""
        with self._written_lock:
            written = self._written.get(card_id) if self._written else None
        return None if written is None else written[1]

    def loaded_through(self, version: int) -> None:
        """A resident index now holds ``card_vectors`` as of ``version``: the vectors written up to it are there."""
        with self._written_lock:
            if self._written:
                self._written = {card_id: written for card_id, written in self._written.items()
                                 if written[0] > version}

    def _all_new(self, name: str, card_ids: list[str]) -> bool:
        """Whether no row of table ``name`` has one of these ids, each given once: then rows are appended, where
        a merge on ``id`` cost ~11 ms a table for a distill step's few dozen cards (three merges a step, a tenth
        of LoCoMo conversation 26's distillation)."""
        return len(set(card_ids)) == len(card_ids) and not self.table(name).count_rows(_id_predicate(card_ids))

    def meta_rows(self, cards: list["Card"]):
        """``card_meta`` rows for ``cards``: what full-text search reads and a card's text changes."""
        import pyarrow as pa

        ids = [card.id for card in cards]
        return pa.table({
            "id": ids, "card_id": ids, "content_hash": [card.content_hash() for card in cards],
            "created_at": [card.created_at for card in cards], "title": [card.title for card in cards],
            "tags": [list(card.tags) for card in cards], "type": [card.type for card in cards],
            "text": [card.search_text() for card in cards],
        }, schema=_schemas(self.dimension)[CARD_META])

    def new_heat_rows(self, cards: list["Card"], access: dict[str, tuple[int, int]] | None = None):
        """``card_heat`` rows for cards new to L1; ``access`` gives (access_count, last_accessed) where known."""
        import pyarrow as pa

        counters = [(access or {}).get(card.id, (0, 0)) for card in cards]
        return pa.table({
            "id": [card.id for card in cards], "created_at": [card.created_at for card in cards],
            "type": [card.type for card in cards], "last_accessed": [int(last) for _, last in counters],
            "access_count": [int(count) for count, _ in counters], "relevance": [0.0] * len(cards),
            "temperature": [float(card.temperature) for card in cards], "tier": [card.tier for card in cards],
        }, schema=_schemas(self.dimension)[CARD_HEAT])

    HEAT_COLUMNS = ["id", "created_at", "last_accessed", "access_count", "relevance", "tier", "temperature", "type"]

    def heat_rows(self) -> list[dict]:
        """Every card's counters and tier from ``card_heat`` (COLD cards included)."""
        return self._scan(CARD_HEAT, self.HEAT_COLUMNS).to_pylist()

    def heat_columns(self) -> dict[str, list]:
        """:meth:`heat_rows` column by column: at 100k cards a quarter of the memory of 100k dicts."""
        table = self.heat_table()
        return {name: table.column(name).to_pylist() for name in self.HEAT_COLUMNS}

    def heat_table(self) -> "pa.Table":
        """:meth:`heat_rows` as Arrow columns, no Python object per value (a million cards' lists: ~0.5 GB)."""
        return self._scan(CARD_HEAT, self.HEAT_COLUMNS)

    def heat_row(self, card_id: str) -> dict | None:
        """One card's counters: a filtered read (17 ms at 100k cards, where reading them all took 1 s)."""
        rows = self.table(CARD_HEAT).search().where(_id_predicate([card_id])) \
            .select(self.HEAT_COLUMNS).limit(1).to_list()
        return rows[0] if rows else None

    HEAT_UPDATE_COLUMNS = ["id", "last_accessed", "access_count", "relevance", "temperature", "tier"]

    def update_heat(self, rows: list[dict]) -> None:
        """Write counters, temperature and tier for these cards (a partial merge: text and vectors untouched)."""
        if rows:
            self.update_heat_columns({name: [row[name] for row in rows] for name in self.HEAT_UPDATE_COLUMNS})
            self.set_vector_tiers({row["id"]: row["tier"] for row in rows})

    def update_heat_columns(self, columns: dict[str, list]) -> None:
        """The ``card_heat`` half of :meth:`update_heat`, for the cards in ``columns`` (``HEAT_UPDATE_COLUMNS``).
        LanceDB rewrites every row it updates: callers pass only the rows that changed."""
        import pyarrow as pa

        if not columns["id"]:
            return
        schema = _schemas(self.dimension)[CARD_HEAT]
        update = pa.table({name: columns[name] for name in self.HEAT_UPDATE_COLUMNS},
                          schema=pa.schema([schema.field(name) for name in self.HEAT_UPDATE_COLUMNS]))
        merge_in_slices(self.table(CARD_HEAT), "id", update)
        self.write_stats()

    def set_vector_tiers(self, tiers: dict[str, str]) -> None:
        """The ``card_vectors`` half of :meth:`update_heat`: card id → tier, for the cards that have a vector row."""
        import pyarrow as pa

        if tiers:
            merge_in_slices(self.table(CARD_VECTORS), "id", pa.table({"id": list(tiers), "tier": list(tiers.values())}))

    def add_vectors(self, rows: list[dict], vectors: "np.ndarray") -> None:
        """Give cards (back) their vector rows: ``rows`` carry id, tier and type."""
        import pyarrow as pa

        if not rows:
            return
        merge_in_slices(self.table(CARD_VECTORS), "id", pa.table(
            {"id": [r["id"] for r in rows], "vector": [v.tolist() for v in vectors], "tier": [r["tier"] for r in rows],
             "type": [r["type"] for r in rows]}, schema=_schemas(self.dimension)[CARD_VECTORS]), insert=True)
        self.write_stats()

    def archive_vectors(self, card_ids: list[str]) -> None:
        """COLD: the card's vector moves from ``card_vectors`` to ``cold_vectors`` as 8-bit codes.

        Written there before it is deleted here, so a crash between the two leaves the card with both rows
        (the next cool-down archives it again; a write replaces by id), never with none. Read, coded and written
        :data:`MERGE_BYTES` at a time: a first cool-down of a million cards archives ~975k vectors, whose floats
        alone are 2 GB (read whole, they took that process to an 8 GB peak: docs/benchmarks.md)."""
        import pyarrow as pa

        if not card_ids:
            return
        cold, coded, size = self.table(COLD_VECTORS), [], 0
        for batch in self._batches_of(CARD_VECTORS, card_ids, "vector"):
            codes, scales = quantise_rows(float_rows(batch.column("vector"), self.dimension))
            coded.append(pa.table({"id": batch.column("id"), "scale": scales,
                                   "code": pa.FixedSizeListArray.from_arrays(pa.array(codes.ravel()), self.dimension)},
                                  schema=_schemas(self.dimension)[COLD_VECTORS]))
            size += coded[-1].nbytes
            if size >= MERGE_BYTES:
                merge_in_slices(cold, "id", pa.concat_tables(coded), insert=True)
                coded, size = [], 0
        if coded:
            merge_in_slices(cold, "id", pa.concat_tables(coded), insert=True)
        self._delete_where(CARD_VECTORS, card_ids)
        self.write_stats()

    def restore_vectors(self, rows: list[dict]) -> list[dict]:
        """A COLD card warmed up: its vector moves back from ``cold_vectors`` (``rows`` carry id, tier and type).
        Returns the rows that have no cold vector to move (a store from before they were kept), for the caller
        to embed."""
        import numpy as np

        if not rows:
            return []
        ids, codes = self._rows_of(COLD_VECTORS, [row["id"] for row in rows], "code", "scale")
        if ids:
            found = {row["id"]: row for row in rows}
            vectors = float_rows(codes[0], self.dimension, np.int8) * codes[1].to_numpy()[:, None]
            self.add_vectors([found[card_id] for card_id in ids], vectors)
            self._delete_where(COLD_VECTORS, ids)
            self.write_stats()
        moved = set(ids)
        return [row for row in rows if row["id"] not in moved]

    def cold_vectors(self) -> tuple[list[str], "np.ndarray", "np.ndarray"]:
        """Ids, int8 codes ``(rows, dimension)`` and float32 scales of every COLD card's vector (a vector is
        ``code * scale``), read batch by batch into arrays allocated once."""
        import numpy as np

        table = self.table(COLD_VECTORS)
        return read_codes(table.search().select(["id", "code", "scale"]).limit(None).to_batches(), table.count_rows(),
                          self.dimension, lambda batch: (float_rows(batch.column("code"), self.dimension, np.int8),
                                                         batch.column("scale").to_numpy()))

    def cold_ids(self) -> list[str]:
        """Every ``cold_vectors`` id (repeats included, for verify)."""
        return self._scan(COLD_VECTORS, ["id"]).column("id").to_pylist()

    def cold_version(self) -> int:
        return self.version(COLD_VECTORS)

    def _rows_of(self, name: str, card_ids: list[str], *columns: str) -> tuple[list[str], Any]:
        """The rows of ``card_ids`` in table ``name``: their ids and the wanted columns (one column: it alone)."""
        import pyarrow as pa

        batches = list(self._batches_of(name, card_ids, *columns))
        if not batches:
            return [], None
        found = pa.Table.from_batches(batches)
        values = [found.column(column).combine_chunks() for column in columns]
        return found.column("id").to_pylist(), values[0] if len(values) == 1 else values

    def _batches_of(self, name: str, card_ids: list[str], *columns: str) -> "Iterator[pa.RecordBatch]":
        """The rows of ``card_ids`` in table ``name`` (id and the wanted columns), batch by batch as the table is read.
        A scan filtered by membership in a set made once: an ``IN`` predicate of the ~90k ids a first cool-down
        archives at 100k cards would be larger than the table's ids, and ``pyarrow.compute.is_in`` hashes its value
        set again for every batch (192 of a first 1M cool-down's 312 s, for 975k ids)."""
        import pyarrow as pa

        wanted = set(card_ids)
        for batch in self.table(name).search().select(["id", *columns]).limit(None).to_batches():
            batch = batch.filter(pa.array([card_id in wanted for card_id in batch.column("id").to_pylist()],
                                          pa.bool_()))
            if batch.num_rows:
                yield batch

    def _delete_where(self, name: str, card_ids: list[str]) -> None:
        """Delete these ids' rows, if there are any: even a delete of nothing makes a new version, and every new
        version sends recalls to reload what they hold."""
        if card_ids:
            predicate = _id_predicate(card_ids)
            table = self.table(name)
            if table.count_rows(predicate):
                table.delete(predicate)

    def vector_rows(self) -> tuple[list[str], int]:
        """Every ``card_vectors`` id (repeats included, for verify) and the stored vector width."""
        table = self.table(CARD_VECTORS)
        return self._scan(CARD_VECTORS, ["id"]).column("id").to_pylist(), table.schema.field("vector").type.list_size

    def unusable_vectors(self) -> dict[str, list[str]]:
        """Table → ids (relation names) whose vector is not finite or all zero: damage no search can use."""
        table = self.table(CARD_VECTORS)
        names, relations = self.relation_vectors()
        return {CARD_VECTORS: unusable_rows(table.search().select(["id", "vector"]).limit(None).to_batches(),
                                            table.schema.field("vector").type.list_size),
                RELATIONS: [name for name, bad in zip(names, unusable_mask(relations)) if bad]}

    def meta_index(self) -> dict[str, tuple[str, str | None]]:
        """Card id → (content_hash, tier) of every ``card_meta`` row; the tier is None for a card without a
        ``card_heat`` row."""
        meta = self._scan(CARD_META, ["id", "content_hash"])
        heat = self._scan(CARD_HEAT, ["id", "tier"])
        tiers = dict(zip(heat.column("id").to_pylist(), heat.column("tier").to_pylist()))
        return {card_id: (content_hash, tiers.get(card_id)) for card_id, content_hash in
                zip(meta.column("id").to_pylist(), meta.column("content_hash").to_pylist())}

    def vector_ids(self) -> set[str]:
        return set(self.vector_tiers())

    def vector_tiers(self) -> dict[str, str]:
        """Card id → the tier stored beside its vector, for every card that has one."""
        table = self._scan(CARD_VECTORS, ["id", "tier"])
        return dict(zip(table.column("id").to_pylist(), table.column("tier").to_pylist()))

    def delete_cards(self, card_ids: list[str]) -> None:
        if not card_ids:
            return
        self._delete_where(CARD_VECTORS, card_ids)
        self._delete_where(COLD_VECTORS, card_ids)
        self.table(CARD_META).delete(_id_predicate(card_ids))
        self.table(CARD_HEAT).delete(_id_predicate(card_ids))
        self.write_stats()

    def vectors_version(self) -> int:
        return self.version(CARD_VECTORS)

    def identity(self, name: str) -> tuple[int, str] | None:
        """See :meth:`.versions.TableVersions.identity`."""
        return self._versions.identity(name, lambda: self.table(name).version)

    def version(self, name: str) -> int:
        """The table's newest committed version, by any process (see :mod:`alaya_engine.vectors.versions`)."""
        return self._versions.version(name, lambda: self.table(name).version)

    def full_text_search(self, text: str, limit: int) -> list[str]:
        """Card ids best matching ``text`` by full-text search (COLD cards included), best first."""
        return list(self.start_full_text_search(text, limit).result())

    def start_full_text_search(self, text: str, limit: int, during_job: bool = False) -> "Future[dict[str, float]]":
        """The search of :meth:`full_text_search`, running on its own thread (recall embeds meanwhile).

        Rows written since the index was refreshed are searched too, by scanning them — unless there are too many
        (:meth:`_index_behind`): scanning ~90k rows took seconds per recall at 100k cards, so until introspect
        refreshes the index, those rows are left out.

        ``during_job``: a write job runs in this process, each of its writes a new version of the table, and a search
        of the newest waited behind them (docs/benchmarks.md, "Searches during a write job"); the table is searched
        as the last search before the job found it. The cards the job writes are found by their vectors meanwhile
        (:meth:`keep_written`), by their words once it ends.
        """
        if not self._has_full_text_index():
            done: Future[dict[str, float]] = Future()
            done.set_result({})
            return done
        if during_job and self._behind_at is not None:
            version, index_only = self._behind_at
            return self._async.search(text, limit, index_only, version)
        return self._async.search(text, limit, index_only=self._index_behind())

    def _index_behind(self) -> bool:
        """Whether the full-text index misses more than ``UNINDEXED_SEARCHABLE_ROWS`` rows, as the table stands:
        a bulk write by any process leaves it so, and one killed before it refreshed the index left it so for every
        later process (a million cards' interrupted introspect: every recall scanned 532k rows, 25 s).
        Asked again only when the table's version moves (0.4-3 ms)."""
        version = self.version(CARD_META)
        if self._behind_at is None or self._behind_at[0] != version:
            name = self._full_text_index_name()
            stats = self.table(CARD_META).index_stats(name) if name else None
            self._behind_at = (version, stats is not None and stats.num_unindexed_rows > UNINDEXED_SEARCHABLE_ROWS)
        return self._behind_at[1]

    def refresh_full_text_index(self) -> None:
        """Build the FTS index once; later, fold new rows into it (they are searchable before that too).

        The ids get an index too, folded in by the same ``optimize``: a merge on ``id`` (cards distilled again)
        then finds its rows through it instead of holding the whole table, its text too, while it joins (measured
        at 766k rows: a 2.1 GB peak and 12.5 s without, 0.4 GB and 6.5 s with)."""
        table = self.table(CARD_META)
        if not table.count_rows():
            return
        if not any(index.columns == ["id"] for index in table.list_indices()):
            from lancedb.index import BTree

            table.create_index("id", config=BTree())
        if self._has_full_text_index():
            table.optimize()
        else:
            from lancedb.index import FTS

            table.create_index("text", config=FTS(base_tokenizer="icu"))

    def _has_full_text_index(self) -> bool:
        return self._full_text_index_name() is not None

    def _full_text_index_name(self) -> str | None:
        """Listed once it exists (listing costs ~1 ms a recall; an index is never dropped but with its table)."""
        if self._full_text_index is None:
            self._full_text_index = next((index.name for index in self.table(CARD_META).list_indices()
                                          if index.index_type == "FTS"), None)
        return self._full_text_index

    def active_vectors(self) -> tuple[list[str], "np.ndarray"]:
        """Ids and the vector matrix of every HOT/WARM card (COLD cards have no row here).

        Read batch by batch into one preallocated array: a whole-table read followed by ``_matrix`` held the
        vectors twice (+430 MB at 100k cards, most of it kept by the allocators afterwards).
        """
        try:
            table = self.table(CARD_VECTORS)
            return read_matrix(table.search().select(["id", "vector"]).limit(None).to_batches(), table.count_rows(),
                               self.dimension)
        except (OSError, RuntimeError, ValueError) as error:  # what LanceDB raises for a torn or missing file
            log.error("reading %s failed: %s", CARD_VECTORS, error)
            raise AlayaError("store_damaged", f"LanceDB table {CARD_VECTORS} is damaged ({str(error)[:200]}): "
                                              "run alaya rebuild --l1", RUNTIME) from None

    def _scan(self, name: str, columns: list[str]):
        """Some columns of every row of a table, in table order (``to_arrow`` reads every column)."""
        return self.table(name).search().select(columns).limit(None).to_arrow()

    def _matrix(self, table) -> "np.ndarray":
        """The ``vector`` column as one float32 ``(rows, dimension)`` array, without a Python loop."""
        import numpy as np

        if not table.num_rows:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return float_rows(table.column("vector").combine_chunks(), self.dimension)

    def write_stats(self) -> None:
        """Row counts for ``alaya status``; filtered counts, because reading the tier column took 0.8 s at 100k."""
        heat = self.table(CARD_HEAT)
        atomic_write_json(self.folder / STATS_FILE, {
            "cards": self.table(CARD_VECTORS).count_rows(),
            "by_tier": {tier: heat.count_rows(f"tier = '{tier}'") for tier in TIERS},
            "relations": self.table(RELATIONS).count_rows(),
            "cold_vectors": self.table(COLD_VECTORS).count_rows(),
        })


def read_matrix(batches, rows: int, dimension: int) -> tuple[list[str], "np.ndarray"]:
    """Ids and vectors of ``batches`` (``id``, ``vector``) in one array allocated for ``rows``, the count taken
    just before the scan. A commit between the count and the scan (recall reloads outside the step lock while
    an ingest writes) can make the scan longer: the array then grows by what is missing, once."""
    import numpy as np

    matrix = np.empty((rows, dimension), dtype=np.float32)
    ids: list[str] = []
    for batch in batches:
        end = len(ids) + batch.num_rows
        if end > len(matrix):
            matrix = np.concatenate([matrix[:len(ids)], np.empty((end - len(ids), dimension), np.float32)])
        matrix[len(ids):end] = float_rows(batch.column("vector"), dimension)
        ids.extend(batch.column("id").to_pylist())
    return ids, matrix[:len(ids)]


def read_codes(batches, rows: int, dimension: int, codes_of=None) -> tuple[list[str], "np.ndarray", "np.ndarray"]:
    """:func:`read_matrix` for int8 codes: ids, codes and scales in arrays allocated once for ``rows``.
    ``codes_of(batch)`` gives a batch's (codes, scales); by default its ``vector`` column quantised as it is read
    (:func:`quantise_rows`), so the float matrix is never held whole."""
    import numpy as np

    codes_of = codes_of or (lambda batch: quantise_rows(float_rows(batch.column("vector"), dimension)))
    codes, scales = np.empty((rows, dimension), np.int8), np.empty(rows, np.float32)
    ids: list[str] = []
    for batch in batches:
        end = len(ids) + batch.num_rows
        if end > len(codes):  # a commit between the count and the scan
            codes = np.concatenate([codes[:len(ids)], np.empty((end - len(ids), dimension), np.int8)])
            scales = np.concatenate([scales[:len(ids)], np.empty(end - len(ids), np.float32)])
        codes[len(ids):end], scales[len(ids):end] = codes_of(batch)
        ids.extend(batch.column("id").to_pylist())
    return ids, codes[:len(ids)], scales[:len(ids)]


def unusable_rows(batches, dimension: int) -> list[str]:
    """Ids of the rows of ``batches`` (``id``, ``vector``) whose vector is not finite or all zero (read batch by
    batch, so verify never holds every vector at once). ``dimension``: the stored width, which verify also checks
    against the store's."""
    bad: list[str] = []
    for batch in batches:
        ids = batch.column("id").to_pylist()
        bad.extend(ids[row] for row in unusable_mask(float_rows(batch.column("vector"), dimension)).nonzero()[0])
    return bad


def unusable_mask(matrix: "np.ndarray") -> "np.ndarray":
    import numpy as np

    return ~np.isfinite(matrix).all(axis=1) | ~matrix.any(axis=1)


def float_rows(vectors, dimension: int, dtype: Any = None) -> "np.ndarray":
    """A fixed-size-list array of vectors as a ``(rows, dimension)`` array (float32 unless ``dtype`` says),
    without a Python loop."""
    import numpy as np

    flat = vectors.flatten().to_numpy(zero_copy_only=False)
    return flat.reshape(len(vectors), dimension).astype(dtype or np.float32, copy=False)


def quantise_rows(matrix: "np.ndarray") -> tuple["np.ndarray", "np.ndarray"]:
    """Each row as int8 codes and one scale (its largest magnitude / 127): a unit vector's cosine with a query
    moves by ~1e-3 (docs/architecture.md)."""
    import numpy as np

    scales = (np.maximum(np.abs(matrix).max(axis=1), 1e-12) / 127.0).astype(np.float32)
    return np.rint(matrix / scales[:, None]).astype(np.int8), scales


def merge_in_slices(table, on: str, rows: "pa.Table", update: bool = True, insert: bool = False) -> None:
    """Merge ``rows`` into ``table`` on ``on`` (``update``: the matching rows take their values; ``insert``: the others
    are added), in slices of at most :data:`MERGE_BYTES`. Each slice is copied out (``take``): a zero-copy slice
    keeps the whole table's buffers, and LanceDB counts a batch by its buffers. A slice's merge is whole or not at
    all; callers write what a retry repeats harmlessly (the same values by id)."""
    import pyarrow as pa

    slice_rows = max(1, MERGE_BYTES // (rows.nbytes // max(1, rows.num_rows) + MERGE_ROW_BYTES))
    for start in range(0, rows.num_rows, slice_rows):
        end = min(start + slice_rows, rows.num_rows)
        piece = rows if end - start == rows.num_rows else rows.take(pa.array(range(start, end)))
        merge = table.merge_insert(on)
        merge = merge.when_matched_update_all() if update else merge
        (merge.when_not_matched_insert_all() if insert else merge).execute(piece)


def _id_predicate(card_ids: list[str]) -> str:
    return "id IN ({})".format(", ".join("'" + card_id.replace("'", "''") + "'" for card_id in card_ids))
