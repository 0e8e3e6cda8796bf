"""Consolidate: each suggestion kind from a constructed case, and what approving it does."""

from __future__ import annotations

import numpy as np
import pytest

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Card, Link
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.introspect import apply
from alaya_engine.raw.journal import Journal

DIM = 512


def unit(*weights: tuple[int, float]) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    for index, weight in weights:
        vector[index] = weight
    return vector / np.linalg.norm(vector)


def card(card_id: str, importance: float = 0.5, content: str | None = None) -> Card:
    return Card(id=card_id, title=f"title {card_id}", content=content or f"content {card_id}", type="gotcha",
                tags=[card_id.lower()], importance=importance, source_sessions=[], created_at=0, updated_at=0)


@pytest.fixture
def store(home):
    """A≈B (0.97: duplicates), C~D (0.8, no edge: SIMILAR_TO), E~F (0.8, already linked), X links to B;
    INSPIRED_BY≈INFLUENCED_BY (0.95), RELATES_TO (vague), LED_TO used 101 times."""
    engine = Engine.open(home)
    cards = [card("A", 0.9, "the longer, better content of A"), card("B", 0.4), card("C"), card("D"), card("E"),
             card("F"), card("X")]
    vectors = [unit((0, 1.0)), unit((0, 1.0), (1, 0.25)), unit((2, 1.0)), unit((2, 1.0), (3, 0.75)),
               unit((4, 1.0)), unit((4, 1.0), (5, 0.75)), unit((9, 1.0))]
    with engine.step() as graph:
        for item in cards:
            graph.upsert_card(item)
        for source, relation, target in (("E", "SIMILAR_TO", "F"), ("X", "DEPENDS_ON", "B"), ("B", "CAUSED_BY", "C"),
                                         ("X", "INSPIRED_BY", "C"), ("E", "INFLUENCED_BY", "F"),
                                         ("X", "RELATES_TO", "A")):
            graph.merge_link(Link(source, target, relation, 1.0, "test", 0))
        for _ in range(101):
            graph.query("MATCH (a:Card {id: 'C'}), (b:Card {id: 'X'}) CREATE (a)-[:CUSTOM {type: 'LED_TO'}]->(b)")
    engine.vectors().upsert_cards(cards, np.vstack(vectors))
    inspired = unit((100, 1.0))
    engine.vectors().upsert_relations(["INSPIRED_BY", "INFLUENCED_BY", "RELATES_TO", "LED_TO"],
                                      np.vstack([inspired, unit((100, 1.0), (101, 0.3)), unit((102, 1.0)),
                                                 unit((103, 1.0))]), is_core=False, examples=[[], [], [], []])
    return engine


def suggestions(engine: Engine) -> dict[str, dict]:
    return {tuple(s["subjects"]) if len(s["subjects"]) > 1 else s["subjects"][0]: s
            for s in engine.review_list()["suggestions"]}


def test_each_kind_is_proposed_once(store):
    report = store.introspect(["consolidate"])["steps"]["consolidate"]
    found = suggestions(store)
    assert found[("A", "B")]["kind"] == "merge_cards" and found[("A", "B")]["evidence"]["similarity"] > 0.95
    assert found[("C", "D")]["kind"] == "similar_to"
    assert ("E", "F") not in found, "already linked"
    merge = [s for s in found.values() if s["kind"] == "merge_relations"]
    assert [sorted(s["subjects"]) for s in merge] == [["INFLUENCED_BY", "INSPIRED_BY"]]
    assert found["LED_TO"]["kind"] == "promote_relation" and found["LED_TO"]["evidence"]["uses"] == 101
    assert found["RELATES_TO"]["kind"] == "split_relation"
    assert found["RELATES_TO"]["evidence"]["examples"] == ["title X → title A"]
    assert report["new"]["merge_cards"] == 1 and report["pending"] == len(found)
    again = store.introspect(["consolidate"])["steps"]["consolidate"]
    assert sum(again["new"].values()) == 0 and len(store.review_list()["suggestions"]) == len(found)


def test_dry_run_records_nothing(store):
    report = store.introspect(["consolidate"], dry_run=True)["steps"]["consolidate"]
    assert report["new"]["merge_cards"] == 1 and store.review_list()["count"] == 0


