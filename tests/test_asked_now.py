"""A question about the present reads the newer of two equally good answers first, with or without a supersede
link: "When is the design lunch now?" after the lunch moved from Tuesdays to Thursdays. So does a plain question
("When is the design team lunch?") when both answers say the words it asks about."""

from __future__ import annotations

import json
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.recall.currency import NEWER_WITHIN, SAME_WITHIN, newer_first
from alaya_engine.recall.result import RecallNode

JAN, MAR = 1767312000000, 1772409600000  # 2026-01-02, 2026-03-02


def _node(name: str, h: float, time: int | None, superseded_by: list[str] | None = None,
          content: str | None = None) -> RecallNode:
    return RecallNode(card_id=name, title=name, content=content or name, score=1 - h, h_distance=h, matched_rel=None,
                      rel_similarity=None, type="concept", tags=[], tier="HOT", depth=0, via=None, source="search",
                      concept_distance=h, relation_distance=0.0, time=time, superseded_by=superseded_by or [])


def test_the_newer_of_two_near_answers_comes_first_only_when_the_question_asks_about_now():
    old, new = _node("old", 0.30, JAN), _node("new", 0.30 + NEWER_WITHIN / 2, MAR)
    far = _node("far", 0.30 + NEWER_WITHIN * 2, MAR)
    assert [n.card_id for n in newer_first([old, new], "When is the lunch now?")] == ["new", "old"]
    assert [n.card_id for n in newer_first([old, new], "午饭现在是星期几？")] == ["new", "old"]
    assert [n.card_id for n in newer_first([old, new], "When was the lunch?")] == ["old", "new"]
    assert [n.card_id for n in newer_first([old, far], "When is the lunch now?")] == ["old", "far"]
    undated = _node("undated", 0.31, None)
    assert [n.card_id for n in newer_first([old, undated], "now?")] == ["old", "undated"]
    replaced = _node("replaced", 0.32, MAR, superseded_by=["x"])
    assert [n.card_id for n in newer_first([old, replaced], "now?")] == ["old", "replaced"]


def test_a_plain_question_reads_the_newer_first_only_of_answers_saying_what_it_asks_about():
    """Two answers both saying the words of the question (that most of the result does not say) are read newer
    first; words every answer says (a chat's speakers) tell nothing."""
    question = "What's the ack_wait on the ledger-writer consumer?"
    rest = [_node(f"rest-{index}", 0.5 + index / 100, JAN, content="the payments stream keeps three replicas")
            for index in range(4)]
    old = _node("old", 0.20, JAN, content="ledger-writer consumer: ack_wait raised from 30 s to 60 s")
    new = _node("new", 0.20 + SAME_WITHIN / 2, MAR, content="the ledger-writer consumer's ack_wait is now 90 s")

    def first_two(nodes: list[RecallNode], asked: str = question) -> list[str]:
        return [node.card_id for node in newer_first(nodes + rest, asked)][:2]

    assert first_two([old, new]) == ["new", "old"]
    other = _node("other", 0.20 + SAME_WITHIN / 2, MAR, content="ledger-writer batches take 45 s to commit")
    assert first_two([old, other]) == ["old", "other"]
    far = _node("far", 0.20 + SAME_WITHIN * 1.5, MAR, content=new.content)
    assert first_two([old, far]) == ["old", "far"]
    loose = _node("loose", 0.20, JAN, content="the consumer was restarted")  # one word of the question: too common
    assert first_two([loose, new], "Is the consumer restarted?") == ["loose", "new"]
    everywhere = [_node(f"chat-{index}", 0.5, JAN, content="ledger-writer consumer ack_wait") for index in range(4)]
    assert [node.card_id for node in newer_first([old, new, *everywhere], question)][:2] == ["old", "new"]


def _session(folder: Path, session_id: str, timestamp: int, day: str) -> str:
    path = folder / f"{session_id}.json"
    turns = [("user", f"Note for the team calendar: the design team lunch is on {day}s at the Lotus cafe, noon."),
             ("assistant", f"Noted: design team lunch on {day}s at the Lotus cafe at noon.")]
    path.write_text(json.dumps({"id": session_id, "timestamp": timestamp, "channel": "cli", "agent": "main",
                                "turns": [{"role": role, "content": text, "timestamp": timestamp + step * 60_000}
                                          for step, (role, text) in enumerate(turns)]}), encoding="utf-8")
    return str(path)


def test_recall_answers_a_question_about_now_with_the_later_session_first(home: Path, tmp_path: Path):
    engine = Engine.open(home)
    engine.ingest([_session(tmp_path, "s-lunch-old", JAN, "Tuesday"),
                   _session(tmp_path, "s-lunch-new", MAR, "Thursday")])
    engine.distill()
    first = engine.recall({"text": "When is the design team lunch now?", "max_results": 4}).to_json()["nodes"][0]
    assert first["time"] >= MAR and "Thursday" in first["content"]
    plain = engine.recall({"text": "When is the design team lunch?", "max_results": 4}).to_json()["nodes"]
    assert {node["time"] >= MAR for node in plain} == {True, False}  # both sessions answer; either may lead


def test_only_the_first_places_are_chosen_and_every_unit_stays():
    """A request for 200 units pays for the first places only; nothing is dropped or repeated."""
    from alaya_engine.recall.currency import NEWER_PLACES

    nodes = [_node(str(index), 0.3 + index * 1e-6, JAN + index) for index in range(NEWER_PLACES + 30)]
    ordered = newer_first(nodes, "what holds now?")
    assert sorted(node.card_id for node in ordered) == sorted(node.card_id for node in nodes)
    assert ordered[0].card_id == str(NEWER_PLACES + 29)  # the newest, all being within reach of the best
    assert [node.card_id for node in ordered[NEWER_PLACES:]] == [str(index) for index in range(30)]


def test_the_words_of_a_question_a_unit_says_are_found_as_the_tokenizer_finds_them():
    """Looked up in one pass instead of tokenizing each unit: the same words, in both languages."""
    from alaya_engine.foundations.terms import term_list
    from alaya_engine.recall.currency import _finder

    texts = ["The ledger-writer consumer's ack_wait is now 90 s (was 60 s).",
             "ClickHouse 磁盘告警阈值改成 75%，调用api接口时 timeout 也改了。",
             "wait, the skill is in Skills: killer.sh, 我 的 猫", "调的é, 我a口我的1, café接口 api调用",
             "a调用调用 调用接口，口我 我的的"]
    asked = {"ack", "wait", "ledger", "writer", "kill", "skill", "api", "磁盘", "盘告", "告警", "我", "的", "接口",
             "timeout", "clickhouse", "90", "1", "é", "调用", "café", "用调", "口我", "的的"}
    for text in texts:
        assert _finder(asked)(text.lower()) == asked & set(term_list(text)), text
