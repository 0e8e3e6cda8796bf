"""``alaya schema``, ``alaya trace`` and ``alaya link`` on the distilled demo store."""

from __future__ import annotations

import json

from conftest import demo_session_id

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.engine import Engine

GATEWAY = "session-20260309-013000"
"""The shipped session's id; in the demo store its date moved with the demo's timeline (``demo_session_id``)."""


def gateway_cards(demo_home):
    engine = Engine.open(demo_home)
    with engine.step() as graph:
        rows = graph.query("MATCH (c:Card)-[:EXTRACTED_FROM]->(s:Session {id: $id}) RETURN c.id, c.title ORDER BY c.id",
                           {"id": demo_session_id(demo_home, GATEWAY)})
    return [row[0] for row in rows]


def test_trace_returns_the_context_turns_and_the_session_file(demo_cli, demo_home):
    card_id = gateway_cards(demo_home)[0]
    document = demo_cli("trace", card_id, "--json").json()
    assert document["card"]["id"] == card_id
    assert [session["id"] for session in document["sessions"]] == [demo_session_id(demo_home, GATEWAY)]
    session_file = json.loads(open(document["sessions"][0]["path"]).read())
    for turn in document["context_turns"]:
        assert session_file["turns"][turn["index"]]["content"] == turn["content"]
    assert document["context_turns"]
    human = demo_cli("trace", card_id).stdout
    assert human.startswith(f"🔬 Tracing {card_id}") and "=== Relevant Context ===" in human and "[Turn " in human


def test_trace_of_an_unknown_card_is_a_clear_error(demo_cli):
    result = demo_cli("trace", "card-nope", "--json")
    assert result.exit_code == 2 and result.json()["error"]["code"] == "unknown_card"


def test_link_custom_relation_is_journaled_embedded_and_counted(demo_cli, demo_home):
    first, second = gateway_cards(demo_home)[:2]
    result = demo_cli("link", first, second, "--rel", "led to", "--reason", "the outage led to the checklist",
                      "--new-relation", "--json")
    assert result.exit_code == 0, result.stderr
    assert [link["relation"] for link in result.json()["links"]] == ["LED_TO"]
    journal = "".join(path.read_text() for path in (demo_home / "raw/journal").glob("*.jsonl"))
    assert '"op": "link.add"' in journal and first in journal
    relations = demo_cli("schema", "--relations", "--json").json()["relations"]
    assert {"name": "LED_TO", "uses": 1, "is_core": False, "hint": None} in relations["custom"]
    from alaya_engine.vectors.store import VectorStore

    assert "LED_TO" in VectorStore(demo_home / "lancedb", 512).relation_names()


def test_a_chinese_relation_name_is_kept_and_navigable(demo_cli, demo_home):
    first, second = gateway_cards(demo_home)[:2]
    result = demo_cli("link", first, second, "--rel", "导致", "--new-relation", "--json")
    assert result.exit_code == 0, result.stderr
    assert [link["relation"] for link in result.json()["links"]] == ["导致"]
    assert any(r["name"] == "导致" for r in demo_cli("schema", "--relations", "--json").json()["relations"]["custom"])
    reached = demo_cli("recall", "--json", "--from-nodes", first, "--rel", "导致", "--depth", "1").json()["nodes"]
    assert any(node["card_id"] == second and node["matched_rel"] == "导致" for node in reached)
    assert demo_cli("link", first, second, "--rel", "——", "--json").json()["error"]["code"] == "bad_relation"


def test_symmetric_links_go_both_ways_and_bad_links_are_refused(demo_cli, demo_home):
    first, second = gateway_cards(demo_home)[:2]
    both = demo_cli("link", first, second, "--rel", "SIMILAR_TO", "--json").json()["links"]
    assert {(link["source"], link["target"]) for link in both} == {(first, second), (second, first)}
    self_link = demo_cli("link", first, first, "--json")
    assert self_link.exit_code == 2 and self_link.json()["error"]["code"] == "self_link"
    unknown = demo_cli("link", first, "card-nope", "--json")
    assert unknown.exit_code == 2 and unknown.json()["error"]["code"] == "unknown_card"
    unchosen = demo_cli("link", first, second)  # no --rel, not a terminal: refused, nothing written
    assert unchosen.exit_code == 2 and unchosen.stderr.splitlines() == [
        "error: say which relation links them: --rel NAME, e.g. --rel CAUSED_BY or --rel DEPENDS_ON "
        "(alaya schema --relations lists them all)"]
    generic = demo_cli("link", first, second, "--rel", "RELATES_TO", "--json")
    assert generic.json()["links"][0]["relation"] == "RELATES_TO"
    hints = {r["name"]: r["hint"] for r in demo_cli("schema", "--relations", "--json").json()["relations"]["custom"]}
    assert hints["RELATES_TO"] == "generic, consider splitting"


def test_schema_node_types_add_up(demo_cli):
    document = demo_cli("schema", "--node-types", "--json").json()["node_types"]
    assert document["total_cards"] == sum(entry["count"] for entry in document["cards"].values()) > 0
    assert set(document["cards"]) == {"concept", "pattern", "gotcha", "decision"}
    assert document["sessions"] == len(list(sample_sessions_dir().iterdir()))
    human = demo_cli("schema").stdout
    assert "Core Relations (built-in):" in human and "📊 Node Types" in human
