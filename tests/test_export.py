"""``alaya export``: GraphML that ``networkx.read_graphml`` reads back with every node, edge and attribute the
store holds; Markdown cards whose front matter and wikilinks parse back; clean replacement of the folder."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import yaml
from conftest import cli_for, write_session

from alaya_engine.engine import Engine
from alaya_engine.export.folder import MARKER
from alaya_engine.export.graphml import xml_safe
from alaya_engine.foundations.domain import Card, Link

SECRET = "sk-test-do-not-export-4242"
CARDS = [
    Card(id="card-aaaa000000000001", title="Gateway 重启后 Telegram 消息丢失", type="gotcha", tags=["gateway", "告警"],
         content="原因：`plugins.allow` 漏了 telegram。\r\nTerminal said \x1b[31mERROR\x1b[0m | and [[brackets]].",
         importance=0.9, source_sessions=["session-a"], created_at=1774938540000, updated_at=1774938600000),
    Card(id="card-aaaa000000000002", title="Pin plugins.allow in the deploy checklist", type="decision", tags=[],
         content="Decided: the checklist diffs plugins.allow.", importance=0.6, source_sessions=["session-a"],
         created_at=1774938540000, updated_at=1774938540000, temperature=0.55, tier="WARM", source="manual"),
    Card(id="card-aaaa000000000003", title="Plugins load from an allow list", type="concept", tags=["plugins"],
         content="Only listed plugins load.", importance=0.4, source_sessions=["session-a", "session-b"],
         created_at=1774000000000, updated_at=1774000000000, temperature=0.12, tier="COLD", source="memex"),
    Card(id="card-aaaa000000000004", title="Restart: diff | reload / verify", type="pattern", tags=["ops"],
         content="1. diff\n2. reload\n3. verify", importance=0.5, source_sessions=["session-b"],
         created_at=1774938540000, updated_at=1774938540000),
]
LINKS = [
    Link(CARDS[0].id, CARDS[1].id, "CAUSED_BY", 0.8, "cue: 原因", 1774938540000),
    Link(CARDS[0].id, CARDS[1].id, "SIMILAR_TO", 0.71, "embedding cosine similarity 0.71", 1774938540000),
    Link(CARDS[1].id, CARDS[0].id, "SIMILAR_TO", 0.71, "embedding cosine similarity 0.71", 1774938540000),
    Link(CARDS[1].id, CARDS[2].id, "LED_TO", 1.0, "custom | relation ]] with odd reason", 1774938540000),
    Link(CARDS[3].id, CARDS[0].id, "RELATES_TO", 1.0, "", 1774938540000),
    Link(CARDS[3].id, CARDS[2].id, "DEPENDS_ON", 0.5, "needs it", 1774938540000),
    *[Link(card.id, session, "EXTRACTED_FROM", 1.0, "", 1774938540000) for card in CARDS
      for session in card.source_sessions],
]


@pytest.fixture(scope="module")
def store(template_home, tmp_path_factory) -> Path:
    """Cards of every type and tier, two sessions, core and custom relations, two relations between one pair."""
    root = tmp_path_factory.mktemp("export")
    home = root / "home"
    shutil.copytree(template_home, home)
    engine = Engine.open(home)
    engine.ingest([str(write_session(root / "in", "session-a")), str(write_session(root / "in", "session-b"))])
    with engine.step() as graph:
        for card in CARDS:
            graph.upsert_card(card)
        for link in LINKS:
            graph.merge_link(link)
    active = [card for card in CARDS if card.tier != "COLD"]
    vectors = engine.vectors()
    vectors.upsert_cards(active, np.eye(len(active), 512, dtype=np.float32))
    row = vectors.heat_row(CARDS[0].id)
    vectors.update_heat([{**row, "access_count": 7, "last_accessed": 1775000000000}])
    return home


@pytest.fixture(scope="module")
def exported(store, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("out") / "vault"
    result = cli_for(store)("export", "--out", str(out), "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    assert document["out"] == str(out) and document["cards"] == len(CARDS) and document["sessions"] == 2
    assert document["edges"] == len(LINKS)
    return out


def iso(moment) -> str:
    return moment.isoformat() + "Z"


def store_contents(home: Path) -> tuple[dict, dict, set]:
    """What the store holds, read straight from the graph and card_meta (not through the exporter)."""
    engine = Engine.open(home)
    heat = {row["id"]: row for row in engine.vectors().heat_rows()}
    with engine.step() as graph:
        cards = {row[0]: dict(zip(("id", "title", "content", "type", "tags", "tier", "source", "temperature",
                                   "source_sessions", "importance", "created_at", "updated_at", "facts"), row))
                 for row in graph.query("MATCH (c:Card) RETURN c.id, c.title, c.content, c.type, c.tags, c.tier, "
                                        "c.source, c.temperature, c.source_sessions, c.importance, c.created_at, "
                                        "c.updated_at, c.facts")}
        sessions = {row[0]: dict(zip(("id", "timestamp", "channel", "agent", "summary", "turns", "tokens",
                                      "content_hash", "path", "distilled_hash", "distilled_at"), row))
                    for row in graph.query("MATCH (s:Session) RETURN s.id, s.timestamp, s.channel, s.agent, "
                                           "s.summary, s.turns, s.tokens, s.content_hash, s.path, s.distilled_hash, "
                                           "s.distilled_at")}
        edges = {(a, b, custom or label, weight, reason, iso(created)) for a, label, custom, b, weight, reason, created
                 in graph.query("MATCH (a:Card)-[r]->(b) WHERE label(r) <> 'MENTIONS' RETURN a.id, label(r), r.type, "
                                "b.id, r.weight, r.reason, r.created_at")}
    for card in cards.values():
        card["access_count"] = heat.get(card["id"], {}).get("access_count", 0)
        card["last_accessed"] = heat.get(card["id"], {}).get("last_accessed") or None
    return cards, sessions, edges


def test_graphml_round_trips_every_node_edge_and_attribute(store, exported):
    cards, sessions, edges = store_contents(store)
    graph = nx.read_graphml(exported / "graph.graphml", force_multigraph=True)
    assert isinstance(graph, nx.MultiDiGraph)
    entities = {node for node, data in graph.nodes(data=True) if data["kind"] == "entity"}
    assert set(graph.nodes) == set(cards) | set(sessions) | entities
    for card_id, card in cards.items():
        expected = {"kind": "card", "label": xml_safe(card["title"]), "title": xml_safe(card["title"]),
                    "content": xml_safe(card["content"]), "type": card["type"], "tier": card["tier"],
                    "source": card["source"], "temperature": card["temperature"], "importance": card["importance"],
                    "tags": json.dumps(card["tags"], ensure_ascii=False),
                    "source_sessions": json.dumps(card["source_sessions"], ensure_ascii=False),
                    "created_at": iso(card["created_at"]), "updated_at": iso(card["updated_at"]),
                    "access_count": card["access_count"],
                    "facts": json.dumps([{**fact, "valid_from": iso(fact["valid_from"])} for fact in card["facts"]],
                                        ensure_ascii=False)}
        if card["last_accessed"]:
            from alaya_engine.graph.store import from_millis

            expected["last_accessed"] = iso(from_millis(card["last_accessed"]))
        assert graph.nodes[card_id] == expected
    for session_id, session in sessions.items():
        expected = {"kind": "session", "label": session_id}
        expected.update({key: iso(value) if hasattr(value, "isoformat") else value
                         for key, value in session.items() if value is not None and key != "id"})
        assert graph.nodes[session_id] == expected
    exported_edges = {(a, b, data["relation"], data["weight"], data["reason"], data["created_at"])
                      for a, b, data in graph.edges(data=True) if data["relation"] != "MENTIONS"}
    assert exported_edges == edges and graph.number_of_edges() - len(graph_mentions(graph)) == len(LINKS)
    assert all(key == f"{a}:{data['relation']}:{b}" and set(data) == {"relation", "label", "weight", "reason",
                                                                       "created_at"}
               and data["label"] == data["relation"]
               for a, b, key, data in graph.edges(keys=True, data=True) if data["relation"] != "MENTIONS")
    assert {data["relation"] for data in graph[CARDS[0].id][CARDS[1].id].values()} == {"CAUSED_BY", "SIMILAR_TO"}
    ids = re.findall(r'<edge [^>]*id="([^"]+)"', (exported / "graph.graphml").read_text(encoding="utf-8"))
    assert len(ids) == len(set(ids)) == len(LINKS) + len(graph_mentions(graph))  # Gephi drops a repeated edge id
    assert graph.nodes[CARDS[0].id]["access_count"] == 7


def graph_mentions(graph: "nx.MultiDiGraph") -> set[tuple[str, str, str]]:
    return {(a, b, data["name"]) for a, b, data in graph.edges(data=True) if data["relation"] == "MENTIONS"}


def test_graphml_has_the_entities_cards_mention_and_their_mentions_edges(store, exported):
    """Entity nodes (kind entity, label its name, entity_kind, aliases as JSON) and one MENTIONS edge per card and
    entity, the same the graph holds."""
    graph = nx.read_graphml(exported / "graph.graphml", force_multigraph=True)
    engine = Engine.open(store)
    with engine.step() as live:
        held = {tuple(row) for row in live.query("MATCH (c:Card)-[m:MENTIONS]->(e:Entity) RETURN c.id, e.id, "
                                                 "min(m.name)")}
        entities = {row[0]: row for row in live.query("MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases")}
    assert graph_mentions(graph) == held and held
    assert ("card-aaaa000000000001", "ent-plugins.allow", "plugins.allow") in held
    assert ("card-aaaa000000000002", "ent-plugins.allow", "plugins.allow") in held
    for identifier, name, kind, aliases in entities.values():
        assert graph.nodes[identifier] == {"kind": "entity", "label": name, "name": name, "entity_kind": kind,
                                           "aliases": json.dumps(aliases, ensure_ascii=False)}
    assert graph.nodes["ent-telegram"]["entity_kind"] == "service"
    assert all(key == f"{a}:MENTIONS:{b}" for a, b, key, data in graph.edges(keys=True, data=True)
               if data["relation"] == "MENTIONS")


def test_control_characters_are_the_only_change_in_graphml():
    assert xml_safe("a\r\nb\rc\x1b[0m\td") == "a\nb\nc\ufffd[0m\td"


def test_markdown_cards_parse_back_and_their_wikilinks_resolve(store, exported):
    cards, _, edges = store_contents(store)
    files = {path.stem: path for path in (exported / "cards").rglob("*.md")}
    assert {p.name for p in (exported / "cards").iterdir()} == {"concept", "pattern", "gotcha", "decision"}
    assert len(files) == len(cards)
    by_id = {}
    for stem, path in files.items():
        text = path.read_bytes().decode("utf-8")   # bytes: a CRLF in the content must stay as it is
        match = re.match(r"\A---\n(.*?)\n---\n(.*)\Z", text, re.S)
        front, body = yaml.safe_load(match.group(1)), match.group(2)
        card = cards[front["id"]]
        assert path.parent.name == card["type"] and stem.endswith(card["id"].removeprefix("card-"))
        assert {key: front[key] for key in ("title", "type", "tags", "temperature", "tier", "importance", "source",
                                            "source_sessions", "access_count")} == \
               {key: card[key] for key in ("title", "type", "tags", "temperature", "tier", "importance", "source",
                                           "source_sessions", "access_count")}
        assert front["aliases"] == [card["title"]]
        assert (front["created"], front["updated"]) == (iso(card["created_at"]), iso(card["updated_at"]))
        assert card["content"].strip() in body and f"# {card['title']}" in body
        by_id[front["id"]] = (stem, body)
    stems = {card_id: stem for card_id, (stem, _) in by_id.items()}
    for card_id, (_, body) in by_id.items():
        links = re.findall(r"^- (\w+) \[\[([^|\]]+)\|[^\]]*\]\]", body, re.M)
        assert all(target in files for _, target in links)
        assert {(relation, target) for relation, target in links} == {
            (relation, stems[b]) for a, b, relation, *_ in edges if a == card_id and b in cards}
    index = (exported / "index.md").read_text(encoding="utf-8")
    for card_type in ("concept", "pattern", "gotcha", "decision"):
        assert f"## {card_type} (1)" in index
    assert all(f"[[{stem}|" in index for stem in stems.values())


def test_reexport_replaces_the_folder_cleanly_and_refuses_foreign_folders(store, tmp_path):
    cli = cli_for(store)
    out = tmp_path / "vault"
    assert cli("export", "--out", str(out), "--json").json()["replaced"] is False
    (out / "stray.md").write_text("left over from an old export")
    (out / "cards" / "gotcha" / "renamed-card.md").write_text("old")
    assert cli("export", "--out", str(out), "--json").json()["replaced"] is True
    assert not (out / "stray.md").exists() and not (out / "cards" / "gotcha" / "renamed-card.md").exists()
    assert (out / MARKER).is_file() and len(list((out / "cards").rglob("*.md"))) == len(CARDS)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["vault"]   # no temporary or old folder left

    foreign = tmp_path / "notes"
    foreign.mkdir()
    (foreign / "mine.md").write_text("precious")
    refused = cli("export", "--out", str(foreign), "--json")
    assert refused.exit_code == 2 and refused.json()["error"]["code"] == "bad_out"
    assert [p.name for p in foreign.iterdir()] == ["mine.md"]
    a_file = tmp_path / "file.txt"
    a_file.write_text("x")
    assert cli("export", "--out", str(a_file), "--json").exit_code == 2

    default = cli("export")
    assert default.exit_code == 0 and "Export complete" in default.stdout and "✓ Exported 4 cards" in default.stdout
    assert (store / "export" / "graph.graphml").is_file() and (store / "export" / "index.md").is_file()


def test_no_setting_or_key_ends_up_in_an_export(store, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    out = tmp_path / "vault"
    assert cli_for(store)("export", "--out", str(out)).exit_code == 0
    names = {path.name for path in out.rglob("*")}
    assert "config.json" not in names and "store.json" not in names
    for path in (p for p in out.rglob("*") if p.is_file()):
        text = path.read_text(encoding="utf-8")
        assert SECRET not in text and "api_key" not in text
