"""Promoting a custom relation: a rel table of its own, its edges moved there, the same after a rebuild;
and relation names that must never reach Cypher as a table name."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import cli_for

from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.relations import check_promotable
from alaya_engine.introspect.suggestions import Suggestion, suggestion_id
from alaya_engine.raw.journal import Journal
from alaya_engine.vectors.store import RELATIONS

USES = 101


@pytest.fixture(scope="module")
def busy_template(demo_template, tmp_path_factory) -> Path:
    """The demo store with ``USES`` distinct ``LED_TO`` links, made by ``alaya link`` (journaled)."""
    home = tmp_path_factory.mktemp("busy") / "home"
    shutil.copytree(demo_template, home)
    engine = Engine.open(home)
    ids = sorted(engine.vectors().vector_ids())
    with engine.hold():
        for number in range(USES):
            source = ids[number % len(ids)]
            target = ids[(number + 1 + number // len(ids)) % len(ids)]
            engine.link(source, target, "led to", f"link {number}", new_relation=True)
    return home


@pytest.fixture
def busy(busy_template, tmp_path) -> Path:
    home = tmp_path / "busy"
    shutil.copytree(busy_template, home)
    return home


def edge_counts(engine: Engine, name: str) -> tuple[int | None, int]:
    """(edges in the relation's own table, or None without one; its edges left in CUSTOM)."""
    with engine.step() as graph:
        tables = {row[0] for row in graph.query("CALL show_tables() RETURN name")}
        own = graph.query(f"MATCH ()-[r:{name}]->() RETURN count(r)")[0][0] if name in tables else None
        custom = graph.query("MATCH ()-[r:CUSTOM {type: $name}]->() RETURN count(r)", {"name": name})[0][0]
    return own, custom


def relation_row(engine: Engine, name: str) -> dict:
    rows = engine.vectors()._db.open_table(RELATIONS).to_arrow().to_pylist()
    return next(row for row in rows if row["relation"] == name)


def test_a_promoted_relation_gets_its_table_and_keeps_it_through_a_rebuild(busy):
    cli = cli_for(busy)
    engine = Engine.open(busy)
    engine.introspect(["consolidate"])
    promotion = next(s for s in engine.review_list("pending")["suggestions"] if s["kind"] == "promote_relation")
    assert promotion["subjects"] == ["LED_TO"] and promotion["evidence"]["uses"] == USES

    result = cli("review", "approve", promotion["id"], "--json")
    assert result.exit_code == 0, result.stderr
    decided = result.json()["decided"][0]
    assert decided | {"id": None, "changed": None, "next": None} == {
        "id": None, "kind": "promote_relation", "status": "approved", "promoted": "LED_TO", "edges_moved": USES,
        "changed": None, "next": None}
    assert f"{USES} edges moved" in decided["changed"] and "--rel LED_TO" in decided["next"]
    assert edge_counts(engine, "LED_TO") == (USES, 0)
    assert [e["name"] for e in Journal(engine.layout.journal).events("relation.promote")] == ["LED_TO"]
    assert relation_row(engine, "LED_TO")["is_core"] is True

    second, first = sorted(engine.vectors().vector_ids())[-2:]  # the fixture links the other way only
    assert cli("link", first, second, "--rel", "led-to", "--reason", "after promotion", "--json").exit_code == 0
    assert edge_counts(engine, "LED_TO") == (USES + 1, 0)
    recalled = cli("recall", "--json", "--from-nodes", first, "--rel", "LED_TO", "--depth", "1").json()
    assert second in {node["card_id"] for node in recalled["nodes"]}
    relations = cli("schema", "--relations", "--json").json()["relations"]
    assert {"name": "LED_TO", "uses": USES + 1, "is_core": True, "hint": "promoted: own table"} in relations["custom"]
    assert "promoted: own table" in cli("schema", "--relations").stdout
    again = engine.introspect(["consolidate"])["steps"]["consolidate"]
    assert sum(again["new"].values()) == 0
    assert cli("verify", "--json").json()["problems"] == []

    before = recalled["nodes"]
    shutil.rmtree(engine.layout.graph_dir)
    shutil.rmtree(engine.layout.vectors_dir)
    assert cli("rebuild", "--all", "--json").exit_code == 0
    rebuilt = Engine.open(busy)
    assert edge_counts(rebuilt, "LED_TO") == (USES + 1, 0)
    assert relation_row(rebuilt, "LED_TO")["is_core"] is True
    assert cli("verify", "--json").json()["problems"] == []
    after = cli("recall", "--json", "--from-nodes", first, "--rel", "LED_TO", "--depth", "1").json()["nodes"]
    assert [node["card_id"] for node in after] == [node["card_id"] for node in before]


HOSTILE = [
    "LED_TO]->() DETACH DELETE x //", "LED_TO`", "led_to", "Led_To", "LED-TO", "ÜBER_LINK", "1ST_CAUSE", "A", "",
    "X" * 65, "MATCH", "WHERE", "ORDER", "DELETE", "CAUSES", "EXTRACTED_FROM", "CUSTOM", "CARD", "SESSION", "Card",
    "RELATES_TO", "LED_TO\n", None, ["LED_TO"],
]


@pytest.mark.parametrize("name", HOSTILE, ids=repr)
def test_names_unfit_for_a_table_are_refused(name):
    with pytest.raises(AlayaError) as refused:
        check_promotable(name)
    assert refused.value.code == "bad_relation"


@pytest.mark.parametrize("name", ["LED_TO", "X2", "RESULTED_IN_" + "X" * 52])
def test_ordinary_names_may_become_tables(name):
    check_promotable(name)


@pytest.mark.parametrize("name", ["LED_TO]->() DETACH DELETE x //", "ORDER", "CAUSES", None])
def test_hostile_names_are_refused_before_anything_is_written(home, name):
    """The queue is a file in L3 anyone can edit: a suggestion's subject is never trusted."""
    engine = Engine.open(home)
    hostile = Suggestion(suggestion_id("promote_relation", [name]), "promote_relation", [name], {"uses": 500})
    engine.layout.review.mkdir(parents=True, exist_ok=True)
    (engine.layout.review / "suggestions.json").write_text(json.dumps({hostile.id: hostile.to_json()}))
    with engine.step() as graph:
        tables_before = sorted(row[0] for row in graph.query("CALL show_tables() RETURN name"))

    result = cli_for(home)("review", "approve", hostile.id, "--json")

    assert result.exit_code == 2 and result.json()["error"]["code"] == "bad_relation", result.stdout
    with engine.step() as graph:
        assert sorted(row[0] for row in graph.query("CALL show_tables() RETURN name")) == tables_before
    assert list(Journal(engine.layout.journal).events("relation.promote")) == []
    assert engine.review_list("pending")["suggestions"][0]["id"] == hostile.id


def test_a_name_taken_by_another_table_is_refused(home):
    engine = Engine.open(home)
    with engine.step() as graph:
        graph.query("CREATE NODE TABLE FOO_BAR(id STRING, PRIMARY KEY(id))")
        with pytest.raises(AlayaError, match="a table of that name exists"):
            graph.promote_relation("FOO_BAR")
        assert "FOO_BAR" not in graph.promoted_relations()


def test_a_hostile_promotion_in_the_journal_is_reported_and_not_replayed(home):
    engine = Engine.open(home)
    Journal(engine.layout.journal).append("relation.promote", 1, name="X]->() DELETE r //")
    problems = engine.verify().to_json()["problems"]
    assert [p["kind"] for p in problems] == ["l3_unreadable"] and "relation.promote" in json.dumps(problems)
    assert cli_for(home)("rebuild", "--l2", "--json").exit_code == 0
    with Engine.open(home).step() as graph:
        assert graph.promoted_relations() == frozenset()
