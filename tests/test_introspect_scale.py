"""Introspect's fast paths give what the straightforward code gave (issue #6: same results at 100k cards)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from alaya_engine.engine import Engine
from alaya_engine.foundations.config import validate_config
from alaya_engine.foundations.domain import Card, Link, millis_now
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.graph.store import GraphStore
from alaya_engine.introspect.consolidate import MAX_PAIRS_PER_CARD, LinkedPairs, _groups, _pairs_within
from alaya_engine.introspect.suggestions import Suggestion, _document
from alaya_engine.introspect.temperature import DAY_MS


def pairs_one_card_at_a_time(ids, matrix, floor):
    """The loop ``_pairs_within`` replaced: per card, later partners at or above ``floor``, best first."""
    pairs = []
    for start in range(0, len(ids), 2048):
        scores = matrix[start:start + 2048] @ matrix.T
        for offset, row in enumerate(scores):
            me = start + offset
            candidates = [j for j in np.nonzero(row >= floor)[0] if j > me]
            for j in sorted(candidates, key=lambda k: -row[k])[:MAX_PAIRS_PER_CARD]:
                pairs.append((float(row[j]), ids[me], ids[j]))
    return pairs


def groups_by_add_at(matrix, rounds=5):
    """The k-means ``_groups`` replaced, summing each group with ``np.add.at``."""
    count = int(np.sqrt(len(matrix)))
    centroids = matrix[np.random.default_rng(0).choice(len(matrix), count, replace=False)]
    for _ in range(rounds):
        assignment = np.argmax(matrix @ centroids.T, axis=1)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assignment, matrix)
        norms = np.linalg.norm(sums, axis=1, keepdims=True)
        centroids = np.where(norms > 0, sums / np.maximum(norms, 1e-12), centroids)
    return [members for members in (np.nonzero(assignment == group)[0] for group in range(count)) if len(members)]


@pytest.fixture(scope="module")
def clustered():
    """3000 unit vectors around 40 centres, some exact duplicates (ties), float32 like L1."""
    rng = np.random.default_rng(7)
    centres = rng.normal(size=(40, 64))
    matrix = centres[rng.integers(0, 40, 3000)] + rng.normal(scale=0.35, size=(3000, 64))
    matrix[100:110] = matrix[90:100]
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    return [f"c{index}" for index in range(3000)], matrix.astype(np.float32)


def test_pairs_are_those_of_the_per_card_loop(clustered):
    ids, matrix = clustered
    pairs = _pairs_within(ids, matrix, 0.7, np.full(len(ids), -1))
    assert len(pairs) > 1000
    assert pairs == pairs_one_card_at_a_time(ids, matrix, 0.7)


def test_groups_are_those_of_add_at_to_the_bit(clustered):
    _, matrix = clustered
    ours, reference = _groups(matrix), groups_by_add_at(matrix)
    assert [members.tolist() for members in ours] == [members.tolist() for members in reference]


def test_the_queue_file_is_what_json_dumps_with_indent_2_writes():
    items = {f"sug-{n}": Suggestion(f"sug-{n}", "merge_relations", ["修复_BY", 'QUOTE"D'],
                                    {"similarity": 0.93, "uses": {"A": 1}, "examples": ["a → b", "line\nbreak"]},
                                    "pending", 1, 2) for n in range(3)}
    expected = json.dumps({key: item.to_json() for key, item in items.items()}, ensure_ascii=False, indent=2) + "\n"
    assert _document(items) == expected
    assert _document({}) == json.dumps({}, indent=2) + "\n"


def small_store(home, cards: int = 6) -> Engine:
    engine = Engine.open(home)
    made = [Card(id=f"k{n}", title=f"card {n}", content=f"content about topic {n}", type="concept", tags=[],
                 importance=0.5, source_sessions=[], created_at=millis_now() - n * 40 * DAY_MS, updated_at=0)
            for n in range(cards)]
    with engine.step() as graph:
        for card in made:
            graph.upsert_card(card)
        graph.merge_link(Link("k1", "k0", "CAUSED_BY", 1.0, "", 0))
    engine.vectors().upsert_cards(made, np.eye(cards, 512, dtype=np.float32))
    engine.vectors().refresh_full_text_index()
    return engine


def test_linked_pairs_know_edges_either_way_among_the_given_cards(home):
    engine = small_store(home)
    with engine.step() as graph:
        linked = LinkedPairs(graph, ["k0", "k1", "k2", "k0"])
    assert ("k0", "k1") in linked and ("k1", "k0") in linked
    assert ("k0", "k2") not in linked and ("k0", "gone") not in linked


def test_cooldown_rewrites_only_changed_heat_and_never_the_searched_text(home):
    """Cool-down writes ``card_heat`` alone (``card_meta``'s rows, their text and its full-text index, stay as they
    were), and a run that changes nothing rewrites nothing."""
    engine = small_store(home)
    meta = engine.vectors()._db.open_table("card_meta")
    later = millis_now() + 400 * DAY_MS
    report = engine.introspect(["cooldown"], now=later)["steps"]["cooldown"]
    assert report["by_tier"]["COLD"] == 6 and {row["tier"] for row in engine.vectors().heat_rows()} == {"COLD"}
    assert engine.vectors()._db.open_table("card_meta").version == meta.version
    assert meta.index_stats("text_idx").num_unindexed_rows == 0
    assert meta.index_stats("id_idx").num_unindexed_rows == 0, "merges on id find their rows through an index"
    heat = engine.vectors()._db.open_table("card_heat").version
    report = engine.introspect(["cooldown"], now=later)["steps"]["cooldown"]
    assert report["cards"] == 6 and report["by_tier"]["COLD"] == 6
    assert engine.vectors()._db.open_table("card_heat").version == heat


def test_the_graph_buffer_pool_is_configured_and_a_full_one_names_the_key(home, tmp_path):
    assert validate_config({"graph": {"buffer_pool_mb": 256}})["graph"]["buffer_pool_mb"] == 256
    for bad in (32, 512.5, "1g"):
        with pytest.raises(AlayaError) as caught:
            validate_config({"graph": {"buffer_pool_mb": bad}})
        assert caught.value.code == "config_invalid" and "graph.buffer_pool_mb" in caught.value.message
    engine = Engine.open(home)
    with engine.hold() as graph:
        assert graph.buffer_pool_mb == 1024
    with GraphStore(tmp_path / "tiny.db", engine.manifest["graph_engine"], buffer_pool_mb=8) as tiny:
        with pytest.raises(AlayaError) as caught:
            tiny.query_arrow("UNWIND range(1, 3000000) AS x RETURN x, to_string(x) AS s")
    assert caught.value.code == "graph_memory_full" and "graph.buffer_pool_mb" in caught.value.message


def test_a_process_after_one_killed_before_its_index_refresh_uses_the_index_alone(home, monkeypatch):
    """Rows written and never taken into the full-text index (a job killed before its refresh) left every later
    process scanning them (25 s a recall at a million cards): past ``UNINDEXED_SEARCHABLE_ROWS`` the index's own
    count makes searches use the index alone until a refresh."""
    from alaya_engine.vectors import store as vector_store

    engine = small_store(home)
    monkeypatch.setattr(vector_store, "UNINDEXED_SEARCHABLE_ROWS", 1)
    killed = Engine.open(home).vectors()  # writes two cards, then never refreshes the index
    new = [Card(id=f"n{n}", title=f"card n{n}", content="content about topic n", type="concept", tags=[],
                importance=0.5, source_sessions=[], created_at=millis_now(), updated_at=0) for n in range(2)]
    killed.upsert_cards(new, np.eye(2, 512, k=10, dtype=np.float32))
    later = Engine.open(home).vectors()
    assert set(later.full_text_search("content topic", 10)) == {f"k{n}" for n in range(6)}
    later.refresh_full_text_index()
    assert set(later.full_text_search("content topic", 10)) == {f"k{n}" for n in range(6)} | {"n0", "n1"}
    assert set(engine.vectors().full_text_search("content topic", 10)) == set(
        later.full_text_search("content topic", 10))


def test_each_introspect_step_of_a_lone_run_gets_the_graph_opened_afresh(home, monkeypatch):
    """The graph database keeps every page a query read until it closes: a run that holds the store alone reopens
    it after each step (the lock kept), so one step's pages are not the next one's memory; where the store is
    held by others too (the owner server), the graph stays open."""
    engine = small_store(home)
    opened = []
    open_graph = Engine._open_graph
    monkeypatch.setattr(Engine, "_open_graph", lambda self: opened.append(1) or open_graph(self))
    engine.introspect(["consolidate", "supersede", "cooldown"])
    assert len(opened) == 4, "the run's hold, then once after each of its three steps"
    with engine.hold() as graph:
        opened.clear()
        engine.introspect(["consolidate", "supersede", "cooldown"])
        assert opened == [] and graph.query("MATCH (c:Card) RETURN count(c)")[0][0] == 6
