"""Knowledge that stays current: introspect links a later card that replaces an earlier one, recall puts the current
card first and marks the stale one, ``--as-of`` answers as the memory stood then, and two sources that disagree
become a contradiction for a person to decide. Real stores, real offline distiller and embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alaya_engine.engine import Engine
from alaya_engine.introspect.change_text import (
    card_text,
    conflict_anchor,
    plain,
    reading,
    replacement,
    said,
    statement,
)
from alaya_engine.introspect.supersede import Replacement, _replaced, _with_siblings
from alaya_engine.recall.currency import _reorder
from alaya_engine.recall.result import RecallNode

JAN, FEB = 1767312000000, 1769904000000  # 2026-01-02, 2026-02-01


def _session(folder: Path, session_id: str, timestamp: int, turns: list[tuple[str, str]]) -> Path:
    path = folder / f"{session_id}.json"
    path.write_text(json.dumps({"id": session_id, "timestamp": timestamp, "channel": "cli", "agent": "main",
                                "turns": [{"role": role, "content": content, "timestamp": timestamp + step * 60_000}
                                          for step, (role, content) in enumerate(turns)]}), encoding="utf-8")
    return path


def _sessions(folder: Path) -> list[str]:
    return [str(path) for path in (
        _session(folder, "s-timeout-old", JAN, [
            ("user", "Big CSV exports fail with a 504 after one minute on the report-export ingress."),
            ("assistant", "The ingress default proxy-read-timeout is 60 s. Set proxy-read-timeout to 120 s on the "
                          "report-export ingress."),
            ("user", "OK, I decided to set the report-export proxy-read-timeout to 120 s.")]),
        _session(folder, "s-timeout-new", FEB, [
            ("user", "The 504s on report-export are back: the largest export now takes 3.5 minutes."),
            ("assistant", "Then raise it: set proxy-read-timeout on the report-export ingress from 120 s to 300 s."),
            ("user", "Done, I decided to raise the report-export proxy-read-timeout from 120 s to 300 s.")]),
        _session(folder, "s-wiki", JAN + 3_600_000, [
            ("user", "Do we have backups of the search index?"),
            ("assistant", "Yes: ES takes a snapshot to S3 every day. The wiki says ES snapshots are kept for 30 days."),
            ("user", "Good, remember that: ES snapshots in S3 are kept for 30 days according to the wiki.")]),
        _session(folder, "s-lifecycle", FEB + 3_600_000, [
            ("user", "Turns out the S3 lifecycle rule deletes ES snapshots after 7 days, which contradicts the "
                     "wiki's 30 days."),
            ("assistant", "Noted: the S3 lifecycle rule deletes ES snapshots after 7 days; the wiki says 30 days.")]),
    )]


@pytest.fixture
def introspected(home: Path, tmp_path: Path) -> Engine:
    engine = Engine.open(home)
    engine.ingest(_sessions(tmp_path))
    engine.distill()
    engine.introspect(steps=["supersede"])
    return engine


def _card_of(engine: Engine, session_id: str, words: str) -> str:
    with engine.step() as graph:
        rows = graph.query("MATCH (c:Card)-[:EXTRACTED_FROM]->(s:Session {id: $id}) RETURN c.id, c.title, c.content",
                           {"id": session_id})
    matching = [card_id for card_id, title, content in rows if words in f"{title} {content}"]
    assert matching, f"no card of {session_id} says {words!r}: {rows}"
    return matching[0]


def test_a_sentence_that_replaces_a_value_is_told_from_one_that_does_not():
    earlier = statement(plain("Timeout", "Set the report-export proxy-read-timeout to 120 s."))
    assert replacement("We raised the report-export proxy-read-timeout from 120 s to 300 s.", earlier, False)[0] == 3
    assert replacement("The report-export proxy-read-timeout is now 300 s.", earlier, False) == (1, "300 s")
    assert replacement("The report-export proxy-read-timeout is 120 s, as before.", earlier, False)[0] == 0
    assert replacement("Exports of report-export are slow today.", earlier, False)[0] == 0
    assert replacement("The billing-api timeout is now 300 s.", earlier, False)[0] == 0  # another subject's seconds
    school = statement(plain("Maya", "Maya's at Elmwood Primary, Year 3."))
    assert replacement("She starts Monday 2 March, so we're moving her from Elmwood.", school, False) == (1, "elmwood")
    assert replacement("Maya's swim club meets at the leisure centre on Tuesdays and Thursdays, and we switched to a "
                       "new dentist.", school, False)[0] == 0  # the name is what the sentence is about, not replaced
    setup = statement(plain("Dev setup", "tariff-calc's README: poetry install --with dev, then poetry run pytest."))
    assert replacement("Ravi 把 tariff-calc 从 Poetry 换成 uv 了。", setup, False) == (1, "poetry")  # said in code
    assert replacement("Ravi 把 billing 从 Poetry 换成 uv 了。", setup, False)[0] == 0  # another project's tool
    dose = statement(plain("维生素D", "GP 让我每天吃 1000 IU 的维生素D。"))
    assert replacement("GP 说要加量：从今天起改成每天 2000 IU。", dose, False) == (1, "2000 iu")
    cache = statement(plain("Feed cache", "feeds-origin caches each feed for 5 minutes."))
    assert replacement("feeds-origin 的缓存现在是 2 分钟。", cache, False) == (1, "2 min")  # one unit, either language
    assert replacement("The feeds-origin cache is now 2 min.", cache, False) == (1, "2 min")
    english = statement(plain("Feed cache", "The feed cache is 2 minutes now, on all three origins."))
    reverted = "二是 feed 缓存又改回 5 分钟了：2 分钟那一周 CPU 一直在 90% 上下。"  # a Latin word is a plain one there
    assert replacement(reverted, english, False) == (3, "5 min")
    transfer = statement(plain("Wise", "每月 5 日通过 Wise 给妈妈的招商银行卡转 3000 元人民币。"))
    assert replacement("From November it's 5,000 yuan instead of 3,000.", transfer, False) == (1, "3000")
    assert replacement("Updated: 5,000 RMB on the 5th via Wise, from November.", transfer, False) == (1, "5000 cny")
    mortgage = statement(plain("Mortgage", "We chose Lothian Mutual's 5-year fix at 4.19%."))
    assert replacement("Updated: Lothian Mutual 的 2 年固定 3.99%，offer 已签。", mortgage, False) == (1, "3.99 %")
    assert replacement("CPU sits at 90% now.", mortgage, False)[0] == 0  # a percentage of something else
    wiki = said(plain("快照", "wiki 上写的是 ES 快照保留 30 天。"))  # contradictions read the card as a whole
    assert conflict_anchor("发现 ES 快照 7 天就删除，跟 wiki 上写的 30 天对不上。", wiki) == "wiki"
    ci = said(plain("uv", "tariff-calc 以后只用 uv，CI 里装依赖。"))
    assert conflict_anchor("CI 应该用 uv sync --locked：lock 和 pyproject 对不上就直接失败。", ci) is None  # a check
    # that fails on a mismatch, sharing only a two-letter name: no two sources disagree
    assert conflict_anchor("ES 快照每天做一次。", wiki) is None
    archive = said(plain("pg_wal", "pg_wal is at 411G; the last archive ran at 03:10."))
    timer = "The timer and the runbook disagree: the full backup runs Saturdays at 22:00."
    assert conflict_anchor(timer, archive) is None  # a time of day alone: any card of another time has one
    backups = said(plain("backups", "pgBackRest full backups, weekly."))
    assert conflict_anchor(timer, archive, backups, close=True) == "22:00 clock"
    assert conflict_anchor(timer, archive, backups) is None  # cards apart in meaning: names only


def test_introspect_links_the_replacement_and_recall_puts_it_first(introspected: Engine):
    new = _card_of(introspected, "s-timeout-new", "300 s")
    old = _card_of(introspected, "s-timeout-old", "120 s")
    with introspected.step() as graph:
        edges = {(a, relation, b) for a, relation, b in graph.query(
            "MATCH (a:Card)-[r:SUPERSEDES|SUPERSEDED_BY]->(b:Card) RETURN a.id, label(r), b.id")}
    assert edges == {(new, "SUPERSEDES", old), (old, "SUPERSEDED_BY", new)}
    nodes = introspected.recall({"text": "report-export proxy-read-timeout", "max_results": 6}).to_json()["nodes"]
    ranks = {node["card_id"]: rank for rank, node in enumerate(nodes)}
    assert ranks[new] < ranks[old]
    stale = nodes[ranks[old]]
    assert stale["superseded_by"] == [new] and stale["valid_to"] == FEB
    assert nodes[ranks[new]]["superseded_by"] == [] and nodes[ranks[new]]["valid_to"] is None
    old_window = next(node for node in nodes if node.get("session_id") == "s-timeout-old")
    assert old_window["superseded_by"] == [new]  # the raw turns the stale card came from are stale too
    assert ranks[new] < nodes.index(old_window)


def test_a_replacement_ranked_far_below_the_cut_is_not_brought_in_ahead_of_what_was_asked(introspected: Engine):
    """Asked about the old symptom, recall returns the stale units as they ranked, marked with their replacement;
    the current card, far below the cut, does not push one of them out. Asked about the setting, it comes first."""
    new = _card_of(introspected, "s-timeout-new", "300 s")
    nodes = introspected.recall({"text": "Big CSV exports fail with a 504 after one minute",
                                 "max_results": 2}).to_json()["nodes"]
    assert new not in {node.get("card_id") for node in nodes}
    assert [node["superseded_by"] for node in nodes] == [[new], [new]]
    first = introspected.recall({"text": "report-export proxy-read-timeout", "max_results": 1}).to_json()["nodes"]
    assert [node["card_id"] for node in first] == [new]


def test_a_stale_unit_stays_where_it_ranked_and_its_replacement_moves_up_to_just_before_it():
    """A card of several points that one update replaced still answers questions about its other points: it keeps
    its place, with the card that replaced it put just before it, instead of falling below everything between."""
    def node(name: str, replaced_by: list[str] | None = None) -> RecallNode:
        return RecallNode(card_id=name, title=name, content=name, score=0.5, h_distance=0.5, matched_rel=None,
                          rel_similarity=None, type="concept", tags=[], tier="HOT", depth=0, via=None,
                          source="search", concept_distance=0.5, relation_distance=0.0, time=None,
                          superseded_by=replaced_by or [])

    def names(nodes: list[RecallNode]) -> list[str]:
        return [n.card_id for n in nodes]

    nodes = [node("stale", ["new"]), node("a"), node("b"), node("new")]
    assert names(_reorder(nodes, 3, lambda _card: None)) == ["new", "stale", "a"]
    chain = [node("oldest", ["older"]), node("a"), node("older", ["new"]), node("new")]
    assert names(_reorder(chain, 4, lambda _card: None)) == ["new", "older", "oldest", "a"]
    placed = [node("new"), node("a"), node("stale", ["new"])]
    assert names(_reorder(placed, 3, lambda _card: None)) == ["new", "a", "stale"]  # its replacement came first
    brought = node("new")
    assert names(_reorder([node("stale", ["new"]), node("a")], 2,
                          lambda card: brought if card == "new" else None)) == ["new", "stale"]
    assert names(_reorder([node("stale", ["new"]), node("a")], 2, lambda _card: None)) == ["stale", "a"]


def test_as_of_answers_as_the_memory_stood_then(introspected: Engine):
    new = _card_of(introspected, "s-timeout-new", "300 s")
    old = _card_of(introspected, "s-timeout-old", "120 s")
    result = introspected.recall({"text": "report-export proxy-read-timeout", "as_of": "2026-01-15"}).to_json()
    returned = {node["card_id"]: node for node in result["nodes"]}
    assert new not in returned and not any(node.get("session_id") == "s-timeout-new" for node in result["nodes"])
    assert returned[old]["superseded_by"] == [] and returned[old]["valid_to"] is None
    assert result["query"]["as_of"] == 1768521599999  # the end of that day, UTC


def _supersede_edges(engine: Engine) -> list[int]:
    with engine.step() as graph:
        return [graph.query(f"MATCH ()-[r:{relation}]->() RETURN count(r)")[0][0]
                for relation in ("SUPERSEDES", "SUPERSEDED_BY")]


def test_introspect_and_distill_again_add_no_link_and_a_rebuild_keeps_them(introspected: Engine):
    again = introspected.introspect(steps=["supersede"])["steps"]["supersede"]
    assert again["examined"] == 0 and again["superseded"] == 0
    introspected.distill(force=True)
    assert introspected.introspect(steps=["supersede"])["steps"]["supersede"]["superseded"] == 0
    assert _supersede_edges(introspected) == [1, 1]
    home = introspected.layout.home
    Engine.open(home, for_rebuild=True).rebuild({"l2"})
    assert _supersede_edges(Engine.open(home)) == [1, 1]


def test_sources_that_disagree_become_a_contradiction_to_decide(introspected: Engine):
    newer = _card_of(introspected, "s-lifecycle", "7 days")
    older = _card_of(introspected, "s-wiki", "30 days")
    pending = introspected.review_list("pending")
    queue = json.loads((introspected.layout.review / "suggestions.json").read_text(encoding="utf-8"))
    found = [item for item in queue.values() if item["kind"] == "contradicts"]
    assert [item["subjects"] for item in found] == [[newer, older]]
    sides = found[0]["evidence"]["sides"]
    assert [side["session"] for side in sides] == ["s-lifecycle", "s-wiki"]
    assert sides[0]["said_at"] > sides[1]["said_at"]
    assert found[0]["id"] in json.dumps(pending)
    decided = introspected.review_decide([found[0]["id"]], approve=True)["decided"][0]
    assert "CONTRADICTS" in decided["changed"]
    with introspected.step() as graph:
        edges = graph.query("MATCH (a:Card)-[:CONTRADICTS]->(b:Card) RETURN a.id, b.id")
    assert sorted(edges) == sorted([[newer, older], [older, newer]])


def test_a_bad_as_of_is_refused_in_one_line(cli):
    result = cli("recall", "anything", "--as-of", "last tuesday", "--json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "bad_query"
    assert "as_of" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_wrong_replacement_is_unlinked_by_hand_and_stays_unlinked(introspected: Engine, cli):
    """``alaya unlink`` takes back a SUPERSEDES link with its inverse: the older card is current again, in recall,
    after the next introspect and after a rebuild from L3."""
    new = _card_of(introspected, "s-timeout-new", "300 s")
    old = _card_of(introspected, "s-timeout-old", "120 s")
    refused = cli("unlink", new, old, "--json")
    assert refused.exit_code == 2 and refused.json()["error"]["code"] == "missing_relation"
    removed = cli("unlink", new, old, "--rel", "supersedes", "--json")
    assert removed.exit_code == 0, removed.stderr
    assert {(link["source"], link["relation"], link["target"]) for link in removed.json()["links"]} == {
        (new, "SUPERSEDES", old), (old, "SUPERSEDED_BY", new)} and removed.json()["removed"]
    assert _supersede_edges(introspected) == [0, 0]
    nodes = introspected.recall({"text": "report-export proxy-read-timeout"}).to_json()["nodes"]
    assert next(node for node in nodes if node["card_id"] == old)["superseded_by"] == []
    again = cli("unlink", new, old, "--rel", "SUPERSEDES")
    assert again.exit_code == 0 and "Not linked" in again.stdout
    assert introspected.introspect(steps=["supersede"])["steps"]["supersede"]["superseded"] == 0
    Engine.open(introspected.layout.home, for_rebuild=True).rebuild({"l2"})
    assert _supersede_edges(Engine.open(introspected.layout.home)) == [0, 0]


def test_what_a_sentence_replaces_is_the_value_a_cue_names_not_the_subject_that_changes():
    """A name counts as replaced where a cue names the old value ("from Elmwood", "drop Redis", "不再", "从 X 换成");
    the subject of a move ("Harbor Dental moved to 14 Quay Street") is what the sentence is about, and a card that
    merely names it still holds. A number counts only in the clause that holds the change cue."""
    clinic = statement(plain("Dentist", "My dentist is Dr. Okafor at Harbor Dental, on Mill Lane."))
    assert replacement("Heads up: Harbor Dental moved to 14 Quay Street this week.", clinic, False)[0] == 0
    moved = replacement("Heads up: Harbor Dental moved from Mill Lane to 14 Quay Street.", clinic, False)
    assert moved[0] == 1 and moved[1] in "mill lane"
    jobs = statement(plain("Jobs", "All of shipnote's background jobs go through RQ on the Redis at REDIS_URL."))
    assert replacement("We want to drop shipnote's Redis: jobs go through Postgres.", jobs, False) == (1, "redis")
    assert replacement("shipnote 的后台任务从 Redis 换成 Postgres 了。", jobs, False) == (1, "redis")
    assert replacement("Redis moved to a bigger instance last week.", jobs, False)[0] == 0
    fixtures = statement(plain("测试", "order-notify 的测试改用 freezegun 冻结到具体时刻。"))
    assert replacement("他已经把测试里的 freezegun 全换成 time-machine 了。", fixtures, False) == (1, "freezegun")
    assert replacement("The old Redis was replaced by Postgres for the jobs.", jobs, False) == (1, "redis")
    assert replacement("We don't use Redis anymore.", jobs, False) == (1, "redis")
    backup = statement(plain("备份", "cache-sess-1 的备份每天 03:00 跑。"))
    assert replacement("3 月 12 日凌晨 02:00（北京时间），要把 cache-sess-1 迁到新机器上。", backup, False)[0] == 0
    assert replacement("cache-sess-1 的备份从今天起改成每天 04:00 跑。", backup, False) == (2, "04:00")


def test_a_change_not_made_an_aside_and_from_now_on_replace_nothing():
    """A change said not to be made ("Not doing:", "decided not to", "先不") replaces nothing; a number after a dash
    is in a clause of its own ("raised it — a 300 s request"); "from now on" is when, not a replaced value "from X"."""
    partitions = statement(plain("Consumer lag", "product-events has 12 partitions, keyed by tenant_id."))
    assert replacement("product-events 的 partition 从 12 加到 24。", partitions, False)[0] == 3
    assert replacement("Not doing: 把 product-events 的 partition 从 12 加到 24。", partitions, False)[0] == 0
    assert replacement("We decided not to raise product-events from 12 to 24 partitions.", partitions, False)[0] == 0
    assert replacement("先不把 product-events 的 partition 从 12 加到 24。", partitions, False)[0] == 0
    limit = statement(plain("ALB", "The ALB idle timeout of orders-api is 60 s."))
    assert replacement("orders-api's ALB idle timeout was raised to 400 s.", limit, False) == (2, "400 s")
    assert replacement("Someone already raised the orders-api ALB limit — it won't cut a 300 s request.", limit,
                       False)[0] == 0
    owners = statement(plain("DAG owners", "Six DAGs have owner=airflow in default_args."))
    assert replacement("From now on every DAG declares its owner in default_args.", owners, False)[0] == 0
    retries = statement(plain("Retries", "mailer-worker retries a send 3 times."))
    assert replacement("From now on mailer-worker retries a send 5 times.", retries, False) == (1, "5 times")

def test_a_fact_of_the_speaker_replaces_an_earlier_line_giving_its_attribute_another_number():
    """A fact whose sentence named no subject stands on its speaker ("The user"), whom an earlier card by the same
    person seldom names, or on a person the card names elsewhere: a line of it saying the attribute with another
    number of the value's unit is replaced (the change said, a cue); the same number, no number, another attribute,
    a subject its own sentence names or an identifier that the line does not say are not."""
    def replaced(facts: dict, earlier: str, line: str = "She's raised the donepezil to 10 mg and moved it to the "
                                                           "morning.") -> tuple:
        card = {"title": "Pills", "content": earlier, "facts": []}
        return _replaced(facts, [line], card, lambda: statement(card_text(card)), 0.5, {})

    mine = {("the user", "donepezil"): "10 mg"}
    assert replaced(mine, "here goes: - donepezil 5 mg — he takes it at bedtime - atorvastatin 20 mg") == (
        1, "the user · donepezil", "donepezil = 10 mg")
    assert replaced({("用户", "donepezil"): "10 mg"}, "donepezil 5 mg at bedtime")[0] == 1
    assert replaced(mine, "donepezil 10 mg at bedtime")[0] == 0
    assert replaced(mine, "donepezil at bedtime, with water")[0] == 0
    assert replaced(mine, "the atorvastatin is 20 mg")[0] == 0
    assert replaced({("okonkwo", "donepezil"): "10 mg"}, "donepezil 5 mg — he takes it at bedtime")[0] == 1
    assert replaced({("dad", "donepezil"): "10 mg"}, "donepezil 5 mg — he takes it at bedtime",
                    "Dad's donepezil is raised to 10 mg.")[0] == 0
    assert replaced({("care-plan", "donepezil"): "10 mg"}, "donepezil 5 mg — he takes it at bedtime")[0] == 0

def test_a_sentence_saying_a_change_gives_an_earlier_cards_fact_another_value_in_its_unit():
    """The other way round: the earlier card has the fact (york · completion = Friday 22 May), the new one only a
    sentence saying something changed, its attribute and another day. The same day, another unit, no change said
    or another identifier named are no replacement; a subject left unsaid is (a chat seldom repeats it)."""
    from datetime import datetime

    def replaced(line: str, subject: str = "york", value: str = "Friday 22 May") -> tuple:
        card = {"title": "Moving", "content": "Completion is Friday 22 May.", "facts": [
            {"subject": subject, "attribute": "completion", "value": value, "valid_from": datetime(2026, 4, 1)}]}
        cued = [line] if reading(line) is not None else []
        return _replaced({}, cued, card, lambda: statement(card_text(card)), 0.45, {})

    slipped = "The buyer had a mortgage delay, so completion has slipped a week: we're now moving on Friday 29 May."
    assert replaced(slipped) == (1, "york · completion", slipped)
    assert replaced(slipped.replace("29", "22"))[0] == 0
    assert replaced("Completion is now set, the removal van costs £2,100.")[0] == 0
    assert replaced("So completion happens on Friday 29 May.")[0] == 0  # no change said
    assert replaced("Completion of deploy-queue is now at 14:00.", "report-export", "13:00")[0] == 0
    assert replaced("Completion of report-export is now at 14:00.", "report-export", "13:00")[0] == 1


def test_the_words_around_a_number_say_what_a_sentence_naming_nothing_changes():
    """A sentence that names nothing ("it's 12.5 mg of metoprolol succinate now"), or whose name only the earlier
    card says (an answer "对，3 个副本" under a question about imgproxy), tells by the words around its number which
    earlier value it replaces: the two words before it, the word after "<unit> of", the characters after a Chinese
    measure word. Fractions are numbers ("1¼ cups"), a plural unit is the singular's."""
    kibble = statement("1 cup of kibble per day (½ cup morning, ½ cup evening), no cheese.")
    assert replacement("13.1 kg, and 1¼ cups of kibble a day from now on.", kibble, False) == (1, "1.25 cups")
    assert replacement("13.1 kg, and 1 cup of kibble a day from now on.", kibble, False)[0] == 0
    assert said("13.1 kg, and 1¼ cups of kibble").quantities == {("kg", "13.1"), ("cup", "1.25")}  # no version "and"
    assert replacement("13.1 kg, and 2 cups of water a day from now on.", kibble, False)[0] == 0
    pills = statement("Walter takes metoprolol succinate 25 mg every morning. Donepezil 5 mg at bedtime.")
    assert replacement("Updated: metoprolol succinate 12.5 mg each morning.", pills, False) == (1, "12.5 mg")
    assert replacement("Updated: amlodipine besylate 12.5 mg each morning.", pills, False)[0] == 0
    replicas = statement("imgproxy 现在几个副本？对，3 个副本，每台 edge-img 一个容器。")
    assert replacement("imgproxy 已经扩到 5 个副本了。", replicas, False) == (1, "5 个")
    assert replacement("search-indexer 已经扩到 5 个副本了。", replicas, False)[0] == 0
    assert replacement("imgproxy 已经扩到 5 台机器了。", replicas, False)[0] == 0


