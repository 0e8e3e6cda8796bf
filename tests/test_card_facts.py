"""Facts on cards: the attributes a card states, as ``{subject, attribute, value, valid_from}``, read offline from
ordinary sentences (English and Chinese), kept through L3, the graph, recall's JSON, trace, export and rebuild,
parsed from an LLM's answer, and added to a store made before cards had them."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import jsonschema
import networkx as nx
import yaml

import alaya
from alaya_engine.distill.offline.attributes import stated_facts
from alaya_engine.distill.offline.text.tags import named_things
from alaya_engine.distill.parse import parse_distillation
from alaya_engine.engine import Engine
from alaya_engine.schemas import json_schema

SAID = 1764547200000
"""1 December 2025, when the sentences below were said."""


def millis(year: int, month: int, day: int) -> int:
    return int(datetime(year, month, day, tzinfo=timezone.utc).timestamp() * 1000)


def triples(text: str, speaker: str = "The user") -> set[tuple[str, str, str, int]]:
    return {(fact.subject, fact.attribute, fact.value, fact.valid_from) for fact in stated_facts(text, SAID, speaker)}


def test_a_change_names_its_subject_attribute_new_value_and_the_date_it_takes_effect():
    assert triples("On 3 Dec 2025 we raised the read timeout of api-gateway from 30 s to 90 s.") == {
        ("api-gateway", "read timeout", "90 s", millis(2025, 12, 3))}
    assert triples("Set the retry limit of mailer-worker to 5.") == {("mailer-worker", "retry limit", "5", SAID)}
    assert triples("We bumped the api-gateway read timeout to 90s, reports go through now.") == {
        ("api-gateway", "read timeout", "90s", SAID)}, "a service named before its attribute owns it"
    assert triples("The fee of club-x is 5 from 31 February 2026. The motto of club-x is Onward since 2 March "
                   "1900.") == {("club-x", "fee", "5", SAID), ("club-x", "motto", "Onward", SAID)}  # no such day


def test_relation_verbs_possessives_and_choices_state_attributes():
    assert triples("From Monday 5 January 2026 Lucas attends Hillside Academy.") == {
        ("Lucas", "attends", "Hillside Academy", millis(2026, 1, 5))}
    assert triples("Since March Priya Nair owns the payments service.") == {("payments service", "owner", "Priya Nair",
                                                                              SAID)}
    assert triples("Grandma's dentist is Dr. Okafor.") == {("Grandma", "dentist", "Dr. Okafor", SAID)}
    assert triples("We will use Kafka with compaction instead of RabbitMQ for the event bus, because of replay.") == {
        ("event bus", "choice", "Kafka with compaction", SAID)}


def test_a_version_pin_is_one_fact_whether_said_as_an_action_or_a_state():
    assert triples("ok, we pin numpy to 1.26 until the extension is rebuilt.") == {("numpy", "pinned to", "1.26", SAID)}
    assert triples("numpy is now pinned to 2.1 in requirements.txt.") == {("numpy", "pinned to", "2.1", SAID)}
    assert triples("Django is pinned at 4.2 on every service.") == {("Django", "pinned to", "4.2", SAID)}
    assert triples("the extension is rebuilt against numpy 2 numpy is pinned to 2.1") == {
        ("numpy", "pinned to", "2.1", SAID)}, "the pinned thing is the word before the verb, not the words before it"


def test_settings_in_code_are_facts_of_the_thing_the_card_names():
    found = triples('For checkout-api the values file now says:\n```yaml\nreplicas: "4"\nmax_body_size: 20m\n```')
    assert found == {("checkout-api", "replicas", "4", SAID), ("checkout-api", "max_body_size", "20m", SAID)}


def test_a_nested_setting_belongs_to_its_outer_key_not_to_the_card_s_first_name():
    found = triples("On db-07 the [users] section of pgbouncer.ini gets reports_ro = pool_size=12.")
    assert found == {("reports_ro", "pool_size", "12", SAID)}


def test_chinese_changes_keep_their_subject_or_the_speakers_and_their_date():
    assert triples("从 2026 年 1 月 5 日起，王芳的降压药剂量改为每天 10 mg。") == {
        ("王芳", "降压药剂量", "每天 10 mg", millis(2026, 1, 5))}
    assert triples("闹钟时间改成6点半。", speaker="用户") == {("用户", "闹钟时间", "6点半", SAID)}
    assert triples("女儿的钢琴课改到每周五下午四点。") == {("女儿", "钢琴课", "每周五下午四点", SAID)}


def test_who_owns_a_thing_said_in_chinese_is_the_same_fact_as_in_english():
    """"X 由 Y 负责", "X 归 Y 管", "X 现在是 Y 接手", "X 负责人 Y": X's owner, the key "Y owns X" gives, so a later
    owner replaces an earlier one whichever language each was said in; a pronoun counts with the name after it."""
    english = stated_facts("Fatima Okafor owns the os-search OpenSearch cluster.", SAID, "The user")
    chinese = stated_facts("Fatima 调去做推荐系统了，os-search 从这周开始归我（嘉明）管。", SAID, "用户")
    assert [(fact.key(), fact.value) for fact in english] == [(("os-search", "owner"), "Fatima Okafor")]
    assert [(fact.key(), fact.value) for fact in chinese] == [(("os-search", "owner"), "嘉明")]
    assert triples("order-notify 服务由林晓雯负责。") == {("order-notify", "owner", "林晓雯", SAID)}
    assert triples("order-notify 现在是 Dmitri 接手了。") == {("order-notify", "owner", "Dmitri", SAID)}
    assert triples("收到：order-notify 负责人林晓雯，迁移目标 10 月底。") == {("order-notify", "owner", "林晓雯", SAID)}
    assert triples("支付网关是由王峰负责的。") == {("支付网关", "owner", "王峰", SAID)}
    for text in ("预算是两万管够。", "这件事由我来负责。", "项目负责人是张伟。", "这个项目由小李负责。"):
        assert triples(text) == set(), text


def test_a_chinese_change_of_a_setting_named_by_its_identifier_is_a_fact():
    assert triples("Xcode 工程里的 IPHONEOS_DEPLOYMENT_TARGET 也改成 14.0。", speaker="用户") == {
        ("用户", "iphoneos_deployment_target", "14.0", SAID)}

def test_a_title_or_a_day_is_no_name_and_no_stand_in_subject():
    """"Dr. Okonkwo" names Okonkwo (the capital after a title's full stop opens no sentence); neither the title nor
    a day ("Friday") stands in for a subject the sentence does not name."""
    text = "Follow-up with Dr. Okonkwo was Friday. She's raised the donepezil to 10 mg."
    assert named_things(text) == ["Okonkwo", "Friday"]
    assert not {subject for subject, *_ in triples(text)} & {"Dr", "Friday"}
    assert {subject for subject, *_ in triples("The follow-up was Friday. She's raised the donepezil to 10 mg.")} == {
        "The user"}

def test_a_unit_a_time_zone_or_a_compound_word_stands_in_for_no_subject():
    """Where a sentence names no subject, a unit ("GiB"), a time zone ("UTC") or an English compound ("knock-on")
    is not what the card is about: the speaker stands in, as when the card names nothing."""
    assert triples("Retention was raised to 300 GiB. The schedule stays at 02:00 UTC.") == {
        ("The user", "schedule", "02:00", SAID)}
    assert {subject for subject, *_ in triples("Knock-on effects to check. The stay is now 27 nights, a knock-on "
                                               "of the half-term move.")} == {"The user"}


def test_a_chinese_clause_before_or_after_de_is_no_subject_or_value_and_a_tagged_word_no_stand_in():
    """"X 的 Y 是 Z" is everywhere in Chinese: a clause ending in 的 ("两边用的", "测试用的") names no subject and a
    clause after 是 ("包含在包场价里的") is no value. A word jieba tags as a name (卡顿, "jank") is seldom what the
    card is about: a change said without a subject is the speaker's."""
    card = "卡顿从 35% 降到 1.3%，测试用的可能是高端机。Xcode 工程里的 IPHONEOS_DEPLOYMENT_TARGET 也改成 14.0。"
    assert triples(card, speaker="用户") == {("用户", "iphoneos_deployment_target", "14.0", SAID)}
    for text in ("两边用的不是同一个时区。", "销售经理小何口头说下雨的话雨棚是包含在包场价里的。",
                 "更好的做法是让运营上传时同时传一张 JPEG 预览图。"):
        assert triples(text, speaker="用户") == set(), text


def test_vague_sentences_state_no_fact():
    for text in ("The cause is a race between the two workers.", "ok, go with that", "everyone uses slack here.",
                 "It is fine now.", "The problem is the cache.", "那我们以后改成周末再说吧",
                 "timestamps like 2026-03-10T09:00:00+08:00 and hosts like db-1:5432 are fine"):
        assert triples(text) == set(), text


def test_an_llm_answer_gives_facts_dated_by_it_or_by_the_session():
    answer = json.dumps({"cards": [{"title": "t", "facts": [
        {"subject": "api-gateway", "attribute": "read timeout", "value": 90, "valid_from": "2025-12-03"},
        {"subject": "api-gateway", "attribute": "replicas", "value": "4"},
        {"subject": "api-gateway", "attribute": "workers", "value": 8, "valid_from": 1e30},
        {"subject": "api-gateway", "attribute": "region", "value": "eu", "valid_from": "0001-01-01"},
        {"subject": "api-gateway", "attribute": "owner", "value": "Ana", "valid_from": "next week"},
        {"subject": "", "attribute": "x", "value": "y"}, "not a fact",
        {"subject": ["a"], "attribute": "b", "value": "c"}]}]})
    facts = parse_distillation(answer, max_cards=5, said_at=SAID).cards[0].facts
    assert [(f.subject, f.attribute, f.value, f.valid_from) for f in facts] == [
        ("api-gateway", "read timeout", "90", millis(2025, 12, 3)), ("api-gateway", "replicas", "4", SAID),
        ("api-gateway", "workers", "8", SAID), ("api-gateway", "region", "eu", SAID),
        ("api-gateway", "owner", "Ana", SAID)]  # a time the graph cannot store is the session's


SESSION = {"id": "gateway-timeout", "timestamp": SAID, "turns": [
    {"role": "user", "content": "Since the deploy the reports page of billing-ui returns 504 after 30 seconds."},
    {"role": "assistant", "content": "The cause is the read timeout of api-gateway: it is 30 s, and the monthly "
                                     "report takes about 45 s to build."},
    {"role": "user", "content": "ok. I raised the read timeout of api-gateway from 30 s to 90 s, effective from "
                                "2 December 2025. Reports load again."}]}
EXPECTED = {"subject": "api-gateway", "attribute": "read timeout", "value": "90 s", "valid_from": millis(2025, 12, 2)}


def test_facts_travel_through_recall_trace_export_and_rebuild(cli, home, tmp_path):
    path = tmp_path / "session.json"
    path.write_text(json.dumps(SESSION))
    assert cli("ingest", str(path), "--distill").exit_code == 0
    document = cli("recall", "read timeout of api-gateway", "--json").json()
    jsonschema.validate(document, json_schema("recall"))
    card = next(node for node in document["nodes"] if node["facts"])
    assert card["facts"] == [EXPECTED]
    assert all(node["facts"] == [] for node in document["nodes"] if node["kind"] == "session_turns")
    parsed = alaya.RecallResult.from_json(document)  # what the Python API gives through the owner server
    assert [node.facts for node in parsed.nodes if node.card_id == card["card_id"]] == [[alaya.Fact(**EXPECTED)]]
    assert cli("trace", card["card_id"], "--json").json()["card"]["facts"] == [EXPECTED]
    assert "- api-gateway · read timeout = 90 s (since 2025-12-02)" in cli("trace", card["card_id"]).stdout

    assert cli("export", "--out", str(tmp_path / "out")).exit_code == 0
    graph = nx.read_graphml(tmp_path / "out" / "graph.graphml", force_multigraph=True)
    assert json.loads(graph.nodes[card["card_id"]]["facts"]) == [{**EXPECTED, "valid_from": "2025-12-02T00:00:00Z"}]
    note = next((tmp_path / "out" / "cards").rglob(f"*{card['card_id'].removeprefix('card-')}.md")).read_text()
    assert yaml.safe_load(note.split("---\n")[1])["facts"] == [{**EXPECTED, "valid_from": "2025-12-02T00:00:00Z"}]

    assert cli("rebuild", "--all").exit_code == 0
    assert cli("trace", card["card_id"], "--json").json()["card"]["facts"] == [EXPECTED]


def test_a_store_made_before_facts_gets_the_column_and_keeps_its_cards(cli, home, tmp_path):
    path = tmp_path / "session.json"
    path.write_text(json.dumps(SESSION))
    assert cli("ingest", str(path), "--distill").exit_code == 0
    engine = Engine.open(home)
    with engine.step() as graph:
        graph.query("ALTER TABLE Card DROP facts")
        cards = graph.card_count()
    del engine
    status = cli("status", "--json")
    assert status.exit_code == 0, status.stderr
    document = cli("recall", "read timeout of api-gateway", "--json").json()
    assert sum(node["kind"] == "card" for node in document["nodes"]) >= 1
    assert all(node["facts"] == [] for node in document["nodes"])
    with Engine.open(home).step() as graph:
        assert graph.card_count() == cards


def test_a_forgotten_card_comes_back_with_its_facts(cli, home, tmp_path):
    from alaya_engine.foundations.domain import millis_now
    from alaya_engine.introspect.temperature import DAY_MS

    path = tmp_path / "session.json"
    path.write_text(json.dumps(SESSION))
    assert cli("ingest", str(path), "--distill").exit_code == 0
    card_id = next(node["card_id"] for node in cli("recall", "read timeout of api-gateway", "--json").json()["nodes"]
                   if node["facts"])
    engine = Engine.open(home)
    report = engine.introspect(["cooldown", "forget"], now=millis_now() + 200 * DAY_MS)["steps"]["forget"]
    assert card_id in report["forgotten"]
    assert cli("restore", card_id, "--json").exit_code == 0
    assert cli("trace", card_id, "--json").json()["card"]["facts"] == [EXPECTED]


async def test_the_explorers_card_screen_lists_the_cards_facts(cli, home, tmp_path):
    from textual.widgets import Markdown

    from alaya_engine.server.backend import LocalBackend
    from alaya_tui.app import AlayaApp
    from alaya_tui.screens.card import CardScreen

    path = tmp_path / "session.json"
    path.write_text(json.dumps(SESSION))
    assert cli("ingest", str(path), "--distill").exit_code == 0
    card_id = next(node["card_id"] for node in cli("recall", "read timeout of api-gateway", "--json").json()["nodes"]
                   if node["facts"])
    app = AlayaApp(LocalBackend(home))
    async with app.run_test(size=(120, 36)) as pilot:
        await app.push_screen(CardScreen(app.backend, card_id))
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = app.screen.query_one("#card-content", Markdown).source
        assert "**Facts**" in shown and "- api-gateway · read timeout = 90 s (since 2025-12-02)" in shown


def test_cards_with_and_without_facts_are_written_together_and_a_card_can_lose_its_facts(home):
    """One statement writes a batch mixing cards that state facts and cards that state none (the binder needs the
    empty list as a parameter of its own); a card written again without facts has none."""
    from alaya_engine.foundations.domain import Card, Fact
    from alaya_engine.graph.store import facts_from_graph

    def card(identifier: str, facts: list[Fact]) -> Card:
        return Card(id=identifier, title=identifier, content="text", type="concept", tags=[], importance=0.5,
                    source_sessions=["s"], created_at=SAID, updated_at=SAID, facts=facts)

    fact = Fact("mailer-worker", "retry limit", "5", SAID)
    with Engine.open(home).step() as graph:
        graph.upsert_cards([card("a", []), card("b", [fact]), card("c", []), card("b", [fact, fact])])
        stored = graph.cards(["a", "b", "c"])
        assert [len(facts_from_graph(stored[name]["facts"])) for name in "abc"] == [0, 2, 0]
        graph.upsert_cards([card("b", [])])
        assert facts_from_graph(graph.cards(["b"])["b"]["facts"]) == []


def test_a_clause_opening_with_since_or_when_gives_no_attribute():
    """"Since Caroline was 17 or so" says when, not that something called "since Caroline" is 17."""
    from alaya_engine.distill.offline.attributes import stated_facts

    assert stated_facts("Since Nadia was 17 or so.", 0, "Nadia") == []
    assert stated_facts("When the cache was 2 GB it never evicted.", 0, "x") == []
    assert [(fact.subject, fact.attribute, fact.value) for fact in stated_facts(
        "The report-export proxy-read-timeout is now 300s.", 0, "x")] == [("report-export", "proxy-read-timeout",
                                                                          "300s")]



def test_a_diff_states_the_values_it_adds_not_the_ones_it_removes_nor_its_context():
    """The removed line no longer holds, the hunk header's context and the unchanged lines are what the file held:
    the card's fact is the value the diff sets."""
    from alaya_engine.distill.offline import OfflineDistiller
    from alaya_engine.foundations.domain import Session, Turn

    diff = ("Change to the same template as last time:\n\n```diff\n--- a/roles/pg/postgresql.conf.j2\n"
            "+++ b/roles/pg/postgresql.conf.j2\n@@ -88,7 +88,7 @@ max_wal_size = 16GB\n min_wal_size = 2GB\n"
            "-max_slot_wal_keep_size = 64GB\n+max_slot_wal_keep_size = 128GB\n archive_mode = on\n```")
    session = Session(id="wal", timestamp=SAID, channel="cli", turns=[
        Turn("user", "The WAL cap of 64GB on tsdb-ams-02 buys only 6 hours of backfill. Let's go 128GB."),
        Turn("assistant", diff)])
    facts = {(fact.attribute, fact.value) for card in OfflineDistiller().distill(session).cards
             for fact in card.facts or ()}
    assert ("max_slot_wal_keep_size", "128GB") in facts
    assert not {attribute for attribute, _ in facts} & {"max_wal_size", "min_wal_size", "-max_slot_wal_keep_size"}


def test_a_chinese_cards_stand_in_subject_is_named_in_chinese():
    """A setting given without a subject on a Chinese card is the speaker's, named as the card names them (用户),
    even when the speaker's own turn is mostly code and English ("又是 cache stampede …"): never "The user",
    English boilerplate on a Chinese card."""
    from alaya_engine.distill.offline import OfflineDistiller
    from alaya_engine.foundations.domain import Session, Turn

    session = Session(id="ttl", timestamp=SAID, channel="cli", turns=[
        Turn("user", "又是 cache stampede：/v1/summarize 的 key expire 之后 DB CPU 100%，p99 3s，怎么办？"),
        Turn("assistant", "方案：\n\n```python\nSOFT_TTL = 300\nHARD_TTL = SOFT_TTL + 600  # a fallback value\n"
                          "LOCK_MS = 15_000\n```"),
        Turn("user", "好，就这么办。")])
    facts = {(fact.subject, fact.attribute, fact.value) for card in OfflineDistiller().distill(session).cards
             for fact in card.facts or ()}
    assert ("用户", "soft_ttl", "300") in facts and not {subject for subject, *_ in facts} & {"The user"}, facts
