"""``python -m bench.quality.sweep``: compare recall's ranking settings on whole row groups, without rebuilding.

Each haystack's store is built once (ingest + distill, as the harness does) and every question is recalled once
with the lexical share off and a deep cut, while the candidates the ranking chose from are captured: the cards
with their cosine distance, relation distance and depth, the windows with their cosine distance, and both
full-text searches' BM25 scores. Every setting is then replayed on those candidates in memory — the same h, the
same overlap rule, the same cut at ten units — and scored per row group (LoCoMo category, MemoryBank language,
cross-lingual direction). A setting is judged on whole groups, never on single questions.

What a replay cannot change are the candidate sets themselves (``recall.vector_top_k`` seeds and window hits),
so settings of those are compared with the harness (``measure(..., config_overrides=...)``).
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import statistics
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field, replace
from pathlib import Path

from alaya_engine.foundations.domain import estimate_tokens
from alaya_engine.foundations.paths import Layout
from alaya_engine.foundations.terms import term_list
from alaya_engine.raw.windows import parse_window_id
from alaya_engine.recall import run as recall_run
from alaya_engine.recall.lexical import LexicalFusion
from alaya_engine.recall.run import take_units

from . import locomo, memorybank
from .alaya import UnitMapper, create_store
from .records import Haystack, Question, TurnKey
from .units import by_session

TOP = 10


@dataclass
class Candidate:
    unit_id: str
    is_window: bool
    cosine_distance: float
    relation_distance: float
    depth: int
    bm25: float
    turns: frozenset[TurnKey]
    tokens: int


@dataclass
class Captured:
    question: Question
    candidates: list[Candidate] = field(default_factory=list)
    query_terms: int = 0
    """Distinct search terms of the question (``alaya_engine.foundations.terms``)."""


@dataclass(frozen=True)
class Setting:
    lexical_weight: float
    lexical_floor: float
    """Per distinct query term, as ``recall.lexical_floor``."""

    def label(self) -> str:
        return f"lexical_weight {self.lexical_weight:g} floor {self.lexical_floor:g}"


class _Capture:
    """Wraps ``run_recall`` and ``_merge`` to keep what one recall ranked from."""

    def __init__(self):
        self.full_text: dict[str, float] = {}
        self.cards: list = []
        self.windows: dict[str, float] = {}
        self.window_hits: dict[str, float] = {}
        self._run, self._merge = recall_run.run_recall, recall_run._merge

    def __enter__(self):
        def run_recall(query, queries, **kwargs):
            future = kwargs.get("full_text")
            self.full_text = future.result() if future is not None else {}
            turns = kwargs.get("turns")
            self.window_hits = turns.full_text.result() if turns is not None and turns.full_text else {}
            return self._run(query, queries, **kwargs)

        def merge(cards, window_distances, settings, limit, graph, turns):
            self.cards, self.windows = list(cards), dict(window_distances)
            return self._merge(cards, window_distances, settings, limit, graph, turns)

        recall_run.run_recall, recall_run._merge = run_recall, merge
        return self

    def __exit__(self, *exc):
        recall_run.run_recall, recall_run._merge = self._run, self._merge


def capture(haystack: Haystack, home: Path, model_cache: Path | None) -> list[Captured]:
    engine = create_store(home, {"recall": {"lexical_weight": 0.0}}, model_cache)
    engine.ingest([str(path) for path in haystack.sessions])
    engine.distill()
    mapper, sessions = UnitMapper(home, haystack.turns), by_session(haystack.turns)
    captured = []
    with engine.hold(), _Capture() as seen:
        for question in haystack.questions:
            engine.recall({"text": question.text, "max_results": TOP})
            item = Captured(question, query_terms=len(set(term_list(question.text))))
            card_ids = [scored.reach.card_id for scored in seen.cards]
            with engine._graph_view() as graph:
                contents = {card_id: card["content"] for card_id, card in graph.cards(card_ids).items()}
            for scored in seen.cards:
                card_id = scored.reach.card_id
                item.candidates.append(Candidate(
                    card_id, False, scored.concept_distance, scored.relation_distance, scored.reach.depth,
                    seen.full_text.get(card_id, 0.0), mapper.card(card_id), estimate_tokens(contents[card_id])))
            rows = engine.turn_windows().windows(list(seen.windows))
            for window_id, distance in seen.windows.items():
                session_id, first, last = parse_window_id(window_id)
                turns = frozenset(turn.key for turn in sessions[session_id][first:last + 1])
                item.candidates.append(Candidate(window_id, True, distance, 0.0, 0,
                                                 seen.window_hits.get(window_id, 0.0), turns,
                                                 estimate_tokens(rows[window_id]["text"])))
            captured.append(item)
    return captured


def replay(item: Captured, setting: Setting, weights=(0.5, 0.3, 0.2)) -> list[Candidate]:
    """The ten units recall would return under ``setting``: the fusion of :mod:`alaya_engine.recall.lexical`,
    h as :mod:`alaya_engine.recall.navigate` computes it, overlapping windows merged as ``run.take_units`` does."""
    alpha, beta, gamma = weights
    fusion = LexicalFusion(setting.lexical_weight, setting.lexical_floor * item.query_terms)
    shares = {}
    for is_window in (False, True):  # each index's scores are relative to its own best hit
        hits = {c.unit_id: c.bm25 for c in item.candidates if c.is_window == is_window and c.bm25}
        shares.update(fusion.shares(hits))
    scored = []
    for candidate in item.candidates:
        distance = fusion.distance(candidate.cosine_distance, shares.get(candidate.unit_id, 0.0))
        h = alpha * distance + beta * candidate.relation_distance + gamma * 0.1 * candidate.depth
        scored.append((round(h, 4), candidate.unit_id, candidate))
    scored.sort(key=lambda row: row[:2])
    return [_joined(parts) for _, _, _, parts in take_units(scored, TOP)]


def _joined(parts: list[Candidate]) -> Candidate:
    """The unit recall returns for windows it merged (one part: the candidate itself): their turns together, the
    new turns' tokens at each part's tokens per turn."""
    unit = parts[0]
    for part in parts[1:]:
        new = part.turns - unit.turns
        tokens = unit.tokens + round(part.tokens * len(new) / len(part.turns))
        unit = replace(unit, turns=unit.turns | new, tokens=tokens)
    return unit


def score(captured: list[Captured], setting: Setting) -> dict[str, tuple[float, float, float]]:
    """Row group → (recall@10, mean tokens, share of units that are cards)."""
    groups: dict[str, list[tuple[float, int, float]]] = defaultdict(list)
    for item in captured:
        units = replay(item, setting)
        covered = set().union(*(unit.turns for unit in units)) if units else set()
        recall = len(covered & item.question.evidence) / len(item.question.evidence)
        cards = sum(not unit.is_window for unit in units) / max(1, len(units))
        for group in item.question.groups:
            groups[group].append((recall, sum(unit.tokens for unit in units), cards))
    return {group: tuple(statistics.mean(values) for values in zip(*rows)) for group, rows in groups.items()}


def haystacks(quick: bool, only: list[str] | None = None) -> list[Haystack]:
    limit, only = 4 if quick else None, only or ["locomo", "memorybank", "crosslingual"]
    chosen = locomo.haystacks(2 if quick else None) if "locomo" in only else []
    chosen += memorybank.monolingual("cn", limit) if "memorybank" in only else []
    for asked, memory in (("cn", "en"), ("en", "cn")) if "crosslingual" in only else ():
        chosen += memorybank.crosslingual(asked, memory, limit)
    return chosen


SETTINGS = [Setting(weight, floor) for weight, floor in itertools.product(
    (0.0, 0.25, 0.4, 0.5, 0.6, 0.75), (0.0, 0.5, 1.0, 1.5, 2.0, 3.0))]


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.quality.sweep", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="2 LoCoMo conversations, 4 MemoryBank users")
    parser.add_argument("--only", choices=("locomo", "memorybank", "crosslingual"), nargs="+",
                        help="capture these yardsticks only (default: all three)")
    parser.add_argument("--save", type=Path, metavar="FILE", help="keep the captured candidates in FILE (pickle)")
    parser.add_argument("--load", type=Path, metavar="FILE", help="replay candidates captured earlier")
    arguments = parser.parse_args()
    if arguments.load:
        report(pickle.loads(arguments.load.read_bytes()))
        return
    captured: list[Captured] = []
    with tempfile.TemporaryDirectory(prefix="alaya-sweep-") as scratch:
        cache = None
        for number, haystack in enumerate(haystacks(arguments.quick, arguments.only)):
            home = Path(scratch) / f"store-{number}"
            captured += capture(haystack, home, cache)
            cache = cache or Layout(home).cache
            print(f"captured {haystack.name}: {len(haystack.questions)} questions", flush=True)
    if arguments.save:
        arguments.save.write_bytes(pickle.dumps(captured))
    report(captured)


def report(captured: list[Captured]) -> None:
    results = {setting: score(captured, setting) for setting in SETTINGS}
    groups = sorted({group for result in results.values() for group in result})
    print("setting".ljust(30) + "".join(group[:18].rjust(20) for group in groups))
    for setting, result in results.items():
        print(setting.label().ljust(30) + "".join(
            f"{result[group][0]:.3f} {result[group][1]:5.0f}t {result[group][2]:.2f}c".rjust(20) if group in result
            else "".rjust(20) for group in groups))


if __name__ == "__main__":
    main()
