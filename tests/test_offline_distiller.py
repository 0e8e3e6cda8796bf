"""The offline distiller: card types, sources, links, tags, cuts and determinism on realistic sessions."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest

from alaya_engine.distill.offline import OfflineDistiller, text
from alaya_engine.distill.offline.text.titles import without_markup, without_segue
from alaya_engine.foundations.domain import CARD_TYPES, Session, Turn
from alaya_engine.raw.formats import parse_session_bytes

DEMO_SESSIONS = Path(__file__).parents[1] / "alaya_engine" / "demo" / "sessions"
LOCOMO_SESSIONS = Path(__file__).parents[2] / "shared" / "data" / "locomo" / "sessions"
MARCH_2 = 1772417700000
TITLE_LIMIT = 70


def turn(role: str, content: str, **extra) -> Turn:
    return Turn(role=role, content=content, **extra)


def english_oom_session() -> Session:
    return Session(id="oom-en", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "billing-api pods keep restarting since yesterday's deploy, kubectl says CrashLoopBackOff. "
                     "Logs look clean. Can you check what's killing them?"),
        turn("assistant", "Checking the pod's last state.",
             tool_calls=[{"name": "exec", "arguments": {"command": "kubectl describe pod billing-api-7d9f"}}]),
        turn("tool", "Last State:  Terminated\n  Reason:  OOMKilled\n  Exit Code:  137\n"
                     "Limits:  memory: 512Mi\nJAVA_TOOL_OPTIONS: -Xmx1g", tool_name="exec"),
        turn("assistant", "Root cause: the JVM heap `-Xmx1g` is larger than the container memory limit `512Mi`, "
                          "so the kernel OOM killer kills the java process as soon as the heap grows, which is why "
                          "the pod exits with code 137 and the logs stay clean.\n\n"
                          "Fix: drop the fixed `-Xmx` and set `-XX:MaxRAMPercentage=75` so the heap follows "
                          "the limit."),
        turn("user", "ok. should we do that for every JVM service?"),
        turn("assistant", "Decision: we'll use `-XX:MaxRAMPercentage=75` on every JVM service instead of a fixed "
                          "`-Xmx`, because a fixed heap breaks the moment someone lowers the memory limit and "
                          "the OOM killer takes the pod down again."),
        turn("user", "great, write the rule down"),
        turn("assistant", "Rules for JVM services on Kubernetes:\n\n"
                          "1. Always set a memory limit on the container.\n"
                          "2. Never set a fixed `-Xmx`; use `-XX:MaxRAMPercentage=75` so the heap follows "
                          "the memory limit.\n"
                          "3. When a pod exits with 137, check `kubectl describe pod` for `OOMKilled` first."),
    ])


def chinese_cron_session() -> Session:
    return Session(id="cron-zh", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "每天早上 8 点的数据库备份，这两天变成下午 4 点才跑，crontab 里写的是 `0 8 * * *`。怎么回事？"),
        turn("assistant", "先看一下系统时区。",
             tool_calls=[{"name": "exec", "arguments": {"command": "timedatectl"}}]),
        turn("tool", "Time zone: Etc/UTC (UTC, +0000)", tool_name="exec"),
        turn("assistant", "原因：新机器重装后系统时区是 `Etc/UTC`，cron 按系统时区解释 `0 8 * * *`，"
                          "所以备份任务实际在北京时间 16:00 执行。注意 Ubuntu 的 cron 不支持 `CRON_TZ`，"
                          "写了也不会报错，调度仍然按 UTC 计算。"),
        turn("user", "那怎么改比较好？"),
        turn("assistant", "决定改用 systemd timer，因为 `OnCalendar=*-*-* 08:00:00 Asia/Shanghai` 可以直接写时区，"
                          "不用修改服务器的系统时区，也不会再出现备份时间错位的问题。"),
        turn("user", "好，把规则记下来"),
        turn("assistant", "规则：\n\n"
                          "1. 服务器统一使用 UTC 时区，不修改系统时区\n"
                          "2. 每次新建定时任务，先用 `systemd-analyze calendar` 验证触发时间\n"
                          "3. 按北京时间执行的定时任务一律用 systemd timer，不用 cron"),
    ])


def small_talk_session() -> Session:
    lines = [
        ("user", "hey! nothing to fix today, just wanted to say thanks for all the help over the last weeks 😄"),
        ("assistant", "Ha, that's really kind of you, thank you! A quiet day is the best kind of day."),
        ("user", "agreed. have a nice weekend and see you next week!"),
        ("assistant", "You too, have a great weekend! Take care and talk soon."),
    ]
    return Session(id="chat", timestamp=MARCH_2, turns=[turn(role, content) for role, content in lines * 8])


def distill(session: Session, **options):
    return OfflineDistiller(**options).distill(session)


def card_of(result, card_type: str):
    matches = [card for card in result.cards if card.type == card_type]
    assert matches, f"no {card_type} card in {[(c.type, c.title) for c in result.cards]}"
    return matches[0]


def links_of(result, relation: str) -> list[tuple[str, str]]:
    return [(link.from_title, link.to_title) for link in result.links if link.relation == relation]


# ---------------------------------------------------------------- an English devops session


def test_english_session_gives_a_gotcha_that_names_the_error_and_the_cause():
    result = distill(english_oom_session())
    gotcha = card_of(result, "gotcha")
    assert "OOMKilled" in gotcha.content or "137" in gotcha.content
    assert "-Xmx1g" in gotcha.content and "512Mi" in gotcha.content
    assert "MaxRAMPercentage" in gotcha.content, "the fix belongs on the gotcha card"
    assert {0, 3} <= set(gotcha.turns), "the question that asked and the turn with the answer"
    assert "-Xmx1g" in gotcha.tags or "512Mi" in gotcha.tags or "OOM" in gotcha.tags


def test_english_session_gives_a_decision_caused_by_the_gotcha_and_a_pattern():
    result = distill(english_oom_session())
    gotcha, decision, pattern = (card_of(result, kind) for kind in ("gotcha", "decision", "pattern"))
    assert "MaxRAMPercentage" in decision.content and "because" in decision.content
    assert 5 in decision.turns
    assert "Always set a memory limit" in pattern.content and 7 in pattern.turns
    assert "JVM" in pattern.title
    assert (decision.title, gotcha.title) in links_of(result, "CAUSED_BY")


def test_temporal_next_links_consecutive_cards_in_session_order():
    result = distill(english_oom_session())
    titles = [card.title for card in result.cards]
    assert links_of(result, "TEMPORAL_NEXT") == list(zip(titles, titles[1:]))
    first_turns = [min(card.turns) for card in result.cards]
    assert first_turns == sorted(first_turns)


def test_links_name_existing_cards_and_leave_pipeline_relations_alone():
    for session in (english_oom_session(), chinese_cron_session()):
        result = distill(session)
        titles = {card.title for card in result.cards}
        assert len(titles) == len(result.cards), "titles are unique within a session"
        for link in result.links:
            assert link.from_title in titles and link.to_title in titles
            assert link.relation not in ("SIMILAR_TO", "EXTRACTED_FROM")
            assert link.reason


# ---------------------------------------------------------------- a Chinese session


def test_chinese_session_gives_gotcha_decision_pattern_with_sources_and_links():
    result = distill(chinese_cron_session())
    gotcha, decision, pattern = (card_of(result, kind) for kind in ("gotcha", "decision", "pattern"))
    assert "Etc/UTC" in gotcha.content and "CRON_TZ" in gotcha.content
    assert {0, 3} <= set(gotcha.turns)
    assert "systemd timer" in decision.content and 5 in decision.turns
    assert "systemd-analyze calendar" in pattern.content
    assert (decision.title, gotcha.title) in links_of(result, "CAUSED_BY")
    assert all(text.title_width(card.title) <= TITLE_LIMIT for card in result.cards)


def test_chinese_tags_are_words_not_single_characters():
    result = distill(chinese_cron_session())
    tags = [tag for card in result.cards for tag in card.tags]
    chinese_tags = [tag for tag in tags if re.search(r"[\u4e00-\u9fff]", tag)]
    assert chinese_tags, tags
    assert all(len(tag) >= 2 for tag in chinese_tags), chinese_tags
    assert "时区" in tags or "定时任务" in tags
    assert any(tag in ("Etc/UTC", "CRON_TZ", "systemd-analyze calendar") for tag in tags)



def test_chinese_keywords_are_jiebas_tf_idf_nouns_tagged_clause_by_clause():
    import jieba.analyse

    from alaya_engine.distill.offline.text.tags import ZH_NOUN_TAGS, _weighted_nouns

    texts = ["定时任务用的是服务器时区，cron 在 Etc/UTC 下跑，报表晚了八个小时，需要改成北京时间。",
             "妈妈下周三去医院复查甲状腺，医生说抽血前要空腹八小时，检查结果两天后出来。",
             "王峰负责把网关的配置备份到对象存储，每天凌晨三点做一次，保留十四天。"]
    for said in texts:
        assert _weighted_nouns(said, 12) == jieba.analyse.extract_tags(said, topK=12, allowPOS=ZH_NOUN_TAGS), said


# ---------------------------------------------------------------- skipping, cutting, determinism


def test_a_chinese_question_typed_without_its_mark_is_no_knowledge():
    """"原来是这个。那怎么办" asks: the cause before it is a card, the question is no card's cause or title."""
    from alaya_engine.distill.offline.text.sentences import is_question

    assert is_question("那怎么办") and is_question("这样可以吗。") and is_question("Why?")
    assert not is_question("我还在上班呢") and not is_question("那就这么办") and not is_question("先别动吧")
    session = Session(id="subnets-zh", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "terraform plan 要销毁 worker[1] 重建，它的 subnet_id 变了，数据盘也要从 1b 挪到 1c。为什么？"),
        turn("assistant", "先看一下 private_subnets 的历史。",
             tool_calls=[{"name": "exec", "arguments": {"command": "git log -p -- variables.tf"}}]),
        turn("tool", "-  private_subnets = [\"subnet-1a\", \"subnet-1b\", \"subnet-1c\"]\n"
                     "+  private_subnets = [\"subnet-1a\", \"subnet-1c\", \"subnet-1b\", \"subnet-1d\"]",
             tool_name="exec"),
        turn("user", "啊 对，上周有人为了加一个新 subnet 把 private_subnets 的顺序改了，按字母排了一下。"
                     "原来是这个。那怎么办"),
        turn("assistant", "修复：把 private_subnets 恢复原来的顺序，新 subnet 加在最后，"
                          "再 plan 一次，就只剩原地修改了。"),
    ])
    cards = OfflineDistiller().distill(session).cards
    assert cards, "the cause and the fix are cards"
    for card in cards:
        assert "那怎么办" not in card.title and "怎么办\n" not in card.content, (card.title, card.content)


