"""Entities as nodes: what a card's text names (English, Chinese, identifiers), the aliases a text declares,
``MENTIONS`` written by distill and the same after a rebuild, recall from an entity, and the faces that show them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_for, write_session

from alaya_engine.engine import Engine
from alaya_engine.entities.read import read_card, read_text
from alaya_engine.foundations.domain import Card
from alaya_engine.foundations.entities import Mention, Reading, entity_key
from alaya_engine.graph.entities import plan_entities
from alaya_engine.schemas import json_schema


def card(card_id: str, title: str, content: str) -> Card:
    return Card(id=card_id, title=title, content=content, type="concept", tags=[], importance=0.5, source_sessions=[],
                created_at=1774938540000, updated_at=1774938540000)


def mentioned(text: str, speaker: str | None = None) -> dict[str, str]:
    return {mention.name: mention.kind for mention in read_text(text, speaker).mentions}


def test_hosts_files_services_commands_and_repositories_by_shape_and_context():
    found = mentioned("Our nginx on ops-01 returns 502 after deploys: see /etc/nginx/nginx.conf and "
                      "`proxy_read_timeout`. The reports-worker restarts with `systemctl restart reports-worker`; "
                      "pip install requests fixed the client. Code in github.com/acme/billing-api.")
    assert found["ops-01"] == "host" and found["nginx"] == "service" and found["reports-worker"] == "service"
    assert found["/etc/nginx/nginx.conf"] == "file" and found["systemctl restart"] == "command"
    assert found["requests"] == "library" and found["acme/billing-api"] == "repository"
    assert found["proxy_read_timeout"] == "other"
    assert "API" not in mentioned("The API returned an OOM error in JSON.")  # vocabulary, not things


def test_people_and_places_in_english_and_chinese():
    english = mentioned("Caroline went to the support group with Marco Rossi. They moved to Berlin in May.")
    assert english["Caroline"] == "person" and english["Marco Rossi"] == "person" and english["Berlin"] == "place"
    assert "May" not in english and "They" not in english
    chinese = mentioned("王峰昨天在北京和同事讨论了 reports-worker 的问题。")
    assert chinese["王峰"] == "person" and chinese["北京"] == "place" and chinese["reports-worker"] == "service"


def test_case_spacing_and_internal_domains_make_one_key():
    assert entity_key("reports-worker") == entity_key("Reports Worker") == entity_key("reports_worker")
    assert entity_key("ops-01.internal") == entity_key("OPS-01") == entity_key("ops-01")
    assert entity_key("api.example.com") != entity_key("api")  # a public domain is not folded without a text


def test_aliases_the_text_declares():
    english = read_text("I'm Wang Feng, you can call me Xiao Wang. The reports-worker (a.k.a. rw) crashed.")
    assert ("Xiao Wang", "Wang Feng") in english.aliases and ("rw", "reports-worker") in english.aliases
    chinese = read_text("我叫王峰，你可以叫我小王就行。")
    assert ("小王", "王峰") in chinese.aliases
    by_attribution = read_card(card("card-1", "Nickname", "Please call me Mel.\n\n"
                                    "(Melanie, talking with Caroline on 7 May 2023.)"))
    assert ("Mel", "Melanie") in by_attribution.aliases
    assert "Caroline" not in {mention.name for mention in by_attribution.mentions}  # the attribution line is form
    hosts = read_text("Checked web-03 and then web-03.example.com: same box.")
    assert ("web-03.example.com", "web-03") in hosts.aliases
    assert read_text("The user said: call me later.").aliases == ()  # no name to join, and 'later' is no name


def test_an_alias_declared_later_folds_the_entity_made_before_whatever_the_order():
    early = ("card-a", Reading((Mention("Xiao Wang", "person"),)))
    declaring = ("card-b", Reading((Mention("Wang Feng", "person"), Mention("Xiao Wang", "person")),
                                   (("Xiao Wang", "Wang Feng"),)))
    for order in ([early, declaring], [declaring, early]):
        entities, edges = plan_entities(order)
        assert [(entity.id, entity.name, entity.aliases) for entity in entities] == \
            [("ent-wangfeng", "Wang Feng", ["Xiao Wang"])]
        assert {(edge.card, edge.entity) for edge in edges} == {("card-a", "ent-wangfeng"),
                                                                 ("card-b", "ent-wangfeng")}


SESSIONS = {
    "session-disk": (1774938540000, [
        ("user", "The disk on ops-01 filled up last night and the backup job failed. Why?"),
        ("assistant", "The cause is the nginx access logs on ops-01: logrotate was disabled, so /var/log/nginx "
                      "grew to 40 GB."),
        ("user", "I decided to re-enable logrotate on every host from now on."),
    ]),
    "session-tz": (1775038540000, [
        ("user", "Which timezone do the cron jobs on ops-01.internal use after the reinstall?"),
        ("assistant", "ops-01.internal was reinstalled with Etc/UTC, so the crontab entries fire eight hours late. "
                      "The fix is CRON_TZ=Asia/Shanghai at the top of the crontab."),
        ("user", "I decided we always put CRON_TZ in every crontab from now on."),
    ]),
    "session-queue": (1775138540000, [
        ("user", "Should the billing-worker keep Redis for its job queue?"),
        ("assistant", "We picked Postgres for the job queue instead of Redis: one database less to run."),
        ("user", "I decided: Postgres with SKIP LOCKED for billing-worker jobs."),
    ]),
}


def distilled_store(home: Path, folder: Path) -> Engine:
    engine = Engine.open(home)
    files = [str(write_session(folder, session_id, timestamp=when,
                               turns=[{"role": role, "content": text, "timestamp": when + 1000 * position}
                                      for position, (role, text) in enumerate(turns)]))
             for session_id, (when, turns) in SESSIONS.items()]
    engine.ingest(files)
    engine.distill()
    return engine


def entity_state(engine: Engine) -> tuple[list, list]:
    with engine.step() as graph:
        entities = sorted((row[0], row[1], row[2], tuple(row[3])) for row in graph.query(
            "MATCH (e:Entity) RETURN e.id, e.name, e.kind, e.aliases"))
        mentions = sorted(tuple(row) for row in graph.query(
            "MATCH (c:Card)-[m:MENTIONS]->(e:Entity) RETURN c.id, e.id, m.name, m.kind"))
    return entities, mentions


@pytest.fixture
def store(home, tmp_path) -> Path:
    distilled_store(home, tmp_path / "in")
    return home


def cards_mentioning(engine: Engine, entity_id: str) -> set[str]:
    with engine.step() as graph:
        return set(graph.entity_cards(entity_id))


def test_distill_writes_mentions_and_a_rebuild_makes_the_same(store):
    engine = Engine.open(store)
    entities, mentions = entity_state(engine)
    ops = next(entity for entity in entities if entity[0] == "ent-ops01")
    assert ops[1:3] == ("ops-01", "host") and "ops-01.internal" in ops[3]
    with engine.step() as graph:
        cards = {card.id: card for card in graph.all_cards()}
    sessions_of_ops = {cards[card_id].source_sessions[0] for card_id in cards_mentioning(engine, "ent-ops01")}
    assert sessions_of_ops == {"session-disk", "session-tz"}  # one host, said two ways, in two sessions
    assert "ent-billingworker" in {entity[0] for entity in entities}
    result = cli_for(store)("rebuild", "--all", "--json")
    assert result.exit_code == 0, result.stderr
    assert entity_state(Engine.open(store)) == (entities, mentions)


def test_deleting_or_merging_cards_leaves_no_orphan_mentions_or_entities(store):
    engine = Engine.open(store)
    tz_cards = sorted(card_id for card_id in cards_mentioning(engine, "ent-ops01")
                      if card_id not in cards_mentioning(engine, "ent-nginx"))
    with engine.step() as graph:
        mentioners: dict[str, set[str]] = {}
        for card_id, entity in graph.query("MATCH (c:Card)-[:MENTIONS]->(e:Entity) RETURN c.id, e.id"):
            mentioners.setdefault(entity, set()).add(card_id)
        only_tz = {entity for entity, cards in mentioners.items() if cards <= set(tz_cards)}
        assert only_tz
        graph.delete_cards(tz_cards)
        left = {entity for entity, in graph.query("MATCH (e:Entity) RETURN e.id")}
        orphans = graph.query("MATCH (e:Entity) WHERE NOT EXISTS { MATCH (:Card)-[:MENTIONS]->(e) } RETURN e.id")
    assert not only_tz & left and orphans == []
    assert "ent-ops01" in left  # still mentioned by the disk session's cards
    disk = sorted(cards_mentioning(engine, "ent-nginx"))
    queue = sorted(cards_mentioning(engine, "ent-postgres"))
    merged = engine._merge_cards(disk[0], queue[0])
    with engine.step() as graph:
        assert graph.card_entities([merged["merged"]]) == {}
        kept = {entity["id"] for entity in graph.card_entities([merged["kept"]])[merged["kept"]]}
        orphans = graph.query("MATCH (e:Entity) WHERE NOT EXISTS { MATCH (:Card)-[:MENTIONS]->(e) } RETURN e.id")
    assert orphans == [] and kept


def test_recall_from_an_entity_reaches_a_card_search_alone_does_not(store):
    cli = cli_for(store)
    base = {"text": "why did the backup job fail when the disk filled up", "top_k": 1, "depth": 0,
            "include_sessions": False}
    plain = cli("recall", "--json", input=json.dumps(base)).json()
    engine = Engine.open(store)
    tz_cards = cards_mentioning(engine, "ent-ops01") - cards_mentioning(engine, "ent-nginx")
    assert tz_cards and not tz_cards & {node["card_id"] for node in plain["nodes"]}
    joined = cli("recall", "--json", input=json.dumps({**base, "entity": "OPS-01.internal"}))
    assert joined.exit_code == 0, joined.stderr
    document = joined.json()
    returned = {node["card_id"] for node in document["nodes"]}
    assert tz_cards <= returned and plain["nodes"][0]["card_id"] in returned
    assert document["query"]["entity"] == "OPS-01.internal" and document["goal"] == base["text"]
    ops = next(entity for entity in document["entities"] if entity["id"] == "ent-ops01")
    assert ops["name"] == "ops-01" and ops["kind"] == "host" and set(ops["cards"]) == returned & (
        tz_cards | cards_mentioning(engine, "ent-nginx"))
    validate(document)


def test_an_entity_alone_starts_from_its_cards_with_its_name_as_the_goal(store):
    cli = cli_for(store)
    result = cli("recall", "--entity", "Billing Worker", "--depth", "0", "--json")
    assert result.exit_code == 0, result.stderr
    document = result.json()
    engine = Engine.open(store)
    assert {node["card_id"] for node in document["nodes"]} == cards_mentioning(engine, "ent-billingworker")
    assert all(node["kind"] == "card" for node in document["nodes"]) and document["goal"] == "Billing Worker"
    human = cli("recall", "--entity", "billing_worker")
    assert human.exit_code == 0 and "Entities: " in human.stdout and "billing-worker (service" in human.stdout
    validate(document)


def test_an_unknown_entity_is_a_one_line_error_with_exit_2(store):
    cli = cli_for(store)
    result = cli("recall", "--entity", "no-such-host-99")
    assert result.exit_code == 2 and result.stderr.count("\n") == 1 and "no-such-host-99" in result.stderr
    as_json = cli("recall", "--entity", "no-such-host-99", "--json")
    assert as_json.exit_code == 2 and as_json.json()["error"]["code"] == "unknown_entity"
    both = cli("recall", "--json", input=json.dumps({"entity": "ops-01", "from_nodes": ["card-x"]}))
    assert both.exit_code == 2 and both.json()["error"]["code"] == "bad_query"


def test_trace_and_schema_show_entities(store):
    cli = cli_for(store)
    engine = Engine.open(store)
    card_id = sorted(cards_mentioning(engine, "ent-postgres"))[0]
    trace = cli("trace", card_id, "--json").json()
    names = {entity["name"]: entity["kind"] for entity in trace["entities"]}
    assert names["Postgres"] == "service" and "billing-worker" in names
    assert "=== Entities ===" in cli("trace", card_id).stdout
    schema = cli("schema", "--json").json()["node_types"]["entities"]
    with engine.step() as graph:
        assert schema["count"] == graph.entity_count() > 0 and schema["by_kind"]["host"] >= 1
        assert schema["mentions"] == graph.query("MATCH ()-[m:MENTIONS]->() RETURN count(m)")[0][0]
    assert "MENTIONS (Card → Entity)" in cli("schema").stdout
    found = engine.entity("OPS-01.internal")
    assert found["entity"]["id"] == "ent-ops01" and {card["card_id"] for card in found["cards"]} == \
        cards_mentioning(engine, "ent-ops01")


def test_an_older_store_gets_the_tables_and_its_cards_entities_when_opened(store):
    engine = Engine.open(store)
    before = entity_state(engine)
    with engine.step() as graph:
        graph.query("DROP TABLE MENTIONS")
        graph.query("DROP TABLE Entity")
        tables = {name for name, in graph.query("CALL show_tables() RETURN name")}
    assert not {"Entity", "MENTIONS"} & tables  # a store made before entities existed
    reopened = Engine.open(store)
    assert entity_state(reopened) == before
    assert cli_for(store)("verify", "--json").json()["ok"]


def test_cards_written_by_hand_get_their_entities_and_an_alias_folds_across_cards(home):
    engine = Engine.open(home)
    first = card("card-h1", "Xiao Wang owns the deploy checklist", "Ask Xiao Wang before a deploy.")
    second = card("card-h2", "Introductions", "I'm Wang Feng, you can call me Xiao Wang.")
    with engine.step() as graph:
        graph.upsert_card(first)
        assert graph.find_entity("xiao wang")["id"] == "ent-xiaowang"
        graph.upsert_card(second)
        assert graph.find_entity("Xiao Wang")["id"] == "ent-wangfeng"
        assert graph.card_entities(["card-h1"])["card-h1"][0]["name"] == "Wang Feng"
        assert graph.query("MATCH (e:Entity {id: 'ent-xiaowang'}) RETURN count(e)")[0][0] == 0
    engine.vectors().upsert_cards([first, second], np.eye(2, 512, dtype=np.float32))
    document = cli_for(home)("recall", "--entity", "xiao wang", "--json").json()
    assert {node["card_id"] for node in document["nodes"]} >= {"card-h1", "card-h2"}


def validate(document: dict) -> None:
    import jsonschema

    jsonschema.validate(document, json_schema("recall"))


def test_an_alias_declared_in_the_same_transaction_folds_what_an_earlier_card_of_it_mentions(home):
    """Entities of a transaction's cards are written when it commits, together: the fold must still apply."""
    engine = Engine.open(home)
    with engine.step() as graph:
        with graph.transaction():
            graph.upsert_card(card("card-t1", "Xiao Wang owns the deploy checklist", "Ask Xiao Wang first."))
            graph.upsert_card(card("card-t2", "Introductions", "I'm Wang Feng, you can call me Xiao Wang."))
        entities = graph.query("MATCH (e:Entity) RETURN e.id, e.name, e.aliases")
        assert ["ent-wangfeng", "Wang Feng", ["Xiao Wang"]] in entities
        assert graph.card_entities(["card-t1"])["card-t1"][0]["id"] == "ent-wangfeng"
        assert all(row[0] != "ent-xiaowang" for row in entities)