def test_a_number_without_a_unit_is_named_by_the_two_words_before_it():
    """"bump the default concurrency to 8" against "keep the default concurrency at 4": a number with no unit after
    two words and a small word (to, at, is, of, =) is a quantity whose unit is those words; other words, a common
    word among them, or a unit after the number are not."""
    kept = statement("keep the default concurrency at 4 for now though, people run it on tiny CI runners.")
    assert replacement("bump the default concurrency to 8", kept, False) == (1, "default concurrency 8")
    assert replacement("bump the upload concurrency to 8", kept, False)[0] == 0
    assert replacement("bump the default concurrency to 4", kept, False)[0] == 0
    assert ("@default concurrency", "8") in said("bump the default concurrency to 8").quantities
    assert not any(unit.startswith("@") for unit, _ in said("the chunk size is 16 MiB, and set it to 8").quantities)


def test_a_sum_after_a_currency_sign_is_in_that_currency():
    """"£2,100" is 2,100 pounds, as "2,100 GBP" is: it replaces "£1,850" of the same booking, not a sum in euros;
    "$300 now" was read as 300 of a unit named "now"."""
    booked = statement("Rachel booked Hartley Removals at £1,850 including packing.")
    assert replacement("The Hartley Removals quote was raised to £2,100 for the piano.", booked, False) == (
        1, "2100 gbp")
    assert replacement("The Hartley Removals quote was raised to 2,100 euros for the piano.", booked, False)[0] == 0
    assert said("it costs $300 now, US$ 1,200 a year").quantities == {("usd", "300"), ("usd", "1200")}
    assert said("a 10 Gbps link, 2 cups").quantities == {("gbps", "10"), ("cup", "2")}
    assert said("4 drops, then 1 drop").quantities == {("drop", "4"), ("drop", "1")}  # a plural, not a rate