def test_small_talk_gives_no_cards_and_says_why():
    long_chat = small_talk_session()
    assert long_chat.tokens >= 200
    result = distill(long_chat)
    assert result.cards == [] and result.links == []
    assert result.skipped_reason.startswith("no fact, cause, fix, decision, rule, plan or preference stated")


def test_the_first_of_something_is_no_step_of_a_procedure():
    """"first" hints at a pattern as an adverb ("check the limits first"), not as an ordinal ("the first
    failures"): a reply steering the conversation is no rule to remember."""
    steering = Session(id="steer", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "got paged at 09:12, checkout-api is throwing 500s since the merge last night around 23:00, "
                     "pretty sure it's the merge. Can you help me revert it?"),
        turn("assistant", "Sure, happy to help with a revert, but ten hours between the merge and the first failures "
                          "is long for a bad change, so let's read the logs for two minutes first."),
        turn("user", "here's the tail: `ERROR pool exhausted: 40 of 40 connections busy, waited 30s`"),
        turn("assistant", "`pool exhausted` means every connection of checkout-api's pool was taken: the merge did "
                          "not touch the pool, so look for another client holding connections on the same database."),
    ])
    assert not [card for card in distill(steering).cards if card.type == "pattern"]
    procedure = Session(id="proc", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "checkout-api pods restart in a loop after every release, what should we check?"),
        turn("assistant", "Runbook for a restart loop: read `kubectl describe pod` first, then compare the memory "
                          "limit with the heap flag before you roll anything back."),
        turn("user", "ok thanks"),
    ])
    assert [card for card in distill(procedure).cards if card.type == "pattern"]


