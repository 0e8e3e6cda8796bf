"""The agentset store: every session of the set in one store, ingested and distilled as a user's would be.

Then introspect's consolidate and supersede steps, as the nightly run would: later cards replacing earlier ones
are linked, and the review queue holds what a person would be asked (cooldown is left out: the sessions are
months old, and cooling them would measure the clock, not the memory).

Built once per ``python -m bench`` run (:meth:`bench.stores.Stores.dataset`) and copied for each benchmark that
reads it: ``distill_coverage`` judges its cards, ``agentset_quality`` recalls from it. Sessions go in in time
order, the order the memory grows in; the distiller is the configured default (offline).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.graph.store import facts_from_graph

from .item_coverage import CardText
from .plan import Plan
from .quality import agentset
from .quality.agentset import Agentset
from .quality.alaya import UnitMapper
from .quality.records import MissingData
from .report import Row, skipped
from .stores import update_config

QUICK_SESSIONS = 6


def dataset_for(plan: Plan, name: str) -> Agentset | Row:
    """What benchmark ``name`` measures: every session, or in ``--quick`` (when named) the first
    ``QUICK_SESSIONS``; else the row saying why nothing is measured (skipped in ``--quick``, data absent)."""
    if plan.quick and name not in plan.named:
        return skipped(name, "agentset: skipped in --quick", f"tens of seconds of ingest and distill; --quick --only "
                                                            f"{name} for the first {QUICK_SESSIONS} sessions")
    try:
        return agentset.load(QUICK_SESSIONS if plan.quick else None)
    except MissingData as missing:
        return skipped(name, "agentset not found", str(missing))


def build(home: Path, dataset: Agentset, distill: dict | None = None) -> dict:
    """Ingest and distill the sessions into the initialised store at ``home`` (with ``distill`` settings over
    config.json's, e.g. an LLM distiller's); what it took."""
    started = time.perf_counter()
    if distill:
        update_config(home, "distill", distill)
    engine = Engine.open(home)
    engine.ingest([str(path) for path in dataset.haystack.sessions])
    report = engine.distill().to_json()
    superseded = engine.introspect(steps=["consolidate", "supersede"])["steps"]
    return {"seconds": time.perf_counter() - started, "cards": report["cards_created"],
            "links": report["links_created"] + 2 * superseded["supersede"]["superseded"]}


@contextmanager
def agentset_store(plan: Plan, dataset: Agentset, distill: dict | None = None,
                   name: str = "offline") -> Iterator[tuple[Path, dict]]:
    """A fresh copy of the run's store of these sessions (distilled by ``name``), and what building it took."""
    with plan.stores.dataset(f"agentset-{name}-{len(dataset.haystack.sessions)}",
                             lambda home: build(home, dataset, distill)) as (home, built):
        yield home, built


def read_cards(home: Path, dataset: Agentset) -> list[CardText]:
    """Every card of the store with its context turns and its title and content."""
    turns = UnitMapper(home, dataset.haystack.turns).all_cards()
    with Engine.open(home).step() as graph:
        documents = graph.cards(list(turns))
    return [CardText(card_id, turns[card_id], f"{document['title']}\n{document['content']}",
                     tuple((fact.key(), fact.value) for fact in facts_from_graph(document["facts"])))
            for card_id, document in sorted(documents.items())]