def test_a_conflict_sentence_that_points_back_shares_its_name_through_its_card():
    runbook = said(plain("runbook", "按 runbook 的说法，重启 search-indexer 是安全的。"))
    card = said(plain("reindex", "runbook 那条说的是增量消费。全量 reindex 没有 checkpoint。"))
    assert conflict_anchor("这次就是反例，并不成立。", runbook) is None  # the sentence alone names nothing of it
    assert conflict_anchor("这次就是反例，并不成立。", runbook, card) == "runbook"
    assert conflict_anchor("全量 reindex 没有 checkpoint。", runbook, card) is None  # no cue of disagreement
    assert conflict_anchor("跟 Lena 说的对不上。", runbook, card) is None  # names its own source: not the card's
    assert conflict_anchor("跟 Lena 说的对不上。", runbook, card, close=True) == "runbook"


def test_disagreement_is_said_in_many_plain_ways_and_a_failed_check_is_none():
    from alaya_engine.introspect.change_text import CONFLICT

    for said_so in ("The two numbers don't line up.", "The task durations say otherwise: 1h50 a run.",
                    "haproxy tells a very different story.", "I can't reconcile the panel with the logs.",
                    "One of them is wrong, I'll ask Dmitri.", "The contract is at odds with what the manager said.",
                    "两个人的说法确实不一样。", "合同条款与口头承诺不相符。", "跟 wiki 上写的 30 天对不上。"):
        assert CONFLICT.search(said_so), said_so
    for plain_text in ("这个包不符合要求，CI 直接失败。", "The dashboard lines up with the logs.",
                       "Different story for the staging cluster: it has no replicas."):
        assert not CONFLICT.search(plain_text), plain_text