def test_short_sessions_are_skipped_with_the_token_count():
    demo = parse_session_bytes((DEMO_SESSIONS / "session-20260417-100000.json").read_bytes(), 10**8)
    result = distill(demo)
    assert result.cards == []
    assert result.skipped_reason == (f"session has {demo.tokens} tokens, below distill.min_session_tokens (200)")
    floor_above_everything = distill(english_oom_session(), min_session_tokens=10**6)
    assert floor_above_everything.cards and floor_above_everything.skipped_reason is None, \
        "the floor only explains an empty result; a session with knowledge in it keeps its cards"


def test_max_cards_keeps_the_most_important_in_session_order():
    full = distill(english_oom_session())
    assert len(full.cards) >= 3
    ranked = sorted(full.cards, key=lambda card: -card.importance)
    cut = distill(english_oom_session(), max_cards_per_session=2)
    assert len(cut.cards) == 2
    assert {card.title for card in cut.cards} == {card.title for card in ranked[:2]}
    kept = {card.title for card in cut.cards}
    assert [card.title for card in cut.cards] == [card.title for card in full.cards if card.title in kept]
    assert all(link.from_title in {c.title for c in cut.cards} for link in cut.links)


def test_same_session_gives_the_same_cards():
    session = chinese_cron_session()
    first = distill(session)
    second = distill(copy.deepcopy(session))
    assert [card.to_json() for card in first.cards] == [card.to_json() for card in second.cards]
    assert [link.to_json() for link in first.links] == [link.to_json() for link in second.links]


