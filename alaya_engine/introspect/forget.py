"""Forget: drop long-cold, unused, unneeded cards from L2 and L1 — but never from L3.

A card is forgotten when it is COLD, its temperature is below
``introspect.forget_threshold``, it has not been touched for
``introspect.forget_days``, it was recalled fewer than 3 times, and no other
card depends on it (no incoming ``DEPENDS_ON``). Before anything is deleted,
the card and its edges are written to the L3 journal (``card.forget``), so
``alaya restore CARD_ID`` can bring it back exactly and a rebuild knows it
was forgotten.

A run forgets for at most ``introspect.forget_minutes``, the most forgettable
cards first (coldest, then longest untouched); the rest wait for the next run.
Deleting a card from the graph costs ~2.4 ms at a million cards whatever the
statement's shape, so the first run after a long pause would otherwise hold
the store for half an hour (docs/benchmarks.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from ..graph.store import card_document
from ..raw.journal import Journal
from .temperature import DAY_MS

if TYPE_CHECKING:
    import pyarrow as pa

    from ..foundations.domain import Card, Link
    from ..graph.store import GraphStore
    from ..vectors.store import VectorStore

MAX_ACCESSES = 3
BATCH = 2000
"""Cards forgotten per step: one journal write, one L1 delete; recalls get in between steps. Each step costs
a fixed part (L1 deletes scanning ``card_meta`` and ``card_heat``, a graph commit, ``stats.json``): measured at
100k cards, forgetting 49k took 42 s in steps of 500, 29 s in steps of 2000 (~1 s each), 24 s in steps of 5000."""


@dataclass
class ForgetReport:
    forgotten: list[str] = field(default_factory=list)
    dry_run: bool = False
    left: int = 0
    """Cards that meet every criterion but wait for the next run: this one spent its ``forget_minutes``."""

    def to_json(self) -> dict:
        return {**asdict(self), "count": len(self.forgotten)}


def forgettable(heat: "pa.Table", now: int, settings: dict, depended_on: set[str]) -> list[str]:
    """The ids meeting every criterion, most forgettable first (coldest, then longest untouched); each criterion
    is tested on its own in the tests. ``heat``: the cards' heat columns (:meth:`VectorStore.heat_table`)."""
    return heat.column("id").take(_forgettable_rows(heat, now, settings, depended_on)).to_pylist()