def test_a_disagreement_is_with_the_earlier_card_that_gives_the_value_disagreed_about():
    """Of two earlier cards a disagreement shares something with, the one giving the value it is about (6 weeks),
    not the closer one that only names the same clinic."""
    from alaya_engine.introspect.supersede import SUPERSEDE_FLOOR, _judge

    cards = {
        "doctor": {"title": "术后不能开车", "content": "孙医生说术后 6 周内不能开车。", "facts": None},
        "clinic": {"title": "康复训练", "content": "孙医生推荐了他们医院的康复科，每周两次康复训练。", "facts": None},
        "therapist": {"title": "康复师说 4 周就能开车",
                      "content": "康复师说她恢复得快，术后 4 周就可以开车了。"
                                 "两个人的说法确实不一样：康复师说 4 周，孙医生说 6 周。", "facts": None},
    }
    _, disagreements = _judge({"therapist": [(SUPERSEDE_FLOOR + 0.3, "clinic"), (SUPERSEDE_FLOOR + 0.2, "doctor")]},
                              cards)
    assert [(item.new, item.old, item.anchor) for item in disagreements] == [("therapist", "doctor", "6 w")]



def test_a_disagreement_that_names_both_its_sides_is_with_no_earlier_card_sharing_only_a_name():
    """"OT says stop, and Lauren believes short trips are fine — those two views don't line up": both sides are in
    the new card's own session; an earlier card about Lauren's visits shares a name with it, no value, and is not
    close in meaning. A value both give, an identifier both name or closeness still tie a disagreement to an
    earlier card."""
    from alaya_engine.introspect.supersede import CLOSE, SUPERSEDE_FLOOR, _judge

    cards = {
        "visits": {"title": "Visits on Tuesdays and Thursdays", "facts": None,
                   "content": "On Tuesdays and Thursdays Lauren checks Dad's pills."},
        "driving": {"title": "Ask Dr. Okonkwo to talk to the family together", "facts": None,
                    "content": "The OT report says Dad should stop driving. OT says stop, and Lauren believes short "
                               "local trips are fine — those two views don't line up."},
        "pool": {"title": "background_pool_size 是 8", "facts": None,
                 "content": "何俊峰说 background_pool_size 是 8。"},
        "nodes": {"title": "三台实际都是 16", "facts": None,
                  "content": "三台实际都是 16，background_pool_size 跟俊峰说的对不上。"},
    }
    assert _judge({"driving": [(SUPERSEDE_FLOOR + 0.01, "visits")]}, cards)[1] == []
    assert [(item.new, item.old) for item in _judge({"driving": [(CLOSE, "visits")]}, cards)[1]] == [
        ("driving", "visits")]
    assert [(item.new, item.old, item.anchor) for item in _judge(
        {"nodes": [(SUPERSEDE_FLOOR + 0.01, "pool")]}, cards)[1]] == [("nodes", "pool", "background_pool_size")]

def test_a_session_that_quotes_one_source_then_finds_another_that_disagrees_asks_a_person(home: Path, tmp_path: Path):
    """Both sides in one session, on two of its cards: the card saying they disagree and the earlier card giving the
    value it disagrees with (60 seconds) become a contradiction to decide; a session's cards are never compared
    with each other for anything else."""
    turns = [
        ("user", "pay-worker-07 is getting 401s from auth-gw since this morning; its clock drifted by about 40 "
                 "seconds."),
        ("assistant", "Clock drift is the usual suspect for JWT 401s. What does auth-gw tolerate?"),
        ("user", "Our runbook says auth-gw tolerates 60 seconds of clock skew on JWTs, so 40 should be fine."),
        ("assistant", "Then 40 s of drift would not explain it. Let's look at chrony on pay-worker-07 first."),
        ("tool", "$ chronyc tracking\nSystem time     : 41.2 seconds slow of NTP time\n"
                 "Leap status     : Not synchronised"),
        ("assistant", "chrony on pay-worker-07 is not synchronised: no reachable NTP source since the firewall change "
                      "on Monday. Open udp/123 to ntp-01 and restart chronyd."),
        ("user", "Done, chrony is synced again. But I still want to know why 40 s broke auth."),
        ("tool", "$ kubectl get configmap auth-gw-config -o yaml | grep -i leeway\n  JWT_CLOCK_LEEWAY: 30s"),
        ("assistant", "The two sources disagree: the runbook says 60 s, but the live auth-gw config says "
                      "JWT_CLOCK_LEEWAY 30s, and the 401s started when the drift passed 30 s."),
        ("user", "OK, I'll ask the auth-gw owners which one is intended."),
    ]
    engine = Engine.open(home)
    engine.ingest([str(_session(tmp_path, "s-skew", FEB, turns))])
    engine.distill()
    assert engine.introspect(steps=["supersede"])["steps"]["supersede"]["contradictions"] == 1
    queue = json.loads((engine.layout.review / "suggestions.json").read_text(encoding="utf-8"))
    (found,) = queue.values()
    with engine.step() as graph:
        cards = graph.cards(found["subjects"])
    saying, quoted = (cards[card_id] for card_id in found["subjects"])
    assert "disagree" in saying["content"] and "60 seconds" in quoted["content"] + quoted["title"]
    assert found["evidence"]["anchor"] == "60 s"
    assert [side["session"] for side in found["evidence"]["sides"]] == ["s-skew", "s-skew"]