@pytest.mark.slow
def test_output_does_not_depend_on_hash_randomisation():
    """Sets must never decide order: two processes with different hash seeds agree byte for byte."""
    code = ("import json, sys; from pathlib import Path; from alaya_engine.raw.formats import parse_session_bytes; "
            "from alaya_engine.distill.offline import OfflineDistiller; "
            "r = OfflineDistiller().distill(parse_session_bytes(Path(sys.argv[1]).read_bytes(), 10**8)); "
            "print(json.dumps([[c.to_json() for c in r.cards], [l.to_json() for l in r.links]], ensure_ascii=False))")
    path = DEMO_SESSIONS / "session-20260304-064000.json"
    outputs = {subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, check=True,
                              env={**os.environ, "PYTHONHASHSEED": seed}).stdout for seed in ("1", "2")}
    assert len(outputs) == 1


# ---------------------------------------------------------------- text helpers


def test_relative_dates_become_absolute():
    day = date(2023, 5, 8)
    resolved, found = text.resolve_dates("I went hiking yesterday and we move next month; 昨天 也去了", day)
    assert "on 7 May 2023" in resolved and "in June 2023" in resolved and "2023-05-07" in resolved
    assert found[0] == "7 May 2023"
    assert text.resolve_dates("see `date.today()`", day)[0] == "see `date.today()`", "code is left alone"


