"""Cool-down: fold the access log, recompute every temperature, re-tier, move vectors.

A COLD card's vector leaves the resident table for ``cold_vectors`` (8-bit
codes, read by recall without being held as floats); a COLD card that warms up
again — recalled through the graph or search — gets it back here. A COLD card
of a store from before cold vectors were kept is embedded once, here. The access log is
folded from the byte offset of the previous fold, saved last: a crash before
that re-counts at most the accesses of one fold. The fold, the read of the
counters and their write are one step, so two cool-downs never fold the same
lines and a card distilled meanwhile is not missed.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_text
from ..recall.access import AccessLog
from .temperature import CardHeat, assign_tiers

if TYPE_CHECKING:
    from ..embedding.base import Embedder
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore


@dataclass
class CooldownReport:
    cards: int = 0
    by_tier: dict[str, int] = field(default_factory=lambda: {"HOT": 0, "WARM": 0, "COLD": 0})
    upgraded: int = 0
    downgraded: int = 0
    newly_archived: int = 0
    """Cards that went COLD now: their vectors moved to ``cold_vectors``."""
    restored: int = 0
    """COLD cards that warmed up: their vectors are back in the resident table."""
    accesses_folded: int = 0
    dry_run: bool = False

    def to_json(self) -> dict:
        return asdict(self)


RANK = {"COLD": 0, "WARM": 1, "HOT": 2}


def cool_down(*, vectors: "VectorStore", graph: "GraphStore", embedder: "Embedder", access_log: AccessLog,
              settings: dict, now: int, dry_run: bool, step: Callable[[], AbstractContextManager]) -> CooldownReport:
    """Works on columns, not a dict per card, and writes to L1 only the rows that changed (``card_heat``, apart
    from the searched text: LanceDB rewrites whole rows): at 100k cards most rows are long cold and stay as they
    were. All in one step (~3 s at 100k cards; recalls do not wait for steps)."""
    with step():
        return _cool_down(vectors=vectors, graph=graph, embedder=embedder, access_log=access_log,
                          settings=settings, now=now, dry_run=dry_run)


def _cool_down(*, vectors: "VectorStore", graph: "GraphStore", embedder: "Embedder", access_log: AccessLog,
               settings: dict, now: int, dry_run: bool) -> CooldownReport:
    offset_file = access_log.offset_file
    offset = int(offset_file.read_text()) if offset_file.exists() else 0
    before = vectors.heat_columns()
    folded, end = _fold(access_log, offset, set(before["id"]), graph)
    ids = before["id"]
    after = _folded(before, folded)
    heat = assign_tiers([CardHeat(*card, relevance or 0.0) for *card, relevance in zip(
        ids, before["created_at"], after["last_accessed"], after["access_count"], after["relevance"])], now, settings)
    after["temperature"], after["tier"] = [heat[card_id][0] for card_id in ids], [heat[card_id][1] for card_id in ids]
    report = CooldownReport(cards=len(ids), dry_run=dry_run,
                            accesses_folded=sum(stats.count for stats in folded.values()))
    for previous, tier in zip(before["tier"], after["tier"]):
        report.by_tier[tier] += 1
        report.upgraded += RANK[tier] > RANK[previous]
        report.downgraded += RANK[tier] < RANK[previous]
    vector_tiers = vectors.vector_tiers()
    restore = [{"id": card_id, "tier": tier, "type": card_type}
               for card_id, tier, card_type in zip(ids, after["tier"], before["type"])
               if tier != "COLD" and card_id not in vector_tiers]
    kept_cold = set(vectors.cold_ids())
    archive = [card_id for card_id, tier in zip(ids, after["tier"]) if tier == "COLD" and card_id in vector_tiers]
    unkept = [{"id": card_id, "tier": "COLD", "type": card_type}
              for card_id, tier, card_type in zip(ids, after["tier"], before["type"])
              if tier == "COLD" and card_id not in vector_tiers and card_id not in kept_cold]
    retier = {card_id: tier for card_id, tier in zip(ids, after["tier"])
              if tier != "COLD" and vector_tiers.get(card_id, tier) != tier}
    report.newly_archived, report.restored = len(archive), len(restore)
    if dry_run:
        return report
    computed = [name for name in vectors.HEAT_UPDATE_COLUMNS if name != "id"]
    changed = [index for index, values in enumerate(zip(*(after[name] for name in computed)))
               if values != tuple(before[name][index] for name in computed)]
    vectors.update_heat_columns({"id": [ids[index] for index in changed],
                              **{name: [after[name][index] for index in changed] for name in computed}})
    _embed_into(vectors, graph, embedder, unkept)
    vectors.archive_vectors(archive + [row["id"] for row in unkept])
    vectors.set_vector_tiers(retier)
    _embed_into(vectors, graph, embedder, vectors.restore_vectors(restore))
    graph.set_heat_columns(ids, after["temperature"], after["tier"])
    _save_offset(offset_file, end)
    return report


def _embed_into(vectors: "VectorStore", graph: "GraphStore", embedder: "Embedder", rows: list[dict]) -> None:
    """Embed these cards (``rows``: id, tier, type) into ``card_vectors``."""
    if rows:
        cards = graph.cards([row["id"] for row in rows])
        rows = [row for row in rows if row["id"] in cards]
        texts = [f"{cards[row['id']]['title']}\n{cards[row['id']]['content']}" for row in rows]
        vectors.add_vectors(rows, embedder.embed(texts))


def _fold(access_log: AccessLog, offset: int, known: set[str], graph: "GraphStore") -> tuple[dict, int]:
    """The log from ``offset``, up to the first line naming a card the graph has but ``card_heat`` not yet (distill
    writes L1 at its next flush; a recall can reach the card through the graph before that): folded now, its
    count would be lost, since only rows of ``card_heat`` are written. Cards in neither (forgotten, merged away)
    are left out, as before."""
    folded, end = access_log.fold(offset)
    unknown = [card_id for card_id in folded if card_id not in known]
    pending = set(graph.card_types(unknown)) if unknown else set()
    return access_log.fold(offset, stop_at=pending) if pending else (folded, end)


def _folded(before: dict[str, list], folded: dict) -> dict[str, list]:
    """The counters with newly logged accesses added; relevance stays the mean similarity over all of them."""
    after = {name: list(before[name]) for name in ("last_accessed", "access_count", "relevance")}
    for index, card_id in enumerate(before["id"]):
        stats = folded.get(card_id)
        if stats is None:
            continue
        count = after["access_count"][index]
        total = count + stats.count
        after["relevance"][index] = ((after["relevance"][index] or 0.0) * count + sum(stats.similarities)) / total
        after["access_count"][index] = total
        after["last_accessed"][index] = max(after["last_accessed"][index], stats.last_accessed)
    return after


def _save_offset(path: Path, offset: int) -> None:
    atomic_write_text(path, str(offset))