def test_a_fact_replaces_an_earlier_card_that_says_its_subject_and_attribute_in_words(home: Path, tmp_path: Path):
    """The earlier side of an update is often text only: "page Marco — he owns the databases" is replaced by a later
    card whose fact is databases · owner = Chen Jing. A later card about the clinic an earlier card names (it moved)
    replaces nothing: who the dentist is still holds."""
    engine = Engine.open(home)
    engine.ingest([str(path) for path in (
        _session(tmp_path, "s-owner-old", JAN, [
            ("user", "The orders-api pool on pg-main-02 keeps filling up during the month-end close."),
            ("assistant", "Then add an escalation rule to the runbook for the orders pgbouncer pool."),
            ("user", "One more thing for the runbook: if cl_waiting on the orders pool goes above 50 for 5 minutes, "
                     "page Marco — he owns the databases.")]),
        _session(tmp_path, "s-owner-new", FEB, [
            ("user", "Quick update on the orders pgbouncer escalation."),
            ("user", "Marco moved to the data platform team last week. Chen Jing owns the databases now, so anything "
                     "DB goes to her: pages, approvals, all of it."),
            ("assistant", "Noted: the runbook escalation for cl_waiting above 50 on the orders pool now pages Chen "
                          "Jing.")]),
        _session(tmp_path, "s-clinic-old", JAN, [
            ("user", "I cracked a filling. My dentist is Dr. Okafor at Harbor Dental, on Mill Lane."),
            ("assistant", "I'll draft an email to Harbor Dental on Mill Lane asking Dr. Okafor for an urgent "
                          "appointment.")]),
        _session(tmp_path, "s-clinic-new", FEB, [
            ("user", "Heads up: Harbor Dental moved to 14 Quay Street this week, the dentist texted me."),
            ("assistant", "Got it: Harbor Dental moved to 14 Quay Street.")]),
    )])
    engine.distill()
    engine.introspect(steps=["supersede"])
    new = _card_of(engine, "s-owner-new", "Chen Jing owns the databases")
    old = _card_of(engine, "s-owner-old", "page Marco")
    with engine.step() as graph:
        links = graph.query("MATCH (a:Card)-[r:SUPERSEDES]->(b:Card) RETURN a.id, b.id, r.reason")
    assert [(a, b) for a, b, _ in links] == [(new, old)]
    assert links[0][2] == "introspect: databases · owner"


def test_a_bare_now_needs_two_names_and_a_plain_word_counts_after_a_cue_that_names_it_replaced():
    """In chat, every card names its speaker: "since our last chat, Caroline…" shares one name with any card about
    Caroline, and is not an update. A plain word counts where "no more" / "no longer" / "不用…了" names it as the old
    value and the earlier card says it, and after "stop" when the sentence says what replaces it; not after "used
    to" (a verb follows), "instead of" (as often an alternative) nor in "no more than" (a bound)."""
    group = statement(plain("Caroline", "Last week, Caroline went to the LGBTQ support group and talked about "
                                        "counseling."))
    assert replacement("Since our last chat, Caroline has been looking into counseling.", group, True)[0] == 0
    assert replacement("Since our last chat, Caroline now runs the LGBTQ support group.", group, True)[0] == 1
    assert replacement("Since our last chat, Caroline now runs the LGBTQ support group.", group, False)[0] == 0
    pin = statement(plain("pin", "Until FastAPI and ledgerkit ship v2 support, pin pydantic below 2 in "
                                 "requirements.in."))
    assert replacement("Note: we're on pydantic v2 now, no more pin.", pin, False) == (1, "pin")
    suite = statement(plain("suite", "The suite takes 12 minutes and we love it."))
    assert replacement("Tests take no more than 5 minutes now.", suite, False)[0] == 0
    assert replacement("We used to love the suite, no more.", suite, False)[0] == 0
    role = statement(plain("role", "Set idle_in_transaction_session_timeout per role for the app user."))
    assert replacement("We set it at the database level instead of per role.", role, False)[0] == 0  # an alternative
    twice = statement(plain("BP", "Measure twice a day, around 7am and 9pm, two readings each time."))
    assert replacement("医生说不用 twice a day 了，改成每天早上一次。", twice, False) == (1, "twice")
    assert replacement("不用担心，twice a day 就够了。", twice, False)[0] == 0  # no need to worry: no change
    dose = statement(plain("BP", "Dr. Forsyth started her on amlodipine once every morning."))
    assert replacement("所以换药了：stop amlodipine，改成 perindopril 4 mg。", dose, False) == (1, "amlodipine")
    assert replacement("Stop amlodipine the morning before the scan.", dose, False)[0] == 0  # nothing replaces it


def test_the_cards_of_the_replaced_cards_turns_that_say_its_anchor_are_replaced_with_it():
    """One piece of knowledge is often on two cards of the same turns: the pin on the decision card and on the card
    of the patch beside it. They go with the replaced card when they say what showed the replacement."""
    best = Replacement("new", "until", 0.49, "pin", "no more pin", 1)
    cards = {"until": {"title": "Until FastAPI ships v2", "content": "pin pydantic below 2"},
             "tests-green": {"title": "tests green", "content": "pip pulls pydantic 2; pin pydantic below 2 for now"},
             "rounding": {"title": "rounding", "content": "Money.round() defaults to ROUND_HALF_UP"},
             "earlier": {"title": "pin", "content": "pin the ledgerkit version"},
             "new": {"title": "no more pin", "content": "we're on pydantic v2 now, no more pin"}}
    turns = {"until": {("s1", 15), ("s1", 16)}, "tests-green": {("s1", 12), ("s1", 15)},
             "rounding": {("s1", 15)}, "earlier": {("s1", 3)}, "new": {("s2", 1)}}
    found = _with_siblings([best], [["until", "tests-green", "rounding", "earlier"]], cards, turns.__getitem__,
                           lambda new, old: {"tests-green": 0.33, "rounding": 0.4}.get(old, 0.5))
    assert [(item.new, item.old, item.anchor) for item in found] == [("new", "until", "pin"),
                                                                     ("new", "tests-green", "pin")]
    assert found[1].similarity == 0.33


def test_a_sentence_two_new_cards_repeat_replaces_its_card_once():
    """An episode's cards can share a sentence (a proposal, a confirmed answer): the earlier card it replaces gets
    one link, from the card that replaces it most plainly, then the closest; other sentences keep their links."""
    from alaya_engine.introspect.supersede import _one_per_sentence

    said = "jobs are now procrastinate on the main Postgres; no Redis"
    found = [Replacement("new-a", "old", 0.61, "Redis", said), Replacement("new-b", "old", 0.70, "Redis", said),
             Replacement("new-c", "old", 0.50, "Redis", said, strength=2),
             Replacement("new-a", "other", 0.60, "300 s", "the timeout is 300 s now")]
    assert [(kept.new, kept.old) for kept in _one_per_sentence(found)] == [("new-c", "old"), ("new-a", "other")]
    assert [(kept.new, kept.old) for kept in _one_per_sentence(found[:2])] == [("new-b", "old")]