def test_product_names_in_mixed_case_are_identifiers():
    """A capital run after a capitalised word (RabbitMQ, MySQL, OpenAI) names a product, in English or Chinese text,
    as QueuePool does; words in a sentence do not."""
    assert text.identifiers("We moved from RabbitMQ to Kafka, next MySQL.") == ["RabbitMQ", "MySQL"]
    assert text.identifiers("订单服务的消息队列用的是 RabbitMQ，接口是 OpenAI 的") == ["RabbitMQ", "OpenAI"]
    assert text.identifiers("Hello World. Then I Said No") == []


def test_an_english_compound_written_with_hyphens_is_no_identifier():
    """"knock-on", "half-term", "server-side" are words, not names of things like report-export: as identifiers
    they made fragments look specific ("server-side would mean dragging libheif in, no thanks" became a card) and
    stood in as a fact's subject ("knock-on · stay = 27")."""
    assert text.identifiers("the knock-on effects: half-term, a server-side resize, race-enabled builds, per-job "
                            "limits, an in-place change") == []
    assert text.identifiers("report-export and ingress-nginx, auth-gw, pre-commit, pay-worker-07, "
                            "fonts-noto-cjk") == ["report-export", "ingress-nginx", "auth-gw", "pre-commit",
                                                  "pay-worker-07", "fonts-noto-cjk"]


def test_a_relative_date_after_its_article_reads_as_a_date_and_a_question_keeps_its_plain_verb():
    """"over the next week" → "over the week of …" (not "over the in the week of …"); "Shall I draft …?" →
    "Shall the assistant draft …?" (the modal before the pronoun keeps the verb plain)."""
    day = date(2026, 1, 18)
    assert text.resolve_dates("Keep an eye on the p99 over the next week.", day)[0] == \
        "Keep an eye on the p99 over the week of 25 January 2026."
    assert text.resolve_dates("during the last month we shipped", day)[0] == "during December 2025 we shipped"
    assert text.resolve_dates("see you next week", day)[0] == "see you in the week of 25 January 2026"
    assert text.resolve_dates("I keep daydreaming about next year.", day)[0] == "I keep daydreaming about 2027."
    assert text.resolve_dates("We moved the review to tomorrow.", day)[0] == "We moved the review to 19 January 2026."
    assert text.resolve_dates("plans for next month", day)[0] == "plans for February 2026"
    from alaya_engine.distill.offline.text.dates import strip_dates

    assert strip_dates("I keep daydreaming about next year.") == "I keep daydreaming."  # a title names the date apart
    assert strip_dates("I went hiking yesterday with Ann") == "I went hiking with Ann"
    assert strip_dates("Keep an eye on the p99 over the next week.") == "Keep an eye on the p99."
    from alaya_engine.distill.offline.conversation.third_person import third_person

    assert third_person("Shall I draft an email to book a check-up?", "the assistant") == \
        "Shall the assistant draft an email to book a check-up?"
    assert third_person("Then I draft an email", "the assistant") == "Then the assistant drafts an email"
    from alaya_engine.distill.offline.conversation.third_person import said_to

    assert said_to("Do you want me to keep the flight details?", "the assistant", "the user") == \
        "Does the user want the assistant to keep the flight details?"
    assert said_to("What do you think?", "the assistant", "Lena") == "What does Lena think?"


def test_titles_are_cut_at_clause_breaks():
    long = ("Gina launched an ad campaign for her clothing store in the hope of growing the business "
            "before the summer sale starts")
    short = text.shorten(long, 70)
    assert text.title_width(short) <= 70 and short.startswith("Gina launched an ad campaign")
    assert not short.endswith((" in", " the", " of", " for"))


def test_a_title_keeps_a_number_with_its_unit_or_drops_both():
    """The README's cause card was titled "…the upstream restarts slower than 60": 60 of nothing."""
    assert text.shorten("The cause is proxy_read_timeout: the upstream restarts slower than 60 s.", 70) == \
        "The cause is proxy_read_timeout: the upstream restarts slower than 60 s"
    sentence = "The export of the quarterly report now takes about 3.5 minutes and the default is 60 s"
    assert text.shorten(sentence, 58) == "The export of the quarterly report now takes about 3.5 minutes"
    assert text.shorten(sentence, 54) == "The export of the quarterly report now takes"  # the unit runs too far


