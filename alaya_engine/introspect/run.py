"""One introspect run: its steps in their fixed order, each timed, then the full-text index brought up to date."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_json
from ..foundations.domain import millis_now
from ..foundations.errors import AlayaError
from ..foundations.memory import release_freed_memory
from ..raw.journal import Journal
from ..recall.access import AccessLog
from .consolidate import consolidate
from .cooldown import cool_down
from .forget import forget
from .suggestions import SuggestionStore
from .supersede import supersede

if TYPE_CHECKING:
    from ..store_parts import StoreParts
    from .confirm import MergeConfirmation

INTROSPECT_STEPS = ("distill", "consolidate", "supersede", "cooldown", "forget")


def run_introspect(store: StoreParts, distill: Callable[[], dict], confirmation: MergeConfirmation | None,
                   steps: list[str] | None, dry_run: bool, now: int) -> dict:
    """The chosen ``steps`` (default all) in :data:`INTROSPECT_STEPS` order; ``distill`` runs the distill step."""
    chosen = steps or list(INTROSPECT_STEPS)
    unknown = [name for name in chosen if name not in INTROSPECT_STEPS]
    if unknown:
        raise AlayaError("bad_step", f"unknown introspect step '{unknown[0]}'; available: "
                                     f"{', '.join(INTROSPECT_STEPS)}")
    started = time.perf_counter()
    previous = _previous_run(store)
    compared_at = millis_now()
    report: dict = {"dry_run": dry_run, "steps": {}, "step_seconds": {}}
    with store.hold() as graph:
        runs = {
            "distill": lambda graph: distill(),
            "consolidate": lambda graph: consolidate(
                vectors=store.vectors(), graph=graph, store=SuggestionStore(store.layout.review),
                settings=store.config["introspect"], now=now, dry_run=dry_run, step=store.step,
                confirmation=confirmation).to_json(),
            "supersede": lambda graph: supersede(
                vectors=store.vectors(), graph=graph, store=SuggestionStore(store.layout.review),
                journal=Journal(store.layout.journal), since=previous.get("compared_through", 0), now=now,
                duplicate_at=store.config["introspect"]["consolidate_threshold"], dry_run=dry_run,
                step=store.step, contexts=store.layout.contexts).to_json(),
            "cooldown": lambda graph: cool_down(
                vectors=store.vectors(), graph=graph, embedder=store.embedder(),
                access_log=AccessLog(store.layout.access_log), settings=store.config["temperature"],
                now=now, dry_run=dry_run, step=store.step).to_json(),
            "forget": lambda graph: forget(
                vectors=store.vectors(), graph=graph, journal=Journal(store.layout.journal),
                settings=store.config["introspect"], now=now, dry_run=dry_run, step=store.step).to_json(),
        }
        for name in INTROSPECT_STEPS:
            if name in chosen:
                step_started = time.perf_counter()
                report["steps"][name] = runs[name](graph)
                # A step's pages are not the next one's (nor the index refresh's): the graph keeps what a query read
                # until it closes, the allocator what was freed (1,588 -> 966 MB after cool-down at 100k cards).
                graph = store.fresh_graph()
                release_freed_memory()
                report["step_seconds"][name] = round(time.perf_counter() - step_started, 2)
        if "cooldown" in chosen and not dry_run:
            # Cards distilled since the last run are scanned by full-text search until the index takes them in
            # (VectorStore._index_behind). After forget, which only deletes rows.
            step_started = time.perf_counter()
            with store.step():
                store.vectors().refresh_full_text_index()
            report["step_seconds"]["full_text_index"] = round(time.perf_counter() - step_started, 2)
    report["elapsed_s"] = round(time.perf_counter() - started, 2)
    if not dry_run:
        compared = compared_at if "supersede" in chosen else previous.get("compared_through", 0)
        # Cards a forget had no minutes left for: status says they wait (a run without forget leaves them so).
        left = report["steps"]["forget"]["left"] if "forget" in chosen else previous.get("forget_left", 0)
        atomic_write_json(store.layout.last_introspect, {"at": now, "steps": [name for name in INTROSPECT_STEPS
                                                                               if name in chosen],
                                                         "elapsed_s": report["elapsed_s"],
                                                         "compared_through": compared, "forget_left": left})
    return report


def _previous_run(store: StoreParts) -> dict:
    """The last run's record; ``compared_through`` is the wall clock its supersede step started at: cards created
    after it have not been compared yet (the run's ``now`` may be any clock a caller chose)."""
    try:
        record = json.loads(store.layout.last_introspect.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def merge_confirmation(store: StoreParts, merge: Callable[..., dict],
                       resolve: Callable[[str], str]) -> MergeConfirmation | None:
    """Duplicate candidates go to the distill LLM when one is configured (``introspect.llm_confirm_merges``)."""
    from .confirm import MergeConfirmation
    from .merge_judge import make_merge_judge

    judge = make_merge_judge(store.config, store.layout.home)
    if judge is None:
        return None
    return MergeConfirmation(judge=judge, merge=merge, resolve=resolve,
                             limit=store.config["introspect"]["llm_merges_per_run"])
