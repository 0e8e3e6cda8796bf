"""A store made before ``card_heat`` (counters, temperature and tier in ``card_meta``) is moved on first use, once,
losing nothing; a move cut short between the new table and the dropped columns is finished by the next opener."""

from __future__ import annotations

import lancedb
import pyarrow as pa
import pytest

from alaya_engine.vectors.store import CARD_HEAT, CARD_META, HEAT_MOVED, VectorStore, _schemas

OLD_META = pa.schema([
    ("id", pa.string()), ("card_id", pa.string()), ("content_hash", pa.string()), ("temperature", pa.float64()),
    ("tier", pa.string()), ("last_accessed", pa.int64()), ("access_count", pa.int64()), ("created_at", pa.int64()),
    ("title", pa.string()), ("tags", pa.list_(pa.string())), ("type", pa.string()), ("text", pa.string()),
    ("relevance", pa.float64()),
])
"""``card_meta`` as stores made before 2026-12-07 wrote it."""


def _old_store(folder) -> None:
    db = lancedb.connect(str(folder))
    for name, schema in _schemas(8).items():
        if name not in (CARD_META, CARD_HEAT):
            db.create_table(name, schema=schema)
    db.create_table(CARD_META, data=pa.table({
        "id": ["a", "b"], "card_id": ["a", "b"], "content_hash": ["h1", "h2"], "temperature": [0.9, 0.05],
        "tier": ["HOT", "COLD"], "last_accessed": [10, 20], "access_count": [4, 0], "created_at": [1, 2],
        "title": ["quokka gateway", "wombat queue"], "tags": [[], ["t"]], "type": ["concept", "gotcha"],
        "text": ["quokka gateway drops retries", "wombat queue stalls"], "relevance": [0.5, 0.0]}, schema=OLD_META))


def test_an_old_store_keeps_every_counter_and_its_text_once_moved(tmp_path):
    _old_store(tmp_path)
    store = VectorStore(tmp_path, 8)
    assert {row["id"]: row for row in store.heat_rows()} == {
        "a": {"id": "a", "created_at": 1, "last_accessed": 10, "access_count": 4, "relevance": 0.5, "tier": "HOT",
              "temperature": 0.9, "type": "concept"},
        "b": {"id": "b", "created_at": 2, "last_accessed": 20, "access_count": 0, "relevance": 0.0, "tier": "COLD",
              "temperature": 0.05, "type": "gotcha"}}
    meta = store.table(CARD_META)
    assert not set(HEAT_MOVED) & set(meta.schema.names)
    assert meta.to_arrow().column("text").to_pylist() == ["quokka gateway drops retries", "wombat queue stalls"]
    assert store.meta_index() == {"a": ("h1", "HOT"), "b": ("h2", "COLD")}
    store.refresh_full_text_index()
    assert store.full_text_search("quokka", 5) == ["a"]
    again = VectorStore(tmp_path, 8)
    assert again.heat_rows() == store.heat_rows() and again.table(CARD_HEAT).count_rows() == 2


def test_a_move_cut_short_before_the_columns_were_dropped_is_finished_by_the_next_opener(tmp_path):
    _old_store(tmp_path)
    db = lancedb.connect(str(tmp_path))
    schema = _schemas(8)[CARD_HEAT]
    db.create_table(CARD_HEAT, data=db.open_table(CARD_META).to_arrow().select(schema.names).cast(schema))
    store = VectorStore(tmp_path, 8)
    assert [row["access_count"] for row in store.heat_rows()] == [4, 0]
    assert not set(HEAT_MOVED) & set(store.table(CARD_META).schema.names)
    assert store.table(CARD_HEAT).count_rows() == 2


def test_columns_another_process_dropped_first_are_no_error_and_a_failed_drop_is(tmp_path, monkeypatch):
    """Two openers of one old store (an agent's command and the explorer) may both find it unmoved: the second
    drop of the columns meets LanceDB's commit conflict, which is no error once the columns are gone."""
    _old_store(tmp_path)
    table_class = type(lancedb.connect(str(tmp_path)).open_table(CARD_META))
    drop = table_class.drop_columns

    def dropped_by_another_first(table, columns):
        drop(table, columns)
        raise RuntimeError("lance error: Retryable commit conflict for version 3")

    monkeypatch.setattr(table_class, "drop_columns", dropped_by_another_first)
    assert [row["id"] for row in VectorStore(tmp_path, 8).heat_rows()] == ["a", "b"]

    other = tmp_path / "other"
    _old_store(other)
    monkeypatch.setattr(table_class, "drop_columns", lambda table, columns: (_ for _ in ()).throw(
        RuntimeError("lance error: disk full")))
    with pytest.raises(RuntimeError, match="disk full"):
        VectorStore(other, 8).heat_rows()