def test_a_version_pin_moved_and_a_queue_migrated_replace_their_earlier_cards(home: Path, tmp_path: Path):
    """A pin said as an action and later as a state is one fact (numpy · pinned to); a product name in mixed
    case (RabbitMQ) is a name, so "从 RabbitMQ 迁到 Kafka" names the value it replaces."""
    engine = Engine.open(home)
    engine.ingest([str(path) for path in (
        _session(tmp_path, "s-pin-old", JAN, [
            ("user", "CI fails on the new numpy release."),
            ("assistant", "Our compiled extension was built against the numpy 1.x ABI; numpy 2 breaks it."),
            ("user", "ok, we pin numpy to 1.26 until the extension is rebuilt.")]),
        _session(tmp_path, "s-pin-new", FEB, [
            ("user", "The extension wheels are rebuilt against numpy 2."),
            ("user", "numpy is now pinned to 2.1 in requirements.txt."),
            ("assistant", "Great, CI is green on 2.1.")]),
        _session(tmp_path, "s-queue-old", JAN, [
            ("user", "我们订单服务的消息队列用的是 RabbitMQ，最近偶尔有消息堆积。"),
            ("assistant", "堆积的时候消费者数量是多少？看一下 orders 队列的 consumers。")]),
        _session(tmp_path, "s-queue-new", FEB, [
            ("user", "跟你同步一下，订单服务的消息队列已经从 RabbitMQ 迁到 Kafka 了，上周切的。"),
            ("assistant", "好的。Kafka 的 orders topic 有几个分区？")]),
    )])
    engine.distill()
    engine.introspect(steps=["supersede"])
    with engine.step() as graph:
        links = {(a, b) for a, b in graph.query("MATCH (a:Card)-[:SUPERSEDES]->(b:Card) RETURN a.id, b.id")}
    assert (_card_of(engine, "s-pin-new", "2.1"), _card_of(engine, "s-pin-old", "1.26")) in links
    assert (_card_of(engine, "s-queue-new", "Kafka"), _card_of(engine, "s-queue-old", "RabbitMQ")) in links


def test_a_number_a_cue_names_as_replaced_is_found_on_the_earlier_card():
    """"from 600 to 240", "10:45 instead of 11:00", "从 45 改成 90": a number named as the old value, given by the
    earlier card, says plainly which card is replaced; a day of a month after "from" is when, not what."""
    cache = statement(plain("Cache", "SESSION_CACHE_SECONDS stays at 600 for the launch."))
    assert replacement("We cut the session cache from 600 to 240 seconds.", cache, False) == (3, "600")
    assert replacement("From 3 March the session cache keeps 240 seconds.", cache, False)[0] == 0
    standup = statement(plain("Standup", "The daily standup is at 11:00 in the small room."))
    assert replacement("The standup is at 10:45 instead of 11:00 from next week.", standup, False) == (3, "11:00")
    dose = statement(plain("剂量", "医生让他每晚吃 45 毫克。"))
    assert replacement("从 5 月 15 日起改成每晚 90 毫克。", dose, False)[0] == 0  # the day it starts, not the dose
    assert replacement("剂量从 45 改成 90 了。", dose, False) == (1, "45")  # bare: only a card close in meaning
    cleanup = statement(plain("Restore indices", "Any restore index is deleted within 48 hours of its drill."))
    assert replacement("Cache Get went from 48 ns to 3 ns.", cleanup, False)[0] == 0  # another unit, another thing
    assert replacement("Restore indices now go after 24 hours instead of 48 hours.", cleanup, False) == (3, "48")


def test_a_replacement_said_plainly_is_read_on_a_card_far_apart_in_meaning():
    """A card of a long exchange holds other points too: below the usual floor, an earlier card is replaced only when
    the new card names the number it gives as the old value; a new number alone (a bare "now") is not enough there."""
    from alaya_engine.introspect.supersede import PLAIN_FLOOR, SUPERSEDE_FLOOR, _judge

    def card(title: str, content: str) -> dict:
        return {"title": title, "content": content, "facts": None}

    cards = {
        "old": card("Pricing cache", "PRICE_PAGE_TTL stays at 1800 s for the launch."),
        "plain": card("Grafana board empty", "The Grafana board pointed at mon-01; repointed to mon-02. Also "
                                              "PRICE_PAGE_TTL 从 1800 降到 300 了."),
        "bare": card("Grafana board empty", "The Grafana board pointed at mon-01; repointed to mon-02. "
                                             "PRICE_PAGE_TTL is now 300 s."),
    }
    far = (PLAIN_FLOOR + SUPERSEDE_FLOOR) / 2
    found, _ = _judge({"plain": [(far, "old")], "bare": [(far, "old")]}, cards)
    assert [(item.new, item.old, item.anchor) for item in found] == [("plain", "old", "1800")]
    close, _ = _judge({"bare": [(SUPERSEDE_FLOOR + 0.05, "old")]}, cards)
    assert [(item.new, item.old) for item in close] == [("bare", "old")]


def test_a_setting_given_another_number_for_the_same_thing_replaces_it_and_one_for_another_thing_does_not():
    """``"max-age":3600`` against ``"max-age":900`` in a sentence naming the same header rule is an update; the same
    setting name set for another thing ("pool_size" of the app and of the pooler) is not. Where neither sentence
    names what the setting belongs to, it is one setting ("keep-monthly 6" then "keep-monthly 12")."""
    from alaya_engine.introspect.change_text import changed_settings, settings

    earlier = "The cdn-rules file sets cache-static '{\"max-age\":3600,\"stale-while-revalidate\":60}' for assets."
    shortened = settings("We shortened it: cache-static '{\"max-age\":900}' in cdn-rules.")
    assert changed_settings(shortened, earlier) == ["max-age"]
    assert changed_settings(settings("cdn-rules keeps cache-static '{\"max-age\":3600}'."), earlier) == []
    app = "The web app's SQLAlchemy engine in shop-api uses pool_size=10."
    assert changed_settings(settings("pgbouncer.ini on db-main-01: pool_size=30 for the reports user."), app) == []
    assert changed_settings(settings("shop-api now runs its engine with pool_size=25."), app) == ["pool_size"]
    retention = "Retention 没变：keep-daily 7 / keep-weekly 4 / keep-monthly 6。"  # as restic writes it, no owner
    longer = settings("with keep-monthly 12 a deleted file can stay a year")
    assert changed_settings(longer, retention) == ["keep-monthly"]
    assert changed_settings(settings("keep-monthly 6 still holds"), retention) == []
    assert changed_settings(settings("pgbouncer.ini on db-main-01: pool_size 30"), app) == []  # its owner is named


def test_each_sentence_of_a_card_replaces_its_own_earlier_card_and_one_sentence_only_one():
    """A card of a long exchange holds several points: each sentence that replaces a value replaces its own
    earlier card; a second earlier card the same sentence seems to replace is left alone."""
    from alaya_engine.introspect.supersede import SUPERSEDE_FLOOR, _judge

    def card(title: str, content: str) -> dict:
        return {"title": title, "content": content, "facts": None}

    cards = {
        "timeout": card("bi_ro timeout", "bi_ro gets idle_in_transaction_session_timeout = 5 min on pg-pm-01."),
        "move": card("BI moves", "BI moves its dashboards to pg-pm-02 on 10 Aug."),
        "passing": card("BI dashboards", "The BI dashboards on pg-pm-02 read from the replica since 10 Aug."),
        "new": card("Month-end", "The bi_ro timeout is now 15 min on pg-pm-01. BI finished moving to pg-pm-02 on "
                                 "12 Aug."),
    }
    close = SUPERSEDE_FLOOR + 0.05
    found, _ = _judge({"new": [(close + 0.02, "timeout"), (close + 0.01, "move"), (close, "passing")]}, cards)
    assert sorted((item.old, item.anchor) for item in found) == [("move", "8-12"), ("timeout", "15 min")]


def test_a_setting_given_another_value_replaces_its_card_whatever_stand_in_owns_it():
    """Offline, a setting's subject is often only a stand-in (the card's first name, the speaker): another value
    of one named setting replaces the card that gave it; two identifiers that differ own two settings set alike."""
    from datetime import datetime

    from alaya_engine.introspect.supersede import SUPERSEDE_FLOOR, _judge

    def card(content: str, subject: str, attribute: str, value: str) -> dict:
        return {"title": content[:20], "content": content, "facts": [
            {"subject": subject, "attribute": attribute, "value": value, "valid_from": datetime(2026, 5, 1)}]}

    cards = {
        "retries": card("调用飞鸽短信的配置是 FEIGE_MAX_RETRIES=2，最多重试 2 次。", "赵磊", "feige_max_retries", "2"),
        "fewer": card("好，helm values 里改成这样，再补了 6 个测试。", "用户", "feige_max_retries", "1"),
        "app": card("Each worker's SQLAlchemy engine uses pool_size=10.", "pg-main-02", "pool_size", "10"),
        "pooler": card("The pooler now caps billing_worker at pool_size=30.", "billing_worker", "pool_size", "30"),
    }
    close = SUPERSEDE_FLOOR + 0.05
    found, _ = _judge({"fewer": [(close, "retries")], "pooler": [(close, "app")]}, cards)
    assert [(item.new, item.old, item.anchor) for item in found] == [("fewer", "retries", "feige_max_retries")]


