"""Reads of L1 that stay cheap while other handles write: a table's version is asked of LanceDB only when its
``_versions`` folder may have changed, yet a commit by another handle (another process, in production) is always
seen; a heat rewrite leaves the searched text alone."""

from __future__ import annotations

import os

import numpy as np

from alaya_engine.vectors.store import RELATIONS, VectorStore
from alaya_engine.vectors.versions import SETTLE_NS


def _store(folder) -> VectorStore:
    store = VectorStore(folder, 8)
    store.create_tables()
    return store


def _commit(store: VectorStore, name: str) -> None:
    store.upsert_relations([name], np.ones((1, 8), np.float32), is_core=False, examples=[[]])


def _counted(store: VectorStore) -> list[int]:
    """Count the questions put to LanceDB by ``store.version``."""
    asked = []
    real = store._versions.version
    store._versions.version = lambda name, ask: real(name, lambda: asked.append(name) or ask())
    return asked


def _versions_folder(store: VectorStore):
    return store.folder / f"{RELATIONS}.lance" / "_versions"


def test_a_settled_unchanged_table_is_not_asked_again(tmp_path):
    store = _store(tmp_path)
    _commit(store, "A_TO_B")
    folder = _versions_folder(store)
    settled = os.stat(folder).st_mtime_ns - 2 * SETTLE_NS
    os.utime(folder, ns=(settled, settled))
    asked = _counted(store)
    first = store.version(RELATIONS)
    assert store.version(RELATIONS) == first == store.table(RELATIONS).version
    assert asked == [RELATIONS]


def test_a_commit_by_another_handle_is_seen(tmp_path):
    store = _store(tmp_path)
    folder = _versions_folder(store)
    settled = os.stat(folder).st_mtime_ns - 2 * SETTLE_NS
    os.utime(folder, ns=(settled, settled))
    before = store.version(RELATIONS)
    _commit(VectorStore(tmp_path, 8), "WRITTEN_ELSEWHERE")
    assert store.version(RELATIONS) > before
    assert "WRITTEN_ELSEWHERE" in store.relation_vectors()[0]


def test_a_commit_in_the_same_clock_tick_is_seen(tmp_path):
    """The folder's mtime may not move for a commit in the tick of the previous one: a version checked that soon
    after the folder changed is asked again, so the commit is not missed."""
    store = _store(tmp_path)
    folder = _versions_folder(store)
    before = store.version(RELATIONS)
    unchanged = os.stat(folder)
    _commit(VectorStore(tmp_path, 8), "SAME_TICK")
    os.utime(folder, ns=(unchanged.st_atime_ns, unchanged.st_mtime_ns))
    assert store.version(RELATIONS) > before


def test_a_heat_rewrite_leaves_the_searched_text_and_its_index_alone(tmp_path):
    """LanceDB rewrites a whole row to update one column, and a rewritten row drops out of the full-text index:
    heat lives in ``card_heat``, so the nightly cool-down's rewrite of most cards leaves ``card_meta`` as it was."""
    from alaya_engine.foundations.domain import Card
    from alaya_engine.vectors.store import CARD_HEAT, CARD_META

    store = _store(tmp_path)
    cards = [Card(id=f"c{n}", title=f"quokka {n}", content="text", type="concept", tags=[], importance=0.5,
                  source_sessions=["s"], created_at=1, updated_at=1) for n in range(3)]
    store.upsert_cards(cards, np.eye(3, 8, dtype=np.float32))
    store.refresh_full_text_index()
    meta, heat = store.version(CARD_META), store.version(CARD_HEAT)
    store.update_heat_columns({"id": ["c0", "c1"], "last_accessed": [7, 7], "access_count": [2, 3],
                               "relevance": [0.5, 0.5], "temperature": [0.1, 0.2], "tier": ["COLD", "WARM"]})
    assert store.version(CARD_META) == meta and store.version(CARD_HEAT) > heat
    assert store.table(CARD_META).index_stats("text_idx").num_unindexed_rows == 0
    assert sorted(store.full_text_search("quokka", 5)) == ["c0", "c1", "c2"]
    assert {row["id"]: (row["access_count"], row["tier"]) for row in store.heat_rows()} == {
        "c0": (2, "COLD"), "c1": (3, "WARM"), "c2": (0, "HOT")}


def test_lancedb_is_imported_without_leaving_the_stand_in_for_overrides():
    """``import_lancedb`` lends lancedb a do-nothing ``overrides`` on 3.11; another import of ``overrides`` afterwards
    must get the real package, and lancedb must work."""
    import subprocess
    import sys

    script = ("from alaya_engine.vectors.lancedb_import import import_lancedb; import sys, tempfile\n"
              "lancedb = import_lancedb(); assert 'overrides' not in sys.modules or sys.version_info >= (3, 12)\n"
              "import overrides; assert hasattr(overrides, 'EnforceOverrides') and overrides.__file__\n"
              "db = lancedb.connect(tempfile.mkdtemp()); db.create_table('t', data=[{'a': 1}])\n"
              "print(db.open_table('t').count_rows())\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "1"


def test_new_cards_are_appended_and_cards_written_again_keep_their_counters(tmp_path):
    """New ids are appended (no merge on ``id``); a batch naming a stored card merges it: its vector and text are
    replaced, its access counters kept, and nothing is doubled."""
    from alaya_engine.foundations.domain import Card
    from alaya_engine.vectors.store import CARD_META, CARD_VECTORS

    def card(identifier: str, title: str) -> Card:
        return Card(id=identifier, title=title, content="text", type="concept", tags=[], importance=0.5,
                    source_sessions=["s"], created_at=1, updated_at=1)

    store = _store(tmp_path)
    first = [card(f"c{n}", f"card {n}") for n in range(3)]
    store.upsert_cards(first, np.eye(3, 8, dtype=np.float32))
    store.update_heat_columns({"id": ["c0"], "last_accessed": [7], "access_count": [5], "relevance": [0.5],
                            "temperature": [0.9], "tier": ["HOT"]})
    again = [card("c0", "card zero, renamed"), card("c3", "card 3")]
    store.upsert_cards(again, np.full((2, 8), 0.5, np.float32))
    meta = {row["id"]: row for row in store.table(CARD_META).to_arrow().to_pylist()}
    vectors = {row["id"]: row["vector"] for row in store.table(CARD_VECTORS).to_arrow().to_pylist()}
    heat = {row["id"]: row for row in store.heat_rows()}
    assert sorted(meta) == sorted(vectors) == sorted(heat) == ["c0", "c1", "c2", "c3"]
    assert store.table(CARD_META).count_rows() == store.table(CARD_VECTORS).count_rows() == 4
    assert meta["c0"]["title"] == "card zero, renamed" and heat["c0"]["access_count"] == 5
    assert vectors["c0"] == [0.5] * 8 and vectors["c1"][1] == 1.0
