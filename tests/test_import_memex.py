"""``alaya import-memex``: the fixture vault (nested folders, alias links, a broken link, a file without front
matter, Chinese and English), re-import after edits, the L3 journal contract, unsafe folders, recall marks."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, cli_for

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import card_id_for, millis_now
from alaya_engine.memex.importer import REASON, apply_import_event
from alaya_engine.memex.note import infer_type, parse_note, parse_time, wikilink_targets
from alaya_engine.raw.journal import Journal

VAULT = FIXTURES / "memex_vault"
SLUGS = {"docker-memory-limit", "gateway-restart", "telegram-plugin", "no-front-matter", "use-lancedb",
         "vector-search"}
WIKILINKS = {("docker-memory-limit", "gateway-restart"), ("gateway-restart", "docker-memory-limit"),
             ("gateway-restart", "telegram-plugin"), ("telegram-plugin", "gateway-restart"),
             ("no-front-matter", "docker-memory-limit"), ("use-lancedb", "vector-search"),
             ("vector-search", "use-lancedb")}


def cid(slug: str) -> str:
    return card_id_for("memex", slug)


def memex_cards(home: Path) -> dict[str, dict]:
    with Engine.open(home).step() as graph:
        return graph.cards([row[0] for row in graph.query("MATCH (c:Card) WHERE c.source = 'memex' RETURN c.id")])


def wikilink_edges(home: Path) -> set[tuple[str, str]]:
    with Engine.open(home).step() as graph:
        rows = graph.query("MATCH (a:Card)-[r:CUSTOM]->(b:Card) WHERE r.type = 'RELATES_TO' "
                           "RETURN a.id, b.id, r.reason")
    assert {reason for _, _, reason in rows} <= {REASON}
    return {(a, b) for a, b, _ in rows}


def journal_lines(home: Path) -> list[dict]:
    return list(Journal(home / "raw" / "journal").events("card.import"))


@pytest.fixture(scope="module")
def imported(template_home, tmp_path_factory):
    """The fixture vault imported once into a store of its own (read-only for the tests that use it)."""
    home = tmp_path_factory.mktemp("memex") / "home"
    shutil.copytree(template_home, home)
    result = cli_for(home)("import-memex", str(VAULT), "--json")
    assert result.exit_code == 0, result.stderr
    return home, result.json()


def test_every_card_is_imported_with_type_title_tags_and_times(imported):
    home, report = imported
    assert (report["files"], report["imported"], report["updated"], report["unchanged"]) == (6, 6, 0, 0)
    assert report["unreadable"] == [] and report["skipped"] == [] and report["missing"] == []
    cards = memex_cards(home)
    assert set(cards) == {cid(slug) for slug in SLUGS}
    assert {slug: cards[cid(slug)]["type"] for slug in SLUGS} == {
        "docker-memory-limit": "gotcha",      # tag "gotcha"
        "gateway-restart": "gotcha",          # declared type
        "telegram-plugin": "concept",         # nothing to infer from
        "no-front-matter": "pattern",         # title says "Checklist"
        "use-lancedb": "decision",            # category "decision"
        "vector-search": "pattern",           # tag "pattern"
    }
    gateway = cards[cid("gateway-restart")]
    assert gateway["title"] == "Gateway 重启后 Telegram 消息丢失"
    assert gateway["tags"] == ["运维", "gateway", "telegram"] and gateway["source_sessions"] == []
    assert gateway["content"].startswith("重启 Gateway 之后收不到 Telegram 消息")
    assert gateway["created_at"].isoformat() == "2026-03-31T06:29:00"
    assert gateway["updated_at"].isoformat() == "2026-04-02T00:00:00"
    assert cards[cid("use-lancedb")]["created_at"].isoformat() == "2026-01-20T02:00:00"   # +08:00 → UTC
    assert cards[cid("telegram-plugin")]["tags"] == ["reference", "telegram", "plugins"]
    untitled = cards[cid("no-front-matter")]
    assert untitled["title"] == "Checklist before restarting the gateway" and untitled["tags"] == []
    mtime = int(os.stat(VAULT / "notes" / "no-front-matter.md").st_mtime * 1000)
    assert abs(untitled["created_at"].timestamp() - mtime / 1000) < 1   # naive UTC vs epoch: same instant
    assert all(card["source"] == "memex" and card["tier"] == "HOT" for card in cards.values())


def test_wikilinks_become_relates_to_edges_and_the_broken_one_is_listed(imported):
    home, report = imported
    assert wikilink_edges(home) == {(cid(a), cid(b)) for a, b in WIKILINKS}
    assert report["links"] == len(WIKILINKS)
    assert report["broken_links"] == [{"file": "ops/telegram/telegram-plugin.md", "target": "does-not-exist"}]


def test_each_card_is_journaled_and_replaying_the_journal_rebuilds_the_graph(imported, home):
    """The contract ``alaya rebuild`` relies on: the events alone give the same cards and edges."""
    source_home, _ = imported
    events = journal_lines(source_home)
    first = {event["card"]["id"]: event for event in reversed(events)}
    assert set(first) == {cid(slug) for slug in SLUGS}
    docker = first[cid("docker-memory-limit")]
    assert docker["origin"] == {"vault": str(VAULT.resolve()), "file": "docker-memory-limit.md",
                                "slug": "docker-memory-limit",
                                "file_hash": hashlib.sha256(
                                    (VAULT / "docker-memory-limit.md").read_bytes()).hexdigest()}
    assert [(link["target"], link["relation"], link["reason"]) for link in docker["links"]] == [
        (cid("gateway-restart"), "RELATES_TO", REASON)]
    with Engine.open(home).step() as graph:
        for event in events:
            apply_import_event(graph, event)
    assert wikilink_edges(home) == wikilink_edges(source_home)
    assert memex_cards(home) == memex_cards(source_home)


def test_recall_marks_memex_cards(imported):
    home, _ = imported
    result = cli_for(home)("recall", "Telegram 消息丢失 plugins.allow", "--json")
    assert result.exit_code == 0, result.stderr
    nodes = result.json()["nodes"]
    assert nodes and nodes[0]["card_id"] == cid("gateway-restart")
    assert {node["source"] for node in nodes} == {"memex"}


def test_reimport_updates_by_slug_adds_new_cards_and_writes_nothing_when_unchanged(home, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    cli = cli_for(home)
    assert cli("import-memex", str(vault), "--json").json()["imported"] == 6
    written = len(journal_lines(home))

    again = cli("import-memex", str(vault), "--json").json()
    assert (again["imported"], again["updated"], again["unchanged"]) == (0, 0, 6)
    assert len(journal_lines(home)) == written

    edited = vault / "patterns" / "vector-search.md"
    edited.write_text(edited.read_text().replace("reciprocal rank", "reciprocal rank fusion (RRF)"))
    unlinked = vault / "notes" / "no-front-matter.md"
    unlinked.write_text(unlinked.read_text().replace("[[docker-memory-limit]]", "the docker card"))
    (vault / "ops" / "does-not-exist.md").write_text("---\ntitle: Now it exists\n---\nBack to [[telegram-plugin]].\n")
    report = cli("import-memex", str(vault), "--json").json()
    by_slug = {card["slug"]: card["status"] for card in report["cards"]}
    assert by_slug["vector-search"] == "updated" and by_slug["does-not-exist"] == "imported"
    assert by_slug["telegram-plugin"] == "updated"   # its broken link now resolves
    assert by_slug["no-front-matter"] == "updated"
    assert report["broken_links"] == [] and report["unchanged"] == 3
    cards = memex_cards(home)
    assert len(cards) == 7 and "fusion (RRF)" in cards[cid("vector-search")]["content"]
    edges = wikilink_edges(home)
    assert (cid("telegram-plugin"), cid("does-not-exist")) in edges
    assert (cid("no-front-matter"), cid("docker-memory-limit")) not in edges and len(edges) == len(WIKILINKS) + 1
    hits = cli("recall", "reciprocal rank fusion RRF", "--json").json()["nodes"]
    assert hits[0]["card_id"] == cid("vector-search")

    (vault / "ops" / "does-not-exist.md").unlink()
    gone = cli("import-memex", str(vault), "--json").json()
    assert gone["missing"] == [{"file": "ops/does-not-exist.md", "card_id": cid("does-not-exist")}]
    assert gone["broken_links"] == [] and gone["unchanged"] == 6   # the card stays, so links to it still hold


def test_forgotten_cards_stay_forgotten_until_edited_and_a_lost_graph_write_is_redone(home, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(VAULT, vault)
    cli = cli_for(home)
    cli("import-memex", str(vault))
    engine = Engine.open(home)
    forgotten, lost = cid("use-lancedb"), cid("telegram-plugin")
    with engine.step() as graph:
        Journal(engine.layout.journal).append("card.forget", millis_now(), card={"id": forgotten})
        graph.delete_cards([forgotten, lost])   # ``lost``: journaled, but as if the graph write never happened
    report = cli("import-memex", str(vault), "--json").json()
    statuses = {card["slug"]: card["status"] for card in report["cards"]}
    assert statuses["use-lancedb"] == "unchanged" and statuses["telegram-plugin"] == "imported"
    assert forgotten not in memex_cards(home)
    assert (lost, cid("gateway-restart")) in wikilink_edges(home)
    assert (cid("gateway-restart"), lost) in wikilink_edges(home)   # the neighbour is rewritten to link it again
    assert statuses["gateway-restart"] == "updated"

    cold = cid("docker-memory-limit")
    vectors = engine.vectors()
    with engine.step() as graph:
        graph.set_heat_columns([cold], [0.1], ["COLD"])
    vectors.update_heat([{**vectors.heat_row(cold), "temperature": 0.1, "tier": "COLD"}])
    vectors.archive_vectors([cold])
    for note in (vault / "decisions" / "use-lancedb.md", vault / "docker-memory-limit.md"):
        note.write_text(note.read_text() + "\n补充：编辑过的卡片。\n")
    statuses = {c["slug"]: c["status"] for c in cli("import-memex", str(vault), "--json").json()["cards"]}
    assert statuses["use-lancedb"] == "imported" and statuses["docker-memory-limit"] == "updated"
    cards = memex_cards(home)
    assert forgotten in cards
    assert (cards[cold]["tier"], cards[cold]["temperature"]) == ("WARM", 0.1)   # an edit brings a COLD card back
    assert vectors.heat_row(cold)["tier"] == "WARM" and cold in vectors.vector_ids()


def test_bad_files_symlinks_and_slug_collisions_are_handled(home, tmp_path):
    vault, outside = tmp_path / "vault", tmp_path / "outside"
    (vault / "a").mkdir(parents=True)
    (vault / "b" / "c").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.md").write_text("---\ntitle: Outside the vault\n---\nmust not be imported\n")
    (vault / "good.md").write_text("---\ntitle: Good\n---\nLinks [[x]] and [[b/c/x|the deep one]].\n")
    (vault / "a" / "x.md").write_text("# X in a\n")
    (vault / "b" / "c" / "x.md").write_text("# X in b/c\n")
    (vault / "bad-yaml.md").write_text("---\ntitle: [unclosed\n---\nbody\n")
    (vault / "unclosed.md").write_text("---\ntitle: never closed\nbody\n")
    (vault / "latin1.md").write_bytes("---\ntitle: café\n---\n".encode("latin-1"))
    (vault / "loop").symlink_to(vault, target_is_directory=True)
    (vault / "escape").symlink_to(outside, target_is_directory=True)
    (vault / "secret-link.md").symlink_to(outside / "secret.md")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "hidden.md").write_text("# hidden\n")

    result = cli_for(home)("import-memex", str(vault), "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert {card["slug"] for card in report["cards"]} == {"good", "x", "b/c/x"}
    assert {card["file"] for card in report["cards"] if card["slug"] == "x"} == {"a/x.md"}
    unreadable = {item["file"]: item["reason"] for item in report["unreadable"]}
    assert set(unreadable) == {"bad-yaml.md", "unclosed.md", "latin1.md"}
    assert "not valid YAML" in unreadable["bad-yaml.md"] and "never closed" in unreadable["unclosed.md"]
    assert "UTF-8" in unreadable["latin1.md"]
    skipped = {item["file"]: item["reason"] for item in report["skipped"]}
    assert set(skipped) == {"loop", "escape", "secret-link.md"}
    assert "outside the vault" in skipped["escape"] and "inside the vault" in skipped["loop"]
    assert all("Outside" not in card["title"] for card in memex_cards(home).values())
    assert wikilink_edges(home) == {(cid("good"), cid("x")), (cid("good"), cid("b/c/x"))}


def test_a_missing_folder_is_a_usage_error(cli, tmp_path):
    result = cli("import-memex", str(tmp_path / "nope"), "--json")
    assert result.exit_code == 2 and result.json()["error"]["code"] == "not_found"
    assert "Traceback" not in result.stderr


def test_human_output_lists_counts_and_problems(imported):
    home, _ = imported
    text = cli_for(home)("import-memex", str(VAULT)).stdout
    assert "0 imported, 0 updated, 6 unchanged" in text
    assert "Broken links: 1" in text and "does-not-exist" in text


@pytest.mark.parametrize("value, expected", [
    ("2026-03-31", "2026-03-31T00:00:00+00:00"),
    ("2026-03-31T06:29:00Z", "2026-03-31T06:29:00+00:00"),
    ("2026-03-31 14:29+08:00", "2026-03-31T06:29:00+00:00"),
    (1774938540, "2026-03-31T06:29:00+00:00"),
    (1774938540000, "2026-03-31T06:29:00+00:00"),
])
def test_times_parse_from_yaml_iso_strings_and_epochs(value, expected):
    from datetime import datetime, timezone

    assert datetime.fromtimestamp(parse_time(value) / 1000, tz=timezone.utc).isoformat() == expected
    assert parse_time("last tuesday") is None and parse_time(True) is None


def test_type_rule_and_link_syntax():
    assert infer_type("Decision", None, [], "") == "decision"
    assert infer_type("note", "ops", ["bugs"], "") == "gotcha"
    assert infer_type(None, None, ["debugging"], "Quadratic forms") == "concept"   # whole words only
    assert infer_type(None, "踩坑记录", [], "") == "gotcha"
    assert infer_type(None, None, [], "部署步骤") == "pattern"
    body = ("See [[a]], [[b|label]], [[c#Heading|x]], [[d.md]], ![[e]], ![[pic.png]], [[a]], [[#local]]\n"
            "`[[inline-code]]`\n```\n[[fenced]]\n```\n")
    assert wikilink_targets(body) == ["a", "b", "c", "d", "e"]
    parsed = parse_note("---\ntags: 'one, two #three'\ncategory: ops\n---\nno heading\n")
    assert parsed.tags == ["ops", "one", "two", "three"] and parsed.title is None
    assert json.dumps(parsed.links) == "[]"