def test_a_title_cut_does_not_end_on_the_one_word_after_a_comma():
    """"…16 worker processes, each" ended on the first word of the phrase the cut left out; a comma inside code is
    not a clause's."""
    cause = ("Reconciliation fans out into 16 worker processes, each with SQLAlchemy pool_size=10 + max_overflow=5 — "
             "up to 240 client connections")
    assert text.shorten(cause, 70) == "Reconciliation fans out into 16 worker processes"
    code = "The monthly rollup job does pd.read_sql(query, engine) on the whole table every night at 02:00"
    assert text.shorten(code, 58).startswith("The monthly rollup job does pd.read_sql(query, engine)")


# ---------------------------------------------------------------- conversations between people


def test_people_facts_are_rewritten_in_the_third_person_with_absolute_dates():
    said = [("Ann", "Hi Bob! Yesterday I adopted a rescue dog named Pixel, my kids love him already."),
            ("Bob", "That's wonderful! What breed is he?"),
            ("Ann", "He's a beagle mix. I'm planning to take him to the beach in Brighton next month."),
            ("Bob", "Nice. I started a pottery class last week, my first bowl collapsed but it was fun.")]
    turns = [turn("user" if who == "Ann" else "assistant", what, extra={"speaker": who}) for who, what in said]
    result = distill(Session(id="people", timestamp=1683554160000, turns=turns), min_session_tokens=0)
    titles = " | ".join(card.title for card in result.cards)
    assert "Ann adopted a rescue dog named Pixel (7 May 2023)" in titles
    assert any("Bob started a pottery class" in card.title for card in result.cards)
    adopted = next(card for card in result.cards if "Pixel" in card.title)
    assert adopted.type == "concept" and "Ann" in adopted.tags
    assert "on 7 may 2023" in adopted.content.lower() and "Ann's kids love" in adopted.content
    assert all(" I " not in f" {card.title} " for card in result.cards)


# ---------------------------------------------------------------- the shipped demo and LoCoMo


def demo_results() -> list[tuple[str, Session, object]]:
    sessions = [(path.name, parse_session_bytes(path.read_bytes(), 10**8)) for path in sorted(DEMO_SESSIONS.iterdir())]
    distiller = OfflineDistiller()
    return [(name, session, distiller.distill(session)) for name, session in sessions]


def test_demo_sessions_give_cards_of_every_type_with_short_unique_titles():
    results = demo_results()
    assert len(results) == len(list(DEMO_SESSIONS.iterdir())) >= 16
    types = set()
    for name, session, result in results:
        if session.tokens < 200:
            assert result.skipped_reason and not result.cards, name
            continue
        assert result.cards, f"{name}: {result.skipped_reason}"
        titles = [card.title for card in result.cards]
        assert len(set(titles)) == len(titles), name
        for card in result.cards:
            types.add(card.type)
            assert card.type in CARD_TYPES
            assert 0 < text.title_width(card.title) <= TITLE_LIMIT, card.title
            assert card.content.strip() and card.tags and 0.0 <= card.importance <= 1.0
            assert card.turns and all(0 <= index < len(session.turns) for index in card.turns)
            assert not any(len(tag) == 1 for tag in card.tags), card.tags
    assert types == set(CARD_TYPES)


