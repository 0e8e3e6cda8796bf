"""VectorStore: the L1 tables in LanceDB.

Layout chosen from measurements (LanceDB 0.40): vectors and counters live in
separate tables, so a counter update never rewrites a vector; COLD cards are
simply absent from ``card_vectors``; writes are batched (every ``add`` makes a
version and a fragment). ``import lancedb`` costs over 2 s, so this module is
imported only by commands that touch vectors; the row counts ``alaya status``
shows are kept in ``stats.json`` beside the tables, rewritten after every
write by the store's single writer.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic import atomic_write_json

if TYPE_CHECKING:
    import numpy as np

CARD_VECTORS = "card_vectors"
CARD_META = "card_meta"
RELATIONS = "relations"
TIERS = ("HOT", "WARM", "COLD")
STATS_FILE = "stats.json"


def _schemas(dimension: int) -> dict[str, Any]:
    import pyarrow as pa

    vector = pa.list_(pa.float32(), dimension)
    return {
        CARD_VECTORS: pa.schema([("id", pa.string()), ("vector", vector), ("tier", pa.string()), ("type", pa.string())]),
        CARD_META: pa.schema([
            ("id", pa.string()), ("card_id", pa.string()), ("content_hash", pa.string()),
            ("temperature", pa.float64()), ("tier", pa.string()), ("last_accessed", pa.int64()),
            ("access_count", pa.int64()), ("created_at", pa.int64()), ("title", pa.string()),
            ("tags", pa.list_(pa.string())), ("type", pa.string()),
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


class VectorStore:
    def __init__(self, folder: Path, dimension: int):
        import lancedb

        self.folder = folder
        self.dimension = dimension
        self._db = lancedb.connect(str(folder))

    def create_tables(self) -> None:
        for name, schema in _schemas(self.dimension).items():
            self._db.create_table(name, schema=schema, exist_ok=True)
        self.write_stats()

    def upsert_relations(self, names: list[str], vectors: "np.ndarray", is_core: bool, examples: list[list[str]]) -> None:
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
        table = self._db.open_table(RELATIONS)
        table.merge_insert("relation").when_matched_update_all().when_not_matched_insert_all().execute(batch)
        self.write_stats()

    def relation_names(self) -> list[str]:
        table = self._db.open_table(RELATIONS)
        return sorted(table.to_arrow().column("relation").to_pylist())

    def write_stats(self) -> None:
        meta = self._db.open_table(CARD_META)
        by_tier = dict.fromkeys(TIERS, 0)
        if meta.count_rows():
            for tier, count in meta.to_arrow().column("tier").value_counts().to_pylist():
                by_tier[tier] = count
        atomic_write_json(self.folder / STATS_FILE, {
            "cards": self._db.open_table(CARD_VECTORS).count_rows(),
            "by_tier": by_tier,
            "relations": self._db.open_table(RELATIONS).count_rows(),
        })
