"""verify finds each kind of disagreement between the layers; rebuild regenerates L2/L1 from L3 alone."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pyarrow as pa
import pytest
from conftest import cli_for, write_session

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Card, Link, millis_now
from alaya_engine.introspect import apply
from alaya_engine.raw.journal import Journal
from alaya_engine.vectors.store import CARD_META, CARD_VECTORS, COLD_VECTORS

QUERY = "gateway restart telegram"


def kinds(engine: Engine) -> set[str]:
    return {problem["kind"] for problem in engine.verify().to_json()["problems"]}


def some_card(engine: Engine, position: int) -> Card:
    """A different HOT or WARM card (its vector resident) for each kind of damage, so several can be combined."""
    with_vector = set(engine.vectors().vector_ids())
    with engine.step() as graph:
        cards = [card for card in graph.all_cards() if card.id in with_vector]
    return sorted(cards, key=lambda card: card.id)[position]


def graph_snapshot(engine: Engine) -> tuple[dict, set]:
    """Cards (the fields L3 decides) and edges, to compare a store with its rebuild."""
    with engine.step() as graph:
        cards = {c.id: (c.title, c.content, c.type, tuple(c.tags), tuple(c.source_sessions), c.source)
                 for c in graph.all_cards()}
        links = {(link.source, link.target, link.relation, round(link.weight, 4)) for link in graph.all_links()}
    return cards, links


def ranked(result: dict) -> dict[str, float]:
    """The five best units and their h. BM25's corpus statistics differ slightly between a full-text index
    folded row by row and one built afresh, which moves h's lexical share by up to ~0.01, enough to swap units
    near the tenth place."""
    return {node["card_id"]: node["h_distance"] for node in result["nodes"][:5]}


def same_ranking(after: dict, before: dict) -> bool:
    """The same units with the same h (within 0.02), in the same order but for near ties (two units within 0.02
    may swap: the demo's best card and best window are 0.002 apart), the last places included: a unit in one list
    only must be within 0.02 of the worst h kept (the tenth and the eleventh may swap too)."""
    common = set(after) & set(before)
    worst = max([*after.values(), *before.values()])
    if any(worst - {**before, **after}[key] > 0.02 for key in set(after) ^ set(before)):
        return False
    if any(abs(after[key] - before[key]) > 0.02 for key in common):
        return False
    order = [key for key in before if key in common]
    kept = [key for key in after if key in common]
    return all(order.index(first) < order.index(second) or abs(before[first] - before[second]) <= 0.02
               for first, second in zip(kept, kept[1:]))


def test_a_healthy_store_verifies_clean(demo_home, demo_cli):
    result = demo_cli("verify", "--json")
    document = result.json()
    assert result.exit_code == 0 and document["ok"] and document["problems"] == []
    assert document["checked"]["cards"] > 50
    assert document["checked"]["sessions"] == len(list(sample_sessions_dir().iterdir()))
    assert "The three layers agree" in demo_cli("verify").stdout


def break_unreadable_record(engine: Engine) -> None:
    next(engine.layout.distilled.glob("*.json")).write_text("{not json", encoding="utf-8")


def break_card_without_l3(engine: Engine) -> None:
    with engine.step() as graph:
        graph.upsert_card(Card("card-stray", "stray", "made by no L3 record", "concept", [], 0.5, [], 0, 0))


def break_card_missing_from_l2(engine: Engine) -> None:
    with engine.step() as graph:
        graph.delete_cards([some_card(engine, 0).id])


def break_session_without_l3(engine: Engine) -> None:
    path = next(engine.layout.sessions.glob("*/*.json"))
    path.unlink()
    path.with_suffix(".md").unlink()


def break_session_missing_from_l2(engine: Engine) -> None:
    folder = engine.layout.home / "elsewhere"
    session = engine.raw.read(write_session(folder, "session-20260101-000000"))
    engine.raw.write(session)


def break_link_without_l3(engine: Engine) -> None:
    first, second = sorted(engine.vectors().vector_ids())[:2]
    with engine.step() as graph:
        graph.merge_link(Link(first, second, "DEPENDS_ON", 1.0, "not journaled", 0))


def break_link_missing_from_l2(engine: Engine) -> None:
    with engine.step() as graph:
        graph.query("MATCH (:Card)-[r:EXTRACTED_FROM]->(:Session) WITH r LIMIT 1 DELETE r")


def break_missing_vector(engine: Engine) -> None:
    engine.vectors().table(CARD_VECTORS).delete(f"id = '{some_card(engine, 1).id}'")


def break_missing_cold_vector(engine: Engine) -> None:
    engine.vectors().table(COLD_VECTORS).delete(f"id = '{sorted(engine.vectors().cold_ids())[0]}'")


def break_duplicate_vector(engine: Engine) -> None:
    table = engine.vectors()._db.open_table(CARD_VECTORS)
    table.add(table.search().where(f"id = '{some_card(engine, 2).id}'").limit(1).to_arrow().select(table.schema.names))


def break_wrong_dimension(engine: Engine) -> None:
    database = engine.vectors()._db
    rows = database.open_table(CARD_VECTORS).to_arrow()
    database.drop_table(CARD_VECTORS)
    narrow = pa.schema([("id", pa.string()), ("vector", pa.list_(pa.float32(), 8)), ("tier", pa.string()),
                        ("type", pa.string())])
    database.create_table(CARD_VECTORS, pa.table({
        "id": rows.column("id"), "vector": [[0.1] * 8] * rows.num_rows, "tier": rows.column("tier"),
        "type": rows.column("type")}, schema=narrow))


def break_stale_vector(engine: Engine) -> None:
    card = some_card(engine, 3)
    # At the front: text added at the end of a card whose content ends with its details paragraph is not embedded
    # (``Card.embedding_text``), and which card this is depends on the demo's dates, so on the day.
    card.content = f"(edited behind L1's back) {card.content}"
    with engine.step() as graph:
        graph.upsert_card(card)


def break_orphan_vector(engine: Engine) -> None:
    ghost = Card("card-ghost", "ghost", "only in L1", "concept", [], 0.5, [], 0, 0)
    engine.vectors().upsert_cards([ghost], np.ones((1, 512), dtype=np.float32) / np.sqrt(512))


def break_missing_metadata(engine: Engine) -> None:
    engine.vectors()._db.open_table(CARD_META).delete(f"id = '{some_card(engine, 4).id}'")


def break_missing_context(engine: Engine) -> None:
    (engine.layout.contexts / f"{some_card(engine, 5).id}-context.json").unlink()


def break_orphan_context(engine: Engine) -> None:
    (engine.layout.contexts / "card-nobody-context.json").write_text(
        json.dumps({"card_id": "card-nobody", "session_id": "session-never-ingested", "turns": []}))


def break_promotion_missing_from_l2(engine: Engine) -> None:
    Journal(engine.layout.journal).append("relation.promote", millis_now(), name="LED_TO")


BREAKS = {
    "promotion_missing_from_l2": break_promotion_missing_from_l2,
    "l3_unreadable": break_unreadable_record,
    "card_without_l3": break_card_without_l3,
    "card_missing_from_l2": break_card_missing_from_l2,
    "session_without_l3": break_session_without_l3,
    "session_missing_from_l2": break_session_missing_from_l2,
    "link_without_l3": break_link_without_l3,
    "link_missing_from_l2": break_link_missing_from_l2,
    "missing_vector": break_missing_vector,
    "missing_cold_vector": break_missing_cold_vector,
    "duplicate_vector": break_duplicate_vector,
    "wrong_dimension": break_wrong_dimension,
    "stale_vector": break_stale_vector,
    "orphan_vector": break_orphan_vector,
    "missing_metadata": break_missing_metadata,
    "missing_context": break_missing_context,
    "orphan_context": break_orphan_context,
}


@pytest.mark.parametrize("kind", sorted(BREAKS))
def test_verify_detects_each_kind_of_inconsistency(demo_home, kind):
    engine = Engine.open(demo_home)
    BREAKS[kind](engine)
    assert kind in kinds(engine)


def test_verify_reports_problems_with_exit_code_1_and_their_repair(demo_home, demo_cli):
    engine = Engine.open(demo_home)
    break_missing_vector(engine)
    break_orphan_vector(engine)
    result = demo_cli("verify", "--json")
    document = result.json()
    assert result.exit_code == 1 and not document["ok"]
    assert document["counts"] == {"missing_vector": 1, "orphan_vector": 1}
    assert all(problem["repair"].startswith("alaya rebuild --l1") for problem in document["problems"])
    human = demo_cli("verify")
    assert human.exit_code == 1 and "orphan_vector" in human.stdout and "card-ghost" in human.stdout


def test_rebuild_after_deleting_both_databases_restores_the_same_store(demo_home, demo_cli):
    engine = Engine.open(demo_home)
    demo_cli("recall", QUERY, "--json")  # warms the COLD cards it returns: folded now, so the rebuild's
    engine.introspect(["cooldown"])      # cool-down finds the tiers as they are
    before = demo_cli("recall", QUERY, "--json").json()
    snapshot = graph_snapshot(engine)
    vectors = len(engine.vectors().vector_ids()) + len(engine.vectors().cold_ids())  # COLD ones as codes
    shutil.rmtree(engine.layout.graph_dir)
    shutil.rmtree(engine.layout.vectors_dir)

    result = demo_cli("rebuild", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["cards"] == len(snapshot[0]) and result.json()["vectors"] == vectors
    assert demo_cli("verify", "--json").json()["problems"] == []
    assert graph_snapshot(Engine.open(demo_home)) == snapshot
    assert same_ranking(ranked(demo_cli("recall", QUERY, "--json").json()), ranked(before))
    assert not (demo_home / "rebuild.tmp").exists()


def test_rebuild_repairs_every_constructed_inconsistency(demo_home, demo_cli):
    engine = Engine.open(demo_home)
    repairable = [kind for kind in BREAKS if kind not in ("l3_unreadable", "orphan_context", "missing_context",
                                                          "session_without_l3", "wrong_dimension")]
    for kind in [*repairable, "wrong_dimension"]:  # L1 rows of the store's width can't go into a narrowed table
        BREAKS[kind](engine)
    assert len(kinds(engine)) >= 10
    assert demo_cli("rebuild", "--json").exit_code == 0
    assert demo_cli("verify", "--json").json()["problems"] == []


def test_a_deleted_heat_table_is_reported_per_card_and_rebuilt(demo_home, demo_cli):
    """A careless hand deletes ``card_heat`` (the cards' counters and tiers, apart from their text): the next
    opener makes it again empty, verify names every card without its row, and rebuilding L1 brings them back."""
    engine = Engine.open(demo_home)
    cards = len(engine.vectors().heat_rows())
    shutil.rmtree(engine.layout.vectors_dir / "card_heat.lance")
    document = demo_cli("verify", "--json").json()
    assert document["counts"] == {"missing_metadata": cards}
    assert all("card_heat" in problem["detail"] for problem in document["problems"])
    assert demo_cli("rebuild", "--l1", "--json").exit_code == 0
    assert demo_cli("verify", "--json").json()["problems"] == []
    assert len(Engine.open(demo_home).vectors().heat_rows()) == cards


def test_replay_reproduces_links_merges_forgetting_restoring_and_relation_merges(demo_home, demo_cli):
    """Every journaled change, applied live, then the store rebuilt from L3 alone: the same graph."""
    engine = Engine.open(demo_home)
    first, second, third, fourth = sorted(engine.vectors().vector_ids())[:4]
    engine.link(first, second, "LED_TO", "the first led to the second", new_relation=True)
    engine.link(third, fourth, "RESULTED_IN", "same idea, other words", new_relation=True)
    engine.link(second, third, "SIMILAR_TO")
    with engine.step() as graph:
        journal, now = Journal(engine.layout.journal), millis_now()
        apply.merge_relations(keep="LED_TO", drop="RESULTED_IN", graph=graph, journal=journal, now=now)
        apply.merge_cards(first=first, second=second, graph=graph, vectors=engine.vectors(),
                          embedder=engine.embedder(), journal=journal, aliases=apply.Aliases(engine.layout.aliases),
                          now=now + 1)
    far_future = millis_now() + 400 * 86_400_000
    forgotten = engine.introspect(["cooldown", "forget"], now=far_future)["steps"]["forget"]["forgotten"]
    assert len(forgotten) >= 2
    engine.restore(forgotten[0])
    with engine.step() as graph:  # every card is COLD by now: any card still in the graph
        survivor = next(card.id for card in sorted(graph.all_cards(), key=lambda card: card.id)
                        if card.id != forgotten[0])
    engine.link(forgotten[0], survivor, "DEPENDS_ON", "restored cards can be linked again")
    snapshot = graph_snapshot(engine)

    assert demo_cli("rebuild", "--l2", "--json").exit_code == 0
    assert graph_snapshot(Engine.open(demo_home)) == snapshot
    problems = demo_cli("verify", "--json").json()["problems"]
    assert problems == [], problems[:3]


def test_rebuild_l1_alone_and_its_seed_alias(demo_home, demo_cli):
    engine = Engine.open(demo_home)
    cards = len(engine.vectors().vector_ids()) + len(engine.vectors().cold_ids())
    shutil.rmtree(engine.layout.vectors_dir)
    result = demo_cli("rebuild-l1", "--json")
    assert result.exit_code == 0 and result.json()["layers"] == ["l1"] and result.json()["vectors"] == cards
    assert demo_cli("verify", "--json").json()["ok"]


def test_rebuild_refuses_to_keep_a_layer_that_no_longer_matches_the_config(demo_home, demo_cli):
    config_file = demo_home / "config.json"
    config = json.loads(config_file.read_text())
    config["embedding"].update({"provider": "openai", "model": "other-model", "dimensions": 16,
                                "base_url": "http://127.0.0.1:9/v1"})
    config_file.write_text(json.dumps(config))
    result = demo_cli("rebuild", "--l2")
    assert result.exit_code == 2 and "alaya rebuild --l1" in result.stderr and "Traceback" not in result.stderr


def test_rebuild_through_the_cli_of_a_store_that_was_never_initialised(tmp_path):
    result = cli_for(tmp_path / "nothing")("rebuild")
    assert result.exit_code == 2 and "init" in result.stderr