def _forgettable_rows(heat: "pa.Table", now: int, settings: dict, depended_on: set[str]) -> "pa.Array":
    """:func:`forgettable`'s rows of ``heat``, by position: read as columns, since a Python object per value of a
    million cards held ~0.5 GB through the whole step."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc

    def numbers(name: str, missing) -> "np.ndarray":
        return pc.fill_null(heat.column(name), missing).to_numpy()

    temperature = numbers("temperature", 1.0)
    touched = np.maximum(numbers("created_at", 0), numbers("last_accessed", 0))
    chosen = (pc.fill_null(pc.equal(heat.column("tier"), "COLD"), False).to_numpy()
              & (temperature < settings["forget_threshold"]) & (now - touched > settings["forget_days"] * DAY_MS)
              & (numbers("access_count", 0) < MAX_ACCESSES))
    if depended_on:
        chosen &= ~pc.is_in(heat.column("id"), pa.array(sorted(depended_on), pa.string())).to_numpy()
    rows = pa.array(np.nonzero(chosen)[0])
    candidates = pa.table({"temperature": pa.array(temperature).take(rows), "touched": pa.array(touched).take(rows),
                           "id": heat.column("id").take(rows)})
    order = pc.sort_indices(candidates, sort_keys=[("temperature", "ascending"), ("touched", "ascending"),
                                                   ("id", "ascending")])
    return rows.take(order)


def forget(*, vectors: "VectorStore", graph: "GraphStore", journal: Journal, settings: dict, now: int,
           dry_run: bool, step: Callable[[], AbstractContextManager]) -> ForgetReport:
    """Forget what :func:`forgettable` chooses, batch by batch, until done or ``forget_minutes`` have passed (a
    batch once begun is finished; the first always runs)."""
    started = time.monotonic()
    heat = vectors.heat_table()
    depended_on = {row[0] for row in graph.query("MATCH (:Card)-[:DEPENDS_ON]->(b:Card) RETURN DISTINCT b.id")}
    rows = _forgettable_rows(heat, now, settings, depended_on)
    if dry_run or not len(rows):
        return ForgetReport(forgotten=heat.column("id").take(rows).to_pylist(), dry_run=dry_run)
    report = ForgetReport()
    for start in range(0, len(rows), BATCH):
        if start and time.monotonic() - started >= settings["forget_minutes"] * 60:
            report.left = len(rows) - start
            break
        by_id = {row["id"]: row for row in heat.take(rows[start:start + BATCH]).to_pylist()}
        batch = list(by_id)
        with step():
            cards, edges = graph.cards(batch), graph.edges_of_many(batch)
            in_graph = [card_id for card_id in batch if card_id in cards]
            # A card already gone from the graph was journaled and deleted there by a run cut short before its L1
            # delete: only its vector and metadata are left to delete.
            journal.append_many("card.forget", now, [{"card": card_document(cards[card_id]), "meta": by_id[card_id],
                                                      "edges": edges[card_id]} for card_id in in_graph])
            graph.delete_cards(in_graph)
            vectors.delete_cards(batch)
        report.forgotten.extend(batch)
    return report


def restore(*, card_id: str, vectors: "VectorStore", graph: "GraphStore", journal: Journal, embedder, now: int) -> dict:
    """Bring a forgotten card back from the journal: the card, its metadata, its vector and the edges whose
    other end still exists. It comes back WARM; the next introspect re-tiers it."""
    from ..foundations.errors import AlayaError

    if graph.cards([card_id]):
        raise AlayaError("card_exists", f"card '{card_id}' is in the store; nothing to restore")
    event = last_forget_event(journal, card_id)
    if event is None:
        raise AlayaError("unknown_card", f"no forgotten card '{card_id}' in the journal; see: alaya status")
    card, links = card_from_forget_event(event, now)
    journal.append("card.restore", now, card_id=card_id)
    graph.upsert_card(card)
    sessions = {session["id"] for session in graph.sessions(card.source_sessions)}
    present = set(graph.cards([other for link in links for other in (link.source, link.target)]))
    restored = [link for link in links if (link.target in sessions if link.relation == "EXTRACTED_FROM"
                                           else link.source in present and link.target in present)]
    for link in restored:
        graph.merge_link(link)
    vectors.upsert_cards([card], embedder.embed([card.embedding_text()]))
    vectors.update_heat([{**event["meta"], "tier": "WARM"}])
    return {"card_id": card_id, "edges_restored": len(restored), "edges_lost": len(links) - len(restored)}


def last_forget_event(journal: Journal, card_id: str) -> dict | None:
    event = None
    for candidate in journal.events("card.forget"):
        if candidate["card"]["id"] == card_id:
            event = candidate
    return event


def card_from_forget_event(event: dict, now: int) -> tuple["Card", list["Link"]]:
    """The card a ``card.forget`` event saved (WARM again) and every edge it had; what restoring means,
    shared by ``alaya restore`` and a rebuild replaying ``card.restore``. Callers keep the edges whose
    other end still exists."""
    from ..foundations.domain import Card, Fact, Link

    saved = event["card"]
    card_id = saved["id"]
    card = Card(id=card_id, title=saved["title"], content=saved["content"], type=saved["type"], tags=saved["tags"],
                importance=saved["importance"], source_sessions=saved["source_sessions"] or [],
                created_at=_millis(saved["created_at"]), updated_at=now, temperature=saved["temperature"],
                tier="WARM", source=saved["source"], facts=[Fact.from_json(fact) for fact in saved.get("facts") or []])
    links = [Link(card_id, session, "EXTRACTED_FROM", created_at=now) for session in card.source_sessions]
    links += [Link(card_id, edge["card_id"], edge["relation"], edge["weight"] or 1.0, edge["reason"] or "", now)
              for edge in event["edges"]["outgoing"]]
    links += [Link(edge["card_id"], card_id, edge["relation"], edge["weight"] or 1.0, edge["reason"] or "", now)
              for edge in event["edges"]["incoming"]]
    return card, links


def _millis(iso: str) -> int:
    from datetime import datetime, timezone

    return int(datetime.fromisoformat(iso).replace(tzinfo=timezone.utc).timestamp() * 1000)
