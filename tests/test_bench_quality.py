"""The pure parts of the retrieval-quality harness (``bench/quality``): tokenizer, BM25, windows, the equal-budget
cut and the mapping of recall's units to turns. The benchmarks themselves need the shared data and minutes."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from bench.quality import cards_vs_windows
from bench.quality.alaya import UnitMapper, merged
from bench.quality.harness import ALAYA, Asked, Run
from bench.quality.lexical import BM25, tokenize
from bench.quality.records import EvidenceIndex, Question, Turn
from bench.quality.scoring import Scored
from bench.quality.units import Unit, windows


def _turns(session_id: str, count: int) -> list[Turn]:
    return [Turn(session_id, index, f"{session_id}:{index}", "user", f"turn {index}") for index in range(count)]


def test_tokenize_splits_chinese_with_jieba_and_the_rest_into_lowercase_runs():
    tokens = tokenize("我最近在读《百年孤独》, Reading 2 BOOKS at 9:30!")
    assert {"百年", "孤独", "reading", "2", "books", "9", "30"} <= set(tokens)
    assert not {"《", "》", ",", "!", ":"} & set("".join(tokens))


def test_bm25_ranks_the_document_sharing_the_rare_terms_first():
    bm25 = BM25(["我喜欢弹钢琴和品茶", "I like painting landscapes", "我喜欢画画, and tea", "天气很好"])
    assert int(bm25.scores("你弹钢琴吗").argmax()) == 0
    assert int(bm25.scores("Painting?").argmax()) == 1
    assert bm25.scores("nothing shared").max() == 0


def test_windows_stay_in_one_session_and_keep_the_tail():
    turns = _turns("a", 6) + _turns("b", 2)
    spans = [[turn.key for turn in span] for span in windows(turns)]
    assert spans == [[("a", 0), ("a", 1), ("a", 2)], [("a", 2), ("a", 3), ("a", 4)], [("a", 3), ("a", 4), ("a", 5)],
                     [("b", 0), ("b", 1)]]


def test_the_budget_cut_keeps_the_longest_prefix_within_the_tokens():
    question = Question("q", "?", ("all",), frozenset({("a", 2)}))
    scored = Scored(question, [Unit(frozenset({("a", 0)}), 10), Unit(frozenset({("a", 1)}), 20),
                               Unit(frozenset({("a", 2)}), 30)])
    assert [scored.within(budget) for budget in (9, 10, 59, 60, 1000)] == [0, 1, 2, 3, 3]
    assert scored.recall_within(59) == 0 and scored.recall_within(60) == 1
    assert scored.tokens(2) == 30 and scored.rr(10) == pytest.approx(1 / 3)


def test_evidence_resolves_dia_ids_to_turn_keys_and_counts_the_unknown():
    evidence, unknown = EvidenceIndex(_turns("a", 3)).resolve(["a:1", "a:2", "D9:9"])
    assert evidence == {("a", 1), ("a", 2)} and unknown == 1


def test_recall_units_map_to_turns_for_cards_and_session_windows(tmp_path):
    contexts = tmp_path / "raw" / "contexts"
    contexts.mkdir(parents=True)
    (contexts / "card-1-context.json").write_text(json.dumps(
        {"card_id": "card-1", "session_id": "a", "turns": [{"index": 0, "dia_id": "a:0"}, {"index": 2}]}))
    mapper = UnitMapper(tmp_path, _turns("a", 4))
    card = mapper.unit({"card_id": "card-1", "content": "twelve chars"})
    window = mapper.unit({"kind": "session_turns", "card_id": "w", "session_id": "a", "turn_range": [1, 3],
                          "content": "x" * 40})
    assert (card.turns, card.kind, card.tokens) == ({("a", 0), ("a", 2)}, "card", 3)
    assert (window.turns, window.kind, window.tokens) == ({("a", 1), ("a", 2), ("a", 3)}, "session_turns", 10)
    with pytest.raises(ValueError, match="unknown kind"):
        mapper.unit({"kind": "summary", "content": ""})


def test_config_overrides_merge_nested_keys():
    base = {"recall": {"alpha": 0.5, "beta": 0.3}, "version": "1.0"}
    assert merged(base, {"recall": {"alpha": 0.9}}) == {"recall": {"alpha": 0.9, "beta": 0.3}, "version": "1.0"}
    assert base["recall"]["alpha"] == 0.5


class _Recalls:
    """An engine whose every recall returns the window first and then the card, the card alone without sessions."""

    def __init__(self, window: dict, card: dict):
        self.window, self.card = window, card

    def recall(self, request: dict) -> SimpleNamespace:
        nodes = [self.window, self.card] if request.get("include_sessions", True) else [self.card]
        return SimpleNamespace(to_json=lambda: {"nodes": nodes})


def test_cards_only_and_windows_only_keep_their_kind_and_compare_within_the_budget(tmp_path):
    contexts = tmp_path / "raw" / "contexts"
    contexts.mkdir(parents=True)
    (contexts / "card-1-context.json").write_text(json.dumps({"session_id": "a", "turns": [{"index": 0}]}))
    engine = _Recalls({"kind": "session_turns", "session_id": "a", "turn_range": [1, 2], "content": "x" * 40},
                      {"kind": "card", "card_id": "card-1", "content": "x" * 40})
    questions = [Question("q1", "?", ("cat 1", "all"), frozenset({("a", 0)})),
                 Question("q2", "?", ("cat 2", "all"), frozenset({("a", 1), ("a", 2)}))]
    run = Run(asked=[Asked(question) for question in questions])
    for item in run.asked:
        item.by_method.update((method, Scored(item.question, [])) for method in (ALAYA, *cards_vs_windows.BASELINES))
        cards_vs_windows.ask(engine, UnitMapper(tmp_path, _turns("a", 3)), item)
    assert [unit.kind for unit in run.asked[0].by_method[cards_vs_windows.WINDOWS_ONLY].units] == ["session_turns"]
    cards, windows, ratio = cards_vs_windows.comparison_rows("b", "Set", run, ["cat 1", "cat 2", "all"], budget=10)
    assert (cards.value, windows.value, ratio.value) == (0.5, 0.5, 1.0)
    assert cards.note.startswith("cat 1 1.000, cat 2 0.000; 1.0 units, 10 tokens")
    assert ratio.note.startswith("cat 1 nan, cat 2 0.000;")
    assert cards_vs_windows.comparison_rows("b", "Set", run, ["all"], budget=9)[0].value == 0