@pytest.mark.skipif(not LOCOMO_SESSIONS.is_dir(), reason="LoCoMo data not present")
def test_locomo_cards_name_the_speaker_and_resolve_yesterday():
    distiller = OfflineDistiller()
    checked = 0
    for path in sorted(LOCOMO_SESSIONS.glob("session-26-*.json"))[:8]:
        raw = json.loads(path.read_text(encoding="utf-8"))
        session = parse_session_bytes(path.read_bytes(), 10**8)
        for turn_, raw_turn in zip(session.turns, raw["turns"]):
            turn_.extra = {"speaker": raw_turn["speaker"]}
        speakers = {raw_turn["speaker"] for raw_turn in raw["turns"]}
        result = distiller.distill(session)
        assert result.cards, path.name
        for card in result.cards:
            assert any(name in card.title for name in speakers), card.title
            assert text.title_width(card.title) <= TITLE_LIMIT + 12, card.title
            mentions_yesterday = any("yesterday" in session.turns[i].content.lower() for i in card.turns)
            if mentions_yesterday and "yesterday" not in card.content.lower():
                checked += 1
                assert re.search(r"\d{1,2} [A-Z][a-z]+ \d{4}", card.content), card.content
    assert checked >= 1


def test_text_results_are_remembered_within_one_distillation_only_and_lists_come_back_as_copies():
    from alaya_engine.distill.offline.text import memo

    calls = []

    @memo.within_session
    def words(text: str) -> list[str]:
        calls.append(text)
        return text.split()

    assert words("a b") == words("a b") == ["a", "b"] and len(calls) == 2  # outside a distillation: computed
    with memo.remembering():
        first = words("a b")
        first.append("c")
        assert words("a b") == ["a", "b"] and len(calls) == 3
    words("a b")
    assert len(calls) == 4


def test_a_sentence_resumed_after_a_code_block_stays_on_the_card_of_its_first_half():
    session = Session(id="resume-en", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "The integration tests for the mailer hang on CI since we moved to the new SMTP pool."),
        turn("assistant", "Checking the fixtures.",
             tool_calls=[{"name": "exec", "arguments": {"command": "pytest -q tests/test_mailer.py"}}]),
        turn("tool", "FAILED tests/test_mailer.py::test_send - TimeoutError: pool checkout after 30s",
             tool_name="exec"),
        turn("assistant", "The tests share the production pool. For unit tests use an in-process `FakeSMTP` "
                          "server:\n\n"
                          "```python\n@pytest.fixture\ndef smtp(monkeypatch):\n    server = FakeSMTP(port=2525)\n"
                          "    yield server\n```\n\n"
                          "and set `MAILER_POOL_SIZE=1` in `tests/conftest.py` so a leaked connection shows at once."),
    ])
    found = OfflineDistiller().distill(session).cards
    fix = next((card for card in found if "FakeSMTP" in card.content), None)
    assert fix is not None, [card.content for card in found]
    assert "`FakeSMTP` server: and set `MAILER_POOL_SIZE=1` in `tests/conftest.py`" in fix.content, fix.content


def test_a_how_to_answering_a_question_right_after_it_carries_the_question():
    session = Session(id="asked-en", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "The checkout-api pods were OOMKilled twice this morning."),
        turn("assistant", "Checking the limits.",
             tool_calls=[{"name": "exec", "arguments": {"command": "kubectl describe pod checkout-api-5f"}}]),
        turn("tool", "Limits: memory: 512Mi\nLast State: Terminated, Reason: OOMKilled", tool_name="exec"),
        turn("assistant", "The pods hit their 512Mi limit during the 07:00 batch."),
        turn("user", "Priya said in standup that the HPA would add pods before that happens. Isn't that enough?"),
        turn("assistant", "It only scales on CPU. The fix: set the HPA on `memory` utilisation at 70% and raise the "
                          "limit to 768Mi, so new pods start before the old ones reach the limit."),
    ])
    found = OfflineDistiller().distill(session).cards
    how = next((card for card in found if "768Mi" in card.content), None)
    assert how is not None, [card.content for card in found]
    assert "Priya" in how.content and "HPA" in how.content, how.content
    zh = Session(id="asked-zh", timestamp=MARCH_2, channel="cli", turns=[
        turn("user", "checkout-api 的 pod 今天早上被 OOMKilled 了两次。"),
        turn("assistant", "先看一下 limit。",
             tool_calls=[{"name": "exec", "arguments": {"command": "kubectl describe pod checkout-api-5f"}}]),
        turn("tool", "Limits: memory: 512Mi\nLast State: Terminated, Reason: OOMKilled", tool_name="exec"),
        turn("assistant", "pod 在 07:00 的批处理期间打满了 512Mi 的 limit。"),
        turn("user", "可是 Priya 在站会上说 HPA 会提前扩容，所以其实不用改 limit？"),
        turn("assistant", "按 runbook 的流程，扩容确实会发生：HPA 看的是 CPU 使用率，到 80% 才加 pod。但内存涨得比 CPU "
                          "快，新 pod 起来之前旧 pod 已经到了 512Mi，所以 limit 还是要调到 768Mi。"),
    ])
    found = OfflineDistiller().distill(zh).cards
    how = next((card for card in found if "768Mi" in card.content), None)
    assert how is not None, [card.content for card in found]
    assert "Priya" in how.content and "**问题:**" in how.content, how.content