def test_a_diff_that_changes_a_setting_replaces_the_card_that_set_it():
    """A diff's removed line and added line are the old value and the new one: read as the lines it adds and the
    values they replace, a new card quoting it replaces the card whose diff set the old value."""
    from alaya_engine.introspect.supersede import SUPERSEDE_FLOOR, _judge

    def card(title: str, content: str) -> dict:
        return {"title": title, "content": content, "facts": None}

    cards = {
        "old": card("Cap the WAL a slot may hold", "```diff\n@@ -88,6 +88,7 @@ max_wal_size = 16GB\n"
                                                   " wal_keep_size = 0\n+max_slot_wal_keep_size = 64GB\n```"),
        "new": card("Let's go 128GB", "```diff\n@@ -88,7 +88,7 @@ max_wal_size = 16GB\n wal_keep_size = 0\n"
                                      "-max_slot_wal_keep_size = 64GB\n+max_slot_wal_keep_size = 128GB\n```"),
        "context": card("Keep the WAL size", "```diff\n@@ -88,7 +88,7 @@ max_wal_size = 16GB\n-wal_keep_size = 0\n"
                                             "+wal_keep_size = 64\n max_slot_wal_keep_size = 64GB\n```"),
    }
    close = SUPERSEDE_FLOOR + 0.05
    found, _ = _judge({"new": [(close, "old")], "context": [(close, "old")]}, cards)
    assert [(item.new, item.old, item.anchor) for item in found] == [("new", "old", "64")], \
        "an unchanged line around a change is no replaced value"


def test_a_change_to_a_named_setting_in_another_unit_of_money_or_time_is_plain():
    """Another number for the same identifier in the same unit, after a change cue, says plainly what changed (read
    even on cards far apart in meaning); amounts of money are quantities too."""
    proxy = statement(plain("edge", "be_orders 现在 timeout server 配的是 30s，大客户偶尔要 20 多秒。"))
    assert replacement("大客户现在要 40 秒了，be_orders 的 timeout server 改成 60s 吧", proxy, False) == (2, "60 s")
    savings = statement(plain("储蓄", "从 4 月开始，每个月 15 号自动转 300 澳元到 ING 储蓄账户。"))
    assert replacement("转到 ING 储蓄账户的金额从 6 月 15 日起改为 450 澳元。", savings, False)[0] >= 1


def test_what_a_move_is_about_must_be_what_the_earlier_card_speaks_of():
    """"Olu repoints amqp.internal from mq-old-1 to mq-new" replaces where that name points, not a card about
    mq-old-1's disk; "moving her from Elmwood" names no subject."""
    disk = statement(plain("disk", "Publishes hang: mq-old-1 has 1.6G free, below its disk_free_limit."))
    assert replacement("Olu repoints amqp.internal from mq-old-1 to mq-new on Tuesday.", disk, False)[0] == 0
    dns = statement(plain("dns", "Clients connect to amqp.internal, which points at mq-old-1."))
    assert replacement("Olu repoints amqp.internal from mq-old-1 to mq-new on Tuesday.", dns, False)[0] == 1


def test_a_card_saying_the_runbook_is_wrong_is_a_disagreement_not_an_update():
    from alaya_engine.introspect.supersede import _judge

    cards = {
        "runbook": {"title": "Standby", "content": "The runbook says lb-west-2 is the keepalived standby and takes "
                                                    "no traffic unless lb-west-1 fails.", "facts": None},
        "seen": {"title": "Both edges serve", "content": "lb-west-2 now has 190 sessions, like lb-west-1: the "
                                                          "runbook is wrong, both edges take traffic.", "facts": None},
        "zh": {"title": "两台都在接流量",
               "content": "实际情况跟 runbook 不一样：lb-west-2 现在有 214 个会话，跟 lb-west-1 差不多。",
               "facts": None},
    }
    for new in ("seen", "zh"):
        replaced, disagreements = _judge({new: [(0.7, "runbook")]}, cards)
        assert replaced == [] and [(item.new, item.old) for item in disagreements] == [(new, "runbook")]


def test_an_appointment_moved_to_another_day_replaces_the_earlier_day():
    """Another day of a month for the same exam or booking (named by an acronym or an identifier, across languages)
    is a new value; a person's name, which every card of a chat says, is not enough."""
    exam = statement(plain("考试", "宁的 AWS-SAA 考试约在 2026 年 6 月 9 日（周二）晚上 7 点，Pearson VUE 线上监考。"))
    assert replacement("The exam is now Thursday 18 June, 20:00 (AWS-SAA).", exam, False) == (1, "6-18")
    assert replacement("The exam is now on 9 June as booked (AWS-SAA).", exam, False)[0] == 0
    party = statement(plain("Party", "Caroline went to the pride parade on 3 May with Mel."))
    assert replacement("Caroline is now planning a trip on 12 June.", party, False)[0] == 0


def test_chat_news_and_the_speakers_own_name_replace_nothing():
    """In a chat every card names its speaker and half the news opens with "since we last spoke": neither is a
    replaced value, nor is a day of a month written out ("24 July") a quantity in "july"."""
    workshop = statement(plain("Workshop", "Nadia went to an LGBTQ+ counselling workshop on 23 June 2023 in Leeds."))
    assert replacement("Since we last spoke, Nadia went to an LGBTQ conference on 10 July 2023.", workshop,
                       False)[0] == 0
    family = statement(plain("Family", "Tomas's family is small, but Tomas loves spending time with his cousins."))
    assert replacement("Tomas's uncle used to help Tomas's family out, so Tomas is inspired by him.", family,
                       False)[0] == 0
    bakes = statement(plain("Baking", "In the week of 17 July 2023 Tomas baked bread for the shelter in Leeds."))
    assert replacement("In the week of 24 July 2023 Tomas now bakes cakes for the shelter in Leeds.", bakes,
                       False)[0] == 0
    exam = statement(plain("Exam", "The AWS-SAA exam is booked for 9 June."))
    assert replacement("The AWS-SAA exam was moved to 18 June.", exam, False) == (1, "6-18")


def test_a_value_replaced_in_brackets_in_ten_thousands_or_after_not_is_read_as_the_replaced_one():
    """"= 8000 （之前是 max(queue_depth) > 30000）": a value quoted from code in brackets is read whole; "3 万" is
    30000 and "从8000改成" needs no spaces; "(was 45)" and ", not 14 March" name what was replaced."""
    alert = statement(plain("Alert", "QueueBacklog pages when max(queue_depth) > 30000 for 15 minutes."))
    diffed = "expr: max(queue_depth{app=\"mailer\"}) > 8000 （之前是 max(queue_depth{app=\"mailer\"}) > 30000）"
    assert replacement(diffed, alert, False) == (3, "30000")
    assert replacement("QueueBacklog 的阈值从 3 万改成 8 千。", alert, False) == (3, "30000")
    assert replacement("QueueBacklog 的阈值从30000改成8000。", alert, False) == (3, "30000")
    assert replacement("QueueBacklog 的阈值是 3 千个任务。", alert, False)[0] == 0
    cache = statement(plain("Cache", "The quote cache keeps entries for 45 seconds (QUOTE_TTL)."))
    assert replacement("QUOTE_TTL is 10 now (was 45, quotes went stale).", cache, False) == (3, "45")
    launch = statement(plain("Launch", "Milo says the app store launch of Pebble 2.0 is on 14 March."))
    assert replacement("Milo: the Pebble 2.0 launch is on 21 March, not 14 March.", launch, False) == (3, "3-14")
    assert replacement("Pebble 2.0 now launches from 14 March onwards in every store.", launch, False)[0] == 0


