"""Cool-down (seed 4.7.2): fold the access log, recompute every temperature, re-tier, move vectors.

COLD cards lose their vector row in L1 (the card and its metadata stay in L2
and ``card_meta``); a COLD card that warms up again — recalled through the
graph or full-text search — gets its embedding back here. The access log is
folded from the byte offset of the previous fold, saved last: a crash before
that re-counts at most the accesses of one fold.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import atomic_write_text
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
    """Cards that went COLD now: their vectors were dropped."""
    restored: int = 0
    """COLD cards that warmed up: their vectors are back."""
    accesses_folded: int = 0
    dry_run: bool = False

    def to_json(self) -> dict:
        return asdict(self)


RANK = {"COLD": 0, "WARM": 1, "HOT": 2}


def cool_down(*, vectors: "VectorStore", graph: "GraphStore", embedder: "Embedder", access_log: AccessLog,
              settings: dict, now: int, dry_run: bool, step: Callable[[], AbstractContextManager]) -> CooldownReport:
    offset_file = access_log.offset_file
    offset = int(offset_file.read_text()) if offset_file.exists() else 0
    folded, end = access_log.fold(offset)
    rows = vectors.heat_rows()
    report = CooldownReport(cards=len(rows), dry_run=dry_run,
                            accesses_folded=sum(stats.count for stats in folded.values()))
    for row in rows:
        _fold_into(row, folded.get(row["id"]))
    heat = assign_tiers([CardHeat(row["id"], row["created_at"], row["last_accessed"], row["access_count"],
                                  row["relevance"] or 0.0) for row in rows], now, settings)
    with_vectors = vectors.vector_ids()
    restore = []
    for row in rows:
        previous = row["tier"]
        row["temperature"], row["tier"] = heat[row["id"]]
        report.by_tier[row["tier"]] += 1
        report.upgraded += RANK[row["tier"]] > RANK[previous]
        report.downgraded += RANK[row["tier"]] < RANK[previous]
        if row["tier"] != "COLD" and row["id"] not in with_vectors:
            restore.append(row)
    archive = [row["id"] for row in rows if row["tier"] == "COLD" and row["id"] in with_vectors]
    report.newly_archived, report.restored = len(archive), len(restore)
    if dry_run:
        return report
    with step():
        vectors.update_heat(rows)
        vectors.drop_vectors(archive)
        if restore:
            cards = graph.cards([row["id"] for row in restore])
            texts = [f"{cards[row['id']]['title']}\n{cards[row['id']]['content']}" for row in restore]
            vectors.add_vectors(restore, embedder.embed(texts))
        graph.set_heat([{"id": row["id"], "temperature": row["temperature"], "tier": row["tier"]} for row in rows])
        _save_offset(offset_file, end)
    return report


def _fold_into(row: dict, stats) -> None:
    """Add newly logged accesses to a card's counters; relevance stays the mean similarity over all of them."""
    if stats is None:
        return
    before = row["access_count"]
    total = before + stats.count
    row["relevance"] = ((row["relevance"] or 0.0) * before + sum(stats.similarities)) / total
    row["access_count"] = total
    row["last_accessed"] = max(row["last_accessed"], stats.last_accessed)


def _save_offset(path: Path, offset: int) -> None:
    atomic_write_text(path, str(offset))