def test_a_title_starts_at_its_point_not_at_the_chat_around_it():
    """Words that only lead into a message ("ok", "hmm", "and", "let's do that,") are no part of its title, and a
    lower-case chat opening is capitalised; a capitalised "And …" (a speaker's own sentence) and an identifier
    keep theirs."""
    assert without_segue("and from now on every service sets its pool size") == \
        "From now on every service sets its pool size"
    assert without_segue("hmm the airline emailed, the flight is moved") == "The airline emailed, the flight is moved"
    assert without_segue("let's do that, book the 10:00 tour on Friday") == "Book the 10:00 tour on Friday"
    assert without_segue("ok Lisbon is booked for May") == "Lisbon is booked for May"
    assert without_segue("the hotel is Casa Azul in Porto") == "The hotel is Casa Azul in Porto"
    assert without_segue("嗯，另外，四月回杭州") == "四月回杭州"
    assert without_segue("Heads up: the clinic moved to 14 Quay Street") == "The clinic moved to 14 Quay Street"
    assert without_segue("跟助手同步一下，消息队列已经迁到 Kafka 了") == "消息队列已经迁到 Kafka 了"
    assert without_segue("Note that the pool is shared") == "Note that the pool is shared"
    assert without_segue("And then we drove to the coast") == "And then we drove to the coast"
    assert without_segue("okra grows fast in July") == "okra grows fast in July"
    assert without_segue("setuptools only packages .py files") == "setuptools only packages .py files"
    assert without_segue("yeah leave it, Dario's back Monday") == "Leave it, Dario's back Monday"  # a reply's lead
    assert without_segue("thx, shipping it as 3.8.2") == "Shipping it as 3.8.2"
    assert without_segue("Right, those two numbers disagree") == "Those two numbers disagree"
    assert without_segue("好，helm values 里改成这样") == "Helm values 里改成这样"
    assert without_segue("Right now the queue is empty") == "Right now the queue is empty"


def test_a_title_shows_no_code_fence_or_list_mark():
    """A title taken from a message's lead keeps its words, not how the message was laid out: the demo had
    "Root cause: - This cert was issued …" and "方案： ```python SOFT_TTL = 300 …"."""
    distiller = OfflineDistiller()
    titles = [card.title for path in sorted(DEMO_SESSIONS.iterdir())
              for card in distiller.distill(parse_session_bytes(path.read_bytes(), 10**8)).cards]
    assert len(titles) > 80 and not [title for title in titles if re.search(r"```|[:：] - ", title)]
    assert without_markup("方案： ```python SOFT_TTL = 300") == "方案： SOFT_TTL = 300"
    assert without_markup("Canary - then the rest") == "Canary - then the rest"  # a dash between words stays


def test_that_joining_a_clause_is_no_determiner_in_a_title():
    from alaya_engine.distill.offline.agent.titles import _clean_sentence

    assert _clean_sentence("So that a forgotten slot can never take the primary down again") == \
        "that a forgotten slot can never take the primary down again"
    assert _clean_sentence("this timeout breaks the export") == "The timeout breaks the export"