def test_a_bare_number_named_as_replaced_is_plain_only_with_a_unit_or_a_shared_name_and_a_full_stop_is_no_decimal():
    """", not 60" names a replaced 60 plainly only of something the earlier card names too, or in a unit: a
    clock drift of "~35 s …, not 60" replaces no relay that "retries every 60 s" it is not close to. A number
    ending a sentence keeps the words that name it ("to 8." is the default concurrency's 8, as "to 8" is)."""
    relay = statement(plain("Outbox", "The outbox relay retries the enqueue every 60 s until the dispatcher "
                                      "accepts it."))
    drift = "by the graphs the drift was only ~35 s when the 401s started on 28 April 2026 at 18:40, not 60."
    assert replacement(drift, relay, False) == (1, "60")  # read as replaced only by a card close in meaning
    assert replacement("The outbox relay now retries every 30 s, not 60 s.", relay, False) == (3, "60")
    concurrency = statement(plain("Uploads", "keep the default concurrency at 4 for now though, people run it on CI."))
    assert replacement("bump the default concurrency to 8.", concurrency, False) == \
        replacement("bump the default concurrency to 8", concurrency, False) != (0, None)


def test_a_sum_in_ten_thousands_is_one_quantity_however_it_is_written():
    """"5 万元" is 50000 元, a quantity like any other: "6 万元" replaces it, "50000 元" says it again, and 千米 (km) is
    a unit, not a thousand."""
    pay = statement(plain("工资", "小林的月薪是 5 万元，每月 10 号发。"))
    assert replacement("小林的月薪从 5 万元改成 6 万元。", pay, False) == (3, "60000 cny")
    assert replacement("小林的月薪现在是 60000 元了。", pay, False) == (1, "60000 cny")
    assert replacement("小林的月薪现在是 50,000 元。", pay, False)[0] == 0
    run = statement(plain("跑步", "小林每周日跑 5 千米，配速 6 分钟。"))
    assert replacement("小林每周日现在跑 8 千米。", run, False)[0] == 0  # no quantity read from 千米, as before


def test_a_day_a_cue_names_as_the_old_one_replaces_the_card_that_gave_it():
    """"instead of 14 March", "原来 3 月 14 号那个": the old day is named; a bare "from" before a day says when
    something starts ("moved to Fridays from the week of 2 March")."""
    flight = statement(plain("航班", "爸爸 3 月 14 日从成都飞过来，住两周。"))
    assert replacement("原来 3 月 14 号那班取消了，改成 3 月 20 号到。", flight, False)[0] >= 1
    lessons = statement(plain("Lessons", "Pia's judo is on 2 March and then every Monday."))
    assert replacement("Pia's judo moved to Fridays from the week of 2 March.", lessons, False)[0] == 0


def test_a_time_of_day_is_one_time_however_it_is_written_and_a_chinese_name_is_its_latin_spelling():
    """"Saturdays at 9am" against "改到周日下午 3 点": another time of the same lessons; 4:30 and "下午 4:30" and
    "4:30pm" are the same time; 岳岳 is "Yueyue" in an English sentence."""
    piano = statement(plain("Piano", "Yueyue has piano with Mr Brandt on Saturdays at 9am, 30 minutes."))
    assert replacement("Brandt 的钢琴课改到周日下午 3 点，还是 30 分钟。", piano, False)[0] >= 1
    assert replacement("Brandt 的钢琴课现在还是周六上午 9 点。", piano, False)[0] == 0
    pool = statement(plain("游泳", "岳岳每周三下午 4:30 上游泳课，教练是 Kahu。"))
    assert replacement("So Yueyue's swimming is now on Fridays at 5:45.", pool, False) == (1, "5:45")
    assert replacement("So Yueyue's swimming is now at 4:30pm as before.", pool, False)[0] == 0
    assert replacement("So Dana's swimming is now on Fridays at 5:45.", pool, False)[0] == 0


def test_a_weekly_thing_moved_to_another_weekday_and_a_count_of_things_raised_replace_the_earlier_value():
    """A day of the week is a value ("moved the retro to Fridays", "从周二挪到周四"), and so is a count of things
    ("up to 9 attempts"): another one, beside a cue of a change and a name both sentences say, replaces it."""
    retro = statement(plain("Retro", "The team retro with Dana is on Wednesdays at 4pm."))
    assert replacement("We moved Dana's retro to Fridays, same time.", retro, False) == (1, "Fridays")
    assert replacement("The retro with Dana moved to Fridays, same time.", retro, False) == (1, "Fridays")
    assert replacement("The retro with Dana ran long on Fridays.", retro, False)[0] == 0
    piano = statement(plain("钢琴课", "钢琴课每周二下午 4 点，老师是 Lily。"))
    assert replacement("Lily 把钢琴课从周二挪到周四了。", piano, False)[0] == 3
    sync = statement(plain("Retries", "importer-sync retries a failed batch up to 5 attempts."))
    assert replacement("importer-sync now retries up to 9 attempts.", sync, False) == (1, "9 attempt")
    assert replacement("importer-sync needed 9 attempts yesterday.", sync, False)[0] == 0
    assert replacement("billing-sync now retries up to 9 attempts.", sync, False)[0] == 0  # another job's count


def test_a_version_of_a_named_thing_a_scaled_count_and_a_thing_swapped_for_another_are_replaced_values():
    from alaya_engine.introspect.change_text import _quantities

    ci = statement(plain("CI", "CI builds pricing-svc on every PR, still Go 1.22.6."))
    assert replacement("We moved pricing-svc to Go 1.23 last week.", ci, False) == (2, "Go 1.23")
    assert replacement("pricing-svc's Go 1.23 build is green.", ci, False)[0] == 0  # no cue of a change
    app = statement(plain("iOS", "买家端 App 最低支持 iOS 13。"))
    assert replacement("从 2.8.0 版本起最低支持 iOS 14。", app, False) == (1, "iOS 14")
    replicas = statement(plain("imgproxy", "imgproxy 有 3 个副本，每台 edge-img 一个。"))
    assert replacement("imgproxy 已经扩到 5 个副本了。", replicas, False) == (1, "5 个")
    backend = statement(plain("build", "tariff-calc 的 build backend 是 poetry-core。"))
    assert replacement("我们把 poetry-core 换成 hatchling 了。", backend, False) == (1, "poetry-core")
    assert replacement("把 tariff-calc 从 Poetry 换成 uv", statement(plain("host", "tariff-calc runs on the billing "
                                                                          "host")), False)[0] == 0  # its subject
    versions = {unit for unit, _ in _quantities("Maya is in Year 3, Step 2 of the plan; Python 3.12, JDK 21, "
                                                "macOS 15, iPhone 15, since May 12.") if unit.startswith("v:")}
    assert versions == {"v:python", "v:jdk", "v:macos"}


def test_a_measure_that_rose_is_a_symptom_not_a_replaced_value():
    """"p99 从 120ms 涨到了 3s" reports what went wrong; it replaces no card that gave 120 for something else (the
    demo's cause card was linked to its nginx card this way)."""
    nginx = statement(plain("nginx", "proxy_read_timeout 120s on /v1/export; upstream keepalive_timeout 60s."))
    assert replacement("/v1/summarize 上线以后，整个 API 的 p99 从 120ms 涨到了 3s 左右。", nginx, False)[0] == 0
    assert replacement("After the deploy p99 latency went up to 3s from 120ms.", nginx, False)[0] == 0


def test_a_time_zone_names_no_subject_two_jobs_share():
    """"schedule stays at 02:00 UTC" (one job) replaces nothing of "snapshots start at 01:00 UTC" (another): UTC is
    part of a time, like a weekday; in code, dayjs's ``utc`` plugin is still a name."""
    from alaya_engine.distill.offline.text.names import good_name

    snapshots = statement(plain("snapshots", "Repository s3-nightly writes to the sbx-os-snapshots bucket and "
                                             "starts at 01:00 UTC every night."))
    assert "utc" not in snapshots.whole.mentions
    assert replacement("The catalog schedule stays at 02:00 UTC for now.", snapshots, False)[0] == 0
    assert not good_name("UTC") and not good_name("CEST") and good_name("utc")
