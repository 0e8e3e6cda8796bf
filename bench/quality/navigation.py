"""The agent's navigation loop played on a yardstick: does following explorable relations find more?

Per question, round 1 is ``recall({"text": question, "max_results": 10})`` as the harness asks it. While the
verdict is not "close to target" and a relation is explorable, the best one (the first: explorable is sorted by
similarity to the question) is followed from the cards it leaves from, with the question as the goal, up to
``MAX_HOPS`` hops. The units of every round are pooled, ranked by h (each round measures h against the same
goal) and cut at the tokens round 1 returned, so navigating never gets more text than one recall; and again at
twice those tokens, against one recall asked for twice as many results (``max_results`` 20) cut at the same
doubled budget: what an agent gets by reading further down one list instead of hopping.

Calibration: how often round 1 has an evidence turn in its top 5, per verdict and below thresholds of its best
and its average h — what "close to target" means in practice — and how well each tells hits from misses (AUC:
the chance that a question answered in the top 5 has a lower h than one that is not; 0.5 is no better than chance).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..report import Row
from .alaya import UnitMapper, served
from .harness import TOP, Run, build, measure
from .records import Haystack, Question
from .scoring import Scored

if TYPE_CHECKING:
    from alaya_engine.engine import Engine

MAX_HOPS = 2
CLOSE = "close to target"
THRESHOLDS = {"h_distance_best": (0.1, 0.15, 0.2, 0.22, 0.25, 0.3), "h_distance_avg": (0.2, 0.25, 0.3, 0.35, 0.4, 0.5)}


@dataclass
class Navigated:
    question: Question
    single: Scored
    navigated: Scored
    deeper: Scored
    """One recall asked for ``2 * TOP`` results: the list read further down."""
    hops: int
    verdict: str
    """Round 1's verdict, up to its colon."""
    h: dict[str, float | None]
    """Round 1's ``h_distance_best`` and ``h_distance_avg``."""


def navigate(engine: "Engine", text: str) -> list[dict]:
    """The rounds' result documents: round 1, then one per hop taken."""
    rounds = [engine.recall({"text": text, "max_results": TOP}).to_json()]
    while len(rounds) <= MAX_HOPS:
        last = rounds[-1]
        if last["verdict"] == CLOSE or not last["explorable"]:
            break
        best = last["explorable"][0]
        rounds.append(engine.recall({"text": text, "from_nodes": best["from_nodes"], "relations": [best["rel"]],
                                     "depth": 1, "max_results": TOP}).to_json())
    return rounds


def pooled(rounds: list[dict]) -> list[dict]:
    """Every round's nodes by h (round, then rank, breaks ties), each unit once."""
    seen, nodes = set(), []
    for node in _by_h(rounds):
        if node["card_id"] not in seen:
            seen.add(node["card_id"])
            nodes.append(node)
    return nodes


def _by_h(rounds: list[dict]) -> list[dict]:
    ranked = [(node["h_distance"], number, position, node) for number, document in enumerate(rounds)
              for position, node in enumerate(document["nodes"])]
    return [row[3] for row in sorted(ranked, key=lambda row: row[:3])]


def measure_navigation(haystacks: list[Haystack]) -> list[Navigated]:
    results: list[Navigated] = []

    def ask(haystack: Haystack, home: Path, run: Run, config_overrides: dict | None, model_cache: Path) -> None:
        engine = build(haystack, home, run, config_overrides, model_cache)
        mapper = UnitMapper(home, haystack.turns)
        with served(engine):
            for question in haystack.questions:
                rounds = navigate(engine, question.text)
                first = rounds[0]
                deeper = engine.recall({"text": question.text, "max_results": 2 * TOP}).to_json()
                results.append(Navigated(
                    question, Scored(question, [mapper.unit(node) for node in first["nodes"]]),
                    Scored(question, [mapper.unit(node) for node in pooled(rounds)]),
                    Scored(question, [mapper.unit(node) for node in deeper["nodes"]]), len(rounds) - 1,
                    first["verdict"].split(":")[0], {key: first[key] for key in THRESHOLDS}))
        del engine

    measure(haystacks, ask=ask)
    return results


def navigation_rows(name: str, label: str, results: list[Navigated], groups: list[str]) -> list[Row]:
    rows = []
    for group in groups:
        items = [item for item in results if group in item.question.groups]
        if not items:
            continue
        single = statistics.mean(item.single.recall(TOP) for item in items)
        navigated = statistics.mean(item.navigated.recall_within(item.single.tokens(TOP)) for item in items)
        hopped = [item.hops for item in items if item.hops]
        rows.append(Row(name, f"{label} {group}: recall at one recall's tokens — single recall", single, "recall",
                        f"{statistics.mean(item.single.tokens(TOP) for item in items):.0f} tokens, "
                        f"{len(items)} questions"))
        rows.append(Row(name, f"{label} {group}: recall at one recall's tokens — navigated (≤{MAX_HOPS} hops)",
                        navigated, "recall",
                        f"{navigated - single:+.3f} against one recall; {len(hopped)}/{len(items)} questions "
                        f"hopped ({statistics.mean(hopped) if hopped else 0:.2f} hops each)"))
        deeper = statistics.mean(item.deeper.recall_within(2 * item.single.tokens(TOP)) for item in items)
        doubled = statistics.mean(item.navigated.recall_within(2 * item.single.tokens(TOP)) for item in items)
        rows.append(Row(name, f"{label} {group}: recall at twice one recall's tokens — one recall read further down",
                        deeper, "recall", f"max_results {2 * TOP}, cut at twice round 1's tokens"))
        rows.append(Row(name, f"{label} {group}: recall at twice one recall's tokens — navigated (≤{MAX_HOPS} hops)",
                        doubled, "recall", f"{doubled - deeper:+.3f} against reading further down (target +0.03)"))
    rows.extend(calibration_rows(name, label, results))
    return rows


def calibration_rows(name: str, label: str, results: list[Navigated]) -> list[Row]:
    """How often round 1 holds an evidence turn in its top 5, per verdict and below thresholds of each h."""
    rows = []
    for verdict in sorted({item.verdict for item in results}):
        items = [item for item in results if item.verdict == verdict]
        rows.append(Row(name, f"{label}: hit@5 when the verdict is '{verdict}'",
                        statistics.mean(item.single.hit(5) for item in items), "fraction",
                        f"{len(items)}/{len(results)} questions"))
    for key, thresholds in THRESHOLDS.items():
        found = [(item.h[key], item.single.hit(5)) for item in results if item.h[key] is not None]
        notes = []
        for threshold in thresholds:
            notes.append(f"<{threshold}: " + _share([hit for h, hit in found if h < threshold]))
        notes.append(f">={thresholds[-1]}: " + _share([hit for h, hit in found if h >= thresholds[-1]]))
        rows.append(Row(name, f"{label}: {key} tells hits@5 from misses", _auc(found), "AUC",
                        f"median {statistics.median(h for h, _ in found):.3f}; " + "; ".join(notes)))
    return rows


def _share(hits: list[float]) -> str:
    return f"{len(hits)} q, hit@5 {statistics.mean(hits) if hits else float('nan'):.2f}"


def _auc(found: list[tuple[float, float]]) -> float | None:
    """The chance that a hit has a lower h than a miss (ties count half)."""
    hits = [h for h, hit in found if hit]
    misses = [h for h, hit in found if not hit]
    if not hits or not misses:
        return None
    wins = sum((h < other) + 0.5 * (h == other) for h in hits for other in misses)
    return wins / (len(hits) * len(misses))