def test_approving_a_merge_repoints_edges_and_keeps_the_old_id_as_an_alias(store):
    store.introspect(["consolidate"])
    merge = suggestions(store)[("A", "B")]
    decided = store.review_decide([merge["id"]], approve=True)["decided"][0]
    assert decided["kept"] == "A" and decided["merged"] == "B"
    with store.step() as graph:
        assert "B" not in graph.cards(["A", "B"])
        assert graph.query("MATCH (:Card {id: 'X'})-[:DEPENDS_ON]->(c:Card) RETURN c.id") == [["A"]]
        assert graph.query("MATCH (:Card {id: 'A'})-[:CAUSED_BY]->(c:Card) RETURN c.id") == [["C"]]
        assert graph.cards(["A"])["A"]["tags"] == ["a", "b"]
    assert "B" not in store.vectors().vector_ids()
    assert store.card("B")["card"]["id"] == "A"
    assert store.trace("B").card["id"] == "A"
    navigated = store.recall({"from_nodes": ["B"], "relations": ["CAUSED_BY"], "depth": 1})
    assert [node.card_id for node in navigated.nodes] == ["C"]
    assert store.review_list("approved")["count"] == 1


def test_approving_similar_and_relation_merge_and_rejecting(store):
    store.introspect(["consolidate"])
    found = suggestions(store)
    store.review_decide([found[("C", "D")]["id"]], approve=True)
    relation_merge = next(s for s in found.values() if s["kind"] == "merge_relations")
    result = store.review_decide([relation_merge["id"]], approve=True)["decided"][0]
    keep, drop = relation_merge["subjects"]
    assert result["edges_renamed"] == 1
    with store.step() as graph:
        assert graph.query("MATCH (:Card {id: 'C'})-[:SIMILAR_TO]->(d:Card) RETURN d.id") == [["D"]]
        assert graph.query("MATCH (:Card {id: 'D'})-[:SIMILAR_TO]->(c:Card) RETURN c.id") == [["C"]]
        names = {row[0] for row in graph.query("MATCH ()-[r:CUSTOM]->() RETURN DISTINCT r.type")}
    assert keep in names and drop not in names
    store.review_decide([found["RELATES_TO"]["id"]], approve=False)
    store.introspect(["consolidate"])
    assert suggestions(store)["RELATES_TO"]["status"] == "rejected"


def test_promotion_is_approved_and_the_promoted_relation_is_then_left_alone(store, cli):
    with store.step() as graph:
        for _ in range(101):
            graph.query("MATCH (a:Card {id: 'X'}), (b:Card {id: 'A'}) CREATE (a)-[:CUSTOM {type: 'RELATES_TO'}]->(b)")
    store.introspect(["consolidate"])
    kinds = {(s["kind"], tuple(s["subjects"])) for s in store.review_list()["suggestions"]}
    assert ("split_relation", ("RELATES_TO",)) in kinds and ("promote_relation", ("RELATES_TO",)) not in kinds, \
        "a vague name is to be split, never promoted"
    promote = suggestions(store)["LED_TO"]
    result = cli("review", "approve", promote["id"], "--json")
    assert result.exit_code == 0 and result.json()["decided"][0]["edges_moved"] == 101
    with store.step() as graph:
        assert graph.promoted_relations() == {"LED_TO"}
        with pytest.raises(AlayaError) as refused:
            apply.merge_relations(keep="INSPIRED_BY", drop="LED_TO", graph=graph, journal=Journal(store.layout.journal),
                                  now=1)
    assert refused.value.code == "relation_promoted"
    assert not list(Journal(store.layout.journal).events("relation.merge"))
    again = store.introspect(["consolidate"])["steps"]["consolidate"]
    assert sum(again["new"].values()) == 0
    assert "promoted: own table" in cli("schema", "--relations").stdout


def test_cards_of_one_session_are_never_proposed(home):
    """Siblings (one session) at 0.8 are two points the distiller made, not a pair to review, and at 0.97 a
    duplicate the distiller should not have made; the same pair across two sessions is proposed."""
    engine = Engine.open(home)
    cards = [card(card_id) for card_id in ("S1", "S2", "T1", "T2", "D1", "D2")]
    for item, session in zip(cards, ("one", "one", "one", "two", "one", "one")):
        item.source_sessions = [session]
    vectors = [unit((0, 1.0)), unit((0, 1.0), (1, 0.75)), unit((2, 1.0)), unit((2, 1.0), (3, 0.75)),
               unit((4, 1.0)), unit((4, 1.0), (5, 0.25))]
    with engine.step() as graph:
        for item in cards:
            graph.upsert_card(item)
    engine.vectors().upsert_cards(cards, np.vstack(vectors))
    engine.introspect(["consolidate"])
    found = suggestions(engine)
    assert ("S1", "S2") not in found
    assert found[("T1", "T2")]["kind"] == "similar_to"
    assert ("D1", "D2") not in found and len(found) == 1
