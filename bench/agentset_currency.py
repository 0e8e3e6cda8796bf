"""Knowledge that stays current, on agentset's labels: supersede links, contradiction suggestions, the review queue.

The agentset store (:mod:`bench.agentset_store`, after introspect's consolidate and supersede steps) is read back:

- ``SUPERSEDES`` links against the labelled updates (an item that ``supersedes`` an earlier one). A link is right
  when its new card shares a turn with the newer item of a labelled update and its old card one with the older
  item; precision is over links, recall over labelled updates (one right link finds it).
- ``contradicts`` suggestions against the labelled contradictions, counted the same way (either order).
- The pending review queue: the share of suggestions the labels support — a merge or similar pair whose cards
  both share a turn with one item (the same knowledge), a contradiction a label names.

How recall then ranks current against stale knowledge is ``agentset_quality``'s update row.
"""

from __future__ import annotations

import json
from pathlib import Path

from alaya_engine.engine import Engine

from .agentset_store import agentset_store, dataset_for
from .plan import Plan
from .quality.agentset import Agentset
from .quality.alaya import UnitMapper
from .quality.records import TurnKey
from .report import Row

NAME = "agentset_currency"


def run(plan: Plan) -> list[Row]:
    dataset = dataset_for(plan, NAME)
    if isinstance(dataset, Row):
        return [dataset]
    with agentset_store(plan, dataset) as (home, _built):
        return currency_rows(dataset, home)


def currency_rows(dataset: Agentset, home: Path) -> list[Row]:
    turns = UnitMapper(home, dataset.haystack.turns).all_cards()
    with Engine.open(home).step() as graph:
        links = graph.query("MATCH (a:Card)-[:SUPERSEDES]->(b:Card) RETURN a.id, b.id")
    path = home / "raw" / "review" / "suggestions.json"
    queue = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    pending = [item for item in queue.values() if item["status"] == "pending"]
    contradictions = [item["subjects"] for item in pending if item["kind"] == "contradicts"]
    rows = [*_pair_rows("SUPERSEDES links", links, "supersedes", dataset, turns, ordered=True),
            *_pair_rows("contradicts suggestions", contradictions, "contradicts", dataset, turns, ordered=False)]
    supported = [item for item in pending if _supported(item, dataset, turns)]
    kinds = sorted({item["kind"] for item in pending})
    rows.append(Row(NAME, "agentset: pending suggestions the labels support",
                    len(supported) / len(pending) if pending else None,
                    "fraction", f"{len(supported)} of {len(pending)} pending ("
                                + ", ".join(f"{kind} {sum(item['kind'] == kind for item in pending)}"
                                            for kind in kinds) + ")"))
    return rows


def _pair_rows(what: str, pairs: list, kind: str, dataset: Agentset, turns: dict[str, frozenset[TurnKey]],
               ordered: bool) -> list[Row]:
    labelled = [relation for relation in dataset.relations if relation.kind == kind]
    right, found = 0, set()
    for new, old in pairs:
        hits = {relation.newer.kid for relation in labelled if _joins(relation, new, old, turns)
                or (not ordered and _joins(relation, old, new, turns))}
        right += bool(hits)
        found |= hits
    return [Row(NAME, f"agentset {what}: precision", right / len(pairs) if pairs else None, "fraction",
                f"{right} of {len(pairs)} match a labelled pair ({kind})"),
            Row(NAME, f"agentset {what}: recall", len(found) / len(labelled) if labelled else None, "fraction",
                f"{len(found)} of {len(labelled)} labelled pairs ({kind}) found")]


def _joins(relation, new: str, old: str, turns: dict[str, frozenset[TurnKey]]) -> bool:
    return bool(turns.get(new, frozenset()) & relation.newer.turns) and bool(
        turns.get(old, frozenset()) & relation.older.turns)


def _supported(item: dict, dataset: Agentset, turns: dict[str, frozenset[TurnKey]]) -> bool:
    first, second = item["subjects"][:2]
    if item["kind"] == "contradicts":
        return any(_joins(relation, first, second, turns) or _joins(relation, second, first, turns)
                   for relation in dataset.relations if relation.kind == "contradicts")
    if item["kind"] in ("merge_cards", "similar_to"):
        return any(turns.get(first, frozenset()) & label.turns and turns.get(second, frozenset()) & label.turns
                   for label in dataset.items)
    return False