def test_a_name_written_in_both_scripts_side_by_side_is_one_entity_in_either(home):
    """"Chen Yu (陈屿)" says the two are one person: a Chinese card that says only 陈屿 is found by "Chen Yu". A
    bracket that does not spell the name ("Owen (欧文)", "the Big Bang (大爆炸)") declares nothing."""
    assert ("陈屿", "Chen Yu") in read_text("From Monday Chen Yu (陈屿) is the on-call lead.").aliases
    assert ("陈屿", "Chen Yu") in read_text("所以陈屿（Chen Yu）下周接 on-call。").aliases
    assert ("厦门", "Xiamen") in read_text("春节回 Xiamen（厦门）看爸妈。").aliases
    assert read_text("Owen (欧文) picks up Leo.").aliases == ()
    assert read_text("It started with the Big Bang (大爆炸).").aliases == ()
    engine = Engine.open(home)
    english = card("card-x1", "Chen Yu leads on-call", "From Monday Chen Yu (陈屿) owns alert-router and the rota.")
    chinese = card("card-x2", "陈屿下周休假", "陈屿下周休假，告警先找周岚。")
    with engine.step() as graph:
        graph.upsert_card(chinese)
        graph.upsert_card(english)
        mentioned = {entity["id"] for entity in graph.card_entities(["card-x2"])["card-x2"]}
        assert graph.find_entity("Chen Yu")["id"] in mentioned and graph.find_entity("陈屿")["id"] in mentioned
    engine.vectors().upsert_cards([english, chinese], np.eye(2, 512, dtype=np.float32))
    document = cli_for(home)("recall", "--entity", "Chen Yu", "--json").json()
    assert {node["card_id"] for node in document["nodes"]} >= {"card-x1", "card-x2"}
