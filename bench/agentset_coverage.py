"""``distill_coverage`` on agentset: how much of the labelled knowledge the store's cards hold, per kind.

The other datasets label only the turns questions point at; agentset labels the knowledge itself, so here a card
is judged on what it says (:mod:`bench.item_coverage`, :mod:`bench.specifics`), on the store built from all 24
sessions (:mod:`bench.agentset_store`). Rows: the share of items some card covers, overall and per kind; the
share of cards that match no item; the sessions that gave no card; the share of the questions' evidence turns
inside some card (what bounds recall of cards alone); the cards made. Every item's result is saved in the last
row's JSON detail.

The offline distiller (the default) is what the targets measure. When ``ALAYA_BENCH_LLM_URL`` names an
OpenAI-compatible endpoint (with ``ALAYA_BENCH_LLM_MODEL`` and, for its key, ``ALAYA_BENCH_LLM_KEY_ENV``: the name
of the variable holding it), the same rows are measured for a store the LLM distiller built, beside them.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from .agentset_store import agentset_store, dataset_for, read_cards
from .item_coverage import Coverage, measure
from .plan import Plan
from .quality.agentset import KINDS, Agentset
from .report import Row, percent, skipped

LABEL = "agentset"


LLM_URL, LLM_MODEL, LLM_KEY_ENV = "ALAYA_BENCH_LLM_URL", "ALAYA_BENCH_LLM_MODEL", "ALAYA_BENCH_LLM_KEY_ENV"


def run(plan: Plan, name: str) -> list[Row]:
    dataset = dataset_for(plan, name)
    if isinstance(dataset, Row):
        return [dataset]
    with agentset_store(plan, dataset) as (home, built):
        rows = coverage_rows(name, dataset, home, built)
    llm = llm_settings(os.environ)
    if llm is None:
        return rows + [skipped(name, f"{LABEL} with an LLM distiller", f"set {LLM_URL} (and {LLM_MODEL}, "
                                                                         f"{LLM_KEY_ENV}) to measure one beside")]
    with agentset_store(plan, dataset, llm, name="llm") as (home, built):
        return rows + coverage_rows(name, dataset, home, built, f"{LABEL} (LLM {llm['model']})")


def llm_settings(environ) -> dict | None:
    """``distill`` settings for the endpoint the environment names, or None."""
    if not environ.get(LLM_URL):
        return None
    return {"llm_provider": "openai", "base_url": environ[LLM_URL], "model": environ.get(LLM_MODEL, "default"),
            "api_key_env": environ.get(LLM_KEY_ENV, "")}


def coverage_rows(name: str, dataset: Agentset, home: Path, built: dict, label: str = LABEL) -> list[Row]:
    cards = read_cards(home, dataset)
    coverage = measure(dataset.items, cards, {turn.key: turn.content for turn in dataset.haystack.turns})
    judged = coverage.judged
    covered = sum(result.covered for result in judged)
    touched = sum(bool(result.touching) for result in judged)
    stated = sum(result.covered_with_stated for result in judged)
    whole = sum(result.covered_whole for result in judged)
    rows = [Row(name, f"{label}: items a card covers", percent(covered, len(judged)), "%",
                f"{covered} of {len(judged)}; by a card holding every turn of the item: {whole} "
                f"({percent(whole, len(judged))}%); a card sharing a turn, specifics aside: {touched} "
                f"({percent(touched, len(judged))}%); with all the statement's specifics, said in its turns or not: "
                f"{stated} ({percent(stated, len(judged))}%); "
                f"items with no specific said (a shared turn suffices): "
                f"{sum(not result.specifics for result in judged)}")]
    for kind in KINDS:
        of_kind = [result for result in judged if result.item.kind == kind]
        kept = sum(result.covered for result in of_kind)
        rows.append(Row(name, f"{label}: {kind} items covered", percent(kept, len(of_kind)), "%",
                        f"{kept} of {len(of_kind)}"))
    return (rows + _card_rows(name, dataset, coverage, built, label) + _repeat_rows(name, cards, label)
            + _fact_rows(name, dataset, cards, label)
            + [_detail_row(name, coverage, label)])


def _repeat_rows(name: str, cards: list, label: str) -> list[Row]:
    """Pairs of cards from one session where the shorter's words are nearly all in the other: one point said
    twice. Words are lower-case word tokens and CJK character pairs, the title and content of each card."""
    by_session: dict[str, list] = {}
    for card in cards:
        for session in {turn[0] for turn in card.turns}:
            by_session.setdefault(session, []).append(card)
    pairs = []
    for members in by_session.values():
        words = [_words(card.text) for card in members]
        pairs += [(first.card_id, second.card_id) for i, first in enumerate(members) for j, second in
                  enumerate(members) if i < j and _repeats(words[i], words[j])]
    return [Row(name, f"{label}: card pairs of one session saying the same thing", len(pairs), "pairs",
                f"of {len(cards)} cards (the shorter card's words {REPEAT_SHARE:.0%} or more in the other)")]


REPEAT_SHARE = 0.8


def _words(text: str) -> set[str]:
    cjk = "".join(re.findall(r"[\u3400-\u9fff]", text))
    return {word.lower() for word in re.findall(r"[A-Za-z0-9_][\w.-]*", text)} | {cjk[i:i + 2]
                                                                                 for i in range(len(cjk) - 1)}


def _repeats(first: set[str], second: set[str]) -> bool:
    shorter, longer = sorted((first, second), key=len)
    return bool(shorter) and len(shorter & longer) / len(shorter) >= REPEAT_SHARE


def _fact_rows(name: str, dataset: Agentset, cards: list, label: str) -> list[Row]:
    """How many cards state facts, and for how many labelled updates a card of the current item and a card of the
    stale one state the same subject and attribute with different values: what recognising the update needs."""
    stating = [card for card in cards if card.facts]
    recognisable = [update.qid for update in dataset.updates if _share_an_attribute(
        [card for card in cards if card.turns & update.current], [card for card in cards if card.turns & update.stale])]
    return [
        Row(name, f"{label}: cards stating facts", percent(len(stating), len(cards)), "%",
            f"{len(stating)} of {len(cards)} cards, {sum(len(card.facts) for card in cards)} facts"),
        Row(name, f"{label}: updates whose two sides state the same attribute", len(recognisable), "updates",
            f"of {len(dataset.updates)} labelled updates (a card of the current item and one of the stale item give "
            f"the same subject and attribute different values)" + (f": {', '.join(recognisable)}" if recognisable
                                                                     else "")),
    ]


def _share_an_attribute(current: list, stale: list) -> bool:
    old = {(key, value) for card in stale for key, value in card.facts}
    return any(key == old_key and value != old_value
               for card in current for key, value in card.facts for old_key, old_value in old)


def _card_rows(name: str, dataset: Agentset, coverage: Coverage, built: dict, label: str) -> list[Row]:
    cards = coverage.cards
    in_cards = frozenset().union(*(card.turns for card in cards))
    idle = [session for session in dataset.session_ids if not any(turn[0] == session for turn in in_cards)]
    evidence = frozenset().union(*(question.evidence for question in dataset.haystack.questions))
    return [
        Row(name, f"{label}: cards matching no item", percent(len(coverage.unmatched), len(cards)), "%",
            f"{len(coverage.unmatched)} of {len(cards)} cards; sharing no turn with any item: "
            f"{len(coverage.untouched)} ({percent(len(coverage.untouched), len(cards))}%)"),
        Row(name, f"{label}: sessions with no card", len(idle), "sessions",
            f"of {len(dataset.session_ids)}" + (f": {', '.join(idle)}" if idle else "")),
        Row(name, f"{label}: evidence turns inside a card", percent(len(evidence & in_cards), len(evidence)), "%",
            f"{len(evidence & in_cards)} of {len(evidence)} evidence turns of {len(dataset.haystack.questions)} "
            f"questions"),
        Row(name, f"{label}: cards made", len(cards), "cards",
            f"{len(dataset.session_ids)} sessions, {len(dataset.haystack.turns)} turns, {built['links']} links; "
            f"ingest + distill {built['seconds']:.1f} s"),
    ]


def _detail_row(name: str, coverage: Coverage, label: str) -> Row:
    """Per item: whether it is covered, the cards sharing a turn with it, and the specifics the best one kept."""
    columns = ["kid", "kind", "covered", "cards sharing a turn", "best card's specifics kept", "specifics said"]
    lines = ["\t".join([result.item.kid, result.item.kind, str(int(result.covered)), ",".join(result.touching),
                        f"{max(result.best_kept, 0)}/{len(result.specifics)}", " | ".join(result.specifics)])
             for result in coverage.judged]
    return Row(name, f"{label}: per-item results (JSON detail)", len(lines), "items",
               "kid, kind, covered, cards sharing a turn, specifics kept by the best of them, specifics said",
               detail={"columns": columns, "rows": lines})
