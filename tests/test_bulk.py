"""bulk_load: a fresh store loaded in a few big writes reads back like one the pipeline wrote."""

from __future__ import annotations

import numpy as np
import pytest

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Card, Link
from alaya_engine.foundations.entities import Mention, Reading
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.graph.store import from_millis
from alaya_engine.maintenance.bulk import bulk_load
from alaya_engine.vectors.store import read_stats

TYPES = ("concept", "pattern", "gotcha", "decision")
START = 1772409600000
SPECIAL = "Zanzibar quokka gateway restart drops webhook retries"


def _dataset(count: int = 500):
    rng = np.random.default_rng(3)
    sessions = [{"id": f"s-{index:03d}", "timestamp": START + index * 60_000, "channel": "cli", "agent": "main",
                 "summary": f"session {index}", "turns": 4, "tokens": 100, "content_hash": f"h{index}",
                 "path": f"raw/sessions/2026-03/session-s-{index:03d}.json"} for index in range(count // 5)]
    cards = []
    for index in range(count):
        tier = "COLD" if index % 50 == 49 else ("HOT" if index % 2 else "WARM")
        cards.append(Card(id=f"card-{index:04d}", title=f"Card number {index} about topic {index % 17}",
                          content=f"Body of card {index}: restart the worker, check limits, topic {index % 17}.",
                          type=TYPES[index % 4], tags=[f"t{index % 3}"], importance=0.5,
                          source_sessions=[sessions[index // 5]["id"]], created_at=START + index * 1000,
                          updated_at=START + index * 1000 + 5, tier=tier, temperature=0.9 if tier == "HOT" else 0.4))
    special = count // 4
    cards[special] = Card(id="card-special", title=SPECIAL, content="The gateway restart lost webhook retries; "
                      "set plugins.allow before restarting.", type="gotcha", tags=["gateway"], importance=0.9,
                      source_sessions=[sessions[special // 5]["id"]], created_at=START, updated_at=START)
    links = [Link(card.id, card.source_sessions[0], "EXTRACTED_FROM", created_at=START) for card in cards]
    for index in range(count - 1):
        links.append(Link(cards[index].id, cards[index + 1].id, "TEMPORAL_NEXT", 1.0, "", START))
    for index in range(0, count - 3, 3):
        links.append(Link(cards[index].id, cards[index + 3].id, "CAUSED_BY", 0.8, "because", START))
    for index in range(0, count - 7, 7):
        links.append(Link(cards[index].id, cards[index + 7].id, "DEPENDS_ON", 0.7, "needs", START))
    for index in range(0, count - 10, 10):
        links.append(Link(cards[index].id, cards[index + 10].id, "SIMILAR_TO", 0.9, "alike", START))
        links.append(Link(cards[index + 10].id, cards[index].id, "SIMILAR_TO", 0.9, "alike", START))
    for index in range(0, count - 11, 11):
        links.append(Link(cards[index].id, cards[index + 11].id, "LED_TO", 0.6, "one thing led to another", START))
    vectors = rng.normal(size=(count, 512)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    return sessions, cards, links, vectors


def _expected_links(links):
    expected: dict[str, int] = {}
    for link in links:
        expected[link.relation] = expected.get(link.relation, 0) + 1
    return expected


def test_bulk_load_reads_back_like_the_pipeline_wrote_it(home):
    sessions, cards, links, vectors = _dataset()
    engine = Engine.open(home)
    special = next(index for index, card in enumerate(cards) if card.id == "card-special")
    vectors[special] = engine.embedder().embed([cards[special].embedding_text()])[0]
    timings: dict[str, float] = {}
    bulk_load(engine, cards, links, vectors, sessions=sessions, access={"card-0001": (7, START + 99)},
              timings=timings)
    assert {"graph cards", "graph links", "vectors", "full-text index"} <= set(timings)

    with engine.step() as graph:
        counts = graph.counts()
        stored = graph.cards(["card-0001", "card-special"])
        session = graph.sessions(["s-000"])
    assert counts["cards"] == len(cards)
    assert counts["cards_by_type"] == {kind: sum(card.type == kind for card in cards) for kind in TYPES}
    assert counts["sessions"] == len(sessions)
    links_by_relation = {name: count for name, count in counts["links_by_relation"].items() if count}
    assert links_by_relation == _expected_links(links)
    assert stored["card-0001"]["created_at"] == from_millis(cards[1].created_at)
    assert stored["card-0001"]["tags"] == ["t1"] and stored["card-0001"]["source_sessions"] == ["s-000"]
    assert stored["card-special"]["title"] == SPECIAL
    assert session[0]["timestamp"] == "2026-03-02T00:00:00Z"

    cold = sum(card.tier == "COLD" for card in cards)
    stats = read_stats(engine.layout.vectors_dir)
    assert stats["cards"] == len(cards) - cold
    assert stats["by_tier"] == {tier: sum(card.tier == tier for card in cards) for tier in ("HOT", "WARM", "COLD")}
    store = engine.vectors()
    ids, matrix = store.active_vectors()
    assert len(ids) == len(cards) - cold and "card-0049" not in ids
    assert np.allclose(matrix[ids.index("card-0002")], vectors[2])
    meta = store._db.open_table("card_meta").to_arrow().to_pylist()
    assert next(item for item in meta if item["id"] == "card-0001")["text"] == cards[1].search_text()
    heat = store.heat_row("card-0001")
    assert (heat["access_count"], heat["last_accessed"]) == (7, START + 99)
    assert "LED_TO" in store.relation_names()

    assert store.full_text_search("quokka", 5)[0] == "card-special"
    result = engine.recall({"text": "quokka gateway restart drops webhook retries"})
    assert result.nodes[0].card_id == "card-special"
    structured = engine.recall({"concepts": [SPECIAL], "relations": ["LED_TO", "CAUSED_BY"], "depth": 2})
    assert structured.nodes[0].card_id == "card-special"


def test_bulk_load_reads_entities_with_the_reader_given(home):
    sessions, cards, links, vectors = _dataset(50)
    engine = Engine.open(home)
    bulk_load(engine, cards, links, vectors, sessions=sessions,
              reader=lambda card: Reading((Mention(f"host-{card.id[-1]}", "host"),)))
    with engine.step() as graph:
        entities = graph.query("MATCH (e:Entity) RETURN e.name, e.kind ORDER BY e.name")
        mentions = graph.query("MATCH (:Card)-[m:MENTIONS]->(:Entity) RETURN count(m)")[0][0]
    assert entities == [[name, "host"] for name in sorted({f"host-{card.id[-1]}" for card in cards})]
    assert mentions == len(cards)


def test_bulk_load_refuses_a_store_with_cards_and_bad_links(home):
    sessions, cards, links, vectors = _dataset(50)
    engine = Engine.open(home)
    with pytest.raises(AlayaError) as error:
        bulk_load(engine, cards, links + [Link("card-0001", "card-nope", "CAUSES")], vectors, sessions=sessions)
    assert error.value.code == "bad_link"
    with pytest.raises(AlayaError) as error:
        bulk_load(engine, cards, links, vectors[:10], sessions=sessions)
    assert error.value.code == "bad_vectors"
    with engine.step() as graph:
        assert graph.counts()["cards"] == 0 and graph.counts()["sessions"] == 0

    bulk_load(engine, cards, links, vectors, sessions=sessions)
    with pytest.raises(AlayaError) as error:
        bulk_load(engine, cards[:1], [], vectors[:1])
    assert error.value.code == "store_not_empty"


def test_status_figures_match_a_constructed_store(home, cli):
    """Seed 4.9 on a store whose contents are known: types, relations, tiers, resident bytes, temperature bands."""
    sessions, cards, links, vectors = _dataset(200)
    bulk_load(Engine.open(home), cards, links, vectors, sessions=sessions)
    document = cli("status", "--json").json()
    by_type = {card_type: sum(1 for card in cards if card.type == card_type) for card_type in TYPES}
    assert document["l2"]["cards"] == 200 and document["l2"]["cards_by_type"] == by_type
    assert {k: v for k, v in document["l2"]["links_by_relation"].items() if v} == _expected_links(links)
    tiers = {tier: sum(1 for card in cards if card.tier == tier) for tier in ("HOT", "WARM", "COLD")}
    assert document["l1"]["by_tier"] == tiers and document["l1"]["cards"] == tiers["HOT"] + tiers["WARM"]
    assert document["l1"]["resident_bytes"] == {"HOT": tiers["HOT"] * 512 * 4, "WARM": tiers["WARM"] * 512 * 4}
    bands = {band["range"]: band["count"] for band in document["temperature"]}
    assert bands == {"0.9-1.0": sum(1 for c in cards if c.temperature >= 0.9), "0.7-0.9": 0, "0.5-0.7": 0,
                     "0.3-0.5": sum(1 for c in cards if 0.3 <= c.temperature < 0.5), "0.0-0.3": 0}
    assert sum(band["share"] for band in document["temperature"]) == pytest.approx(1.0, abs=1e-3)
    human = cli("status").stdout
    assert "Temperature Distribution" in human and "0.9-1.0: █" in human and "(vectors kept as 8-bit codes: " in human
