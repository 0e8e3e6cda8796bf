"""Introspect from the explorer: one engine call per step, so a person can stop it between steps.

The engine cannot interrupt a step (a consolidate or a cool-down runs to its end, and stopping a write half-way
would only leave work for the next run), so *cancel* here honestly means: the step in progress finishes, the
steps after it are skipped. Each call is the one ``alaya introspect --step NAME`` makes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from alaya_engine.introspect.run import INTROSPECT_STEPS
from alaya_engine.server.backend import Backend

STEP_PURPOSES = {
    "distill": "distill the sessions not distilled yet",
    "consolidate": "propose card merges, SIMILAR_TO links and relation clean-ups",
    "supersede": "link what later cards replaced; propose contradictions",
    "cooldown": "recompute temperatures and tiers; COLD cards lose their vector",
    "forget": "delete long-cold, unused cards (alaya restore brings one back)",
}


@dataclass
class IntrospectRun:
    steps: list[str]
    reports: dict[str, dict] = field(default_factory=dict)
    """Each finished step's report, as ``alaya introspect --json`` prints it under ``steps``."""
    cancelled: bool = False

    @property
    def skipped(self) -> list[str]:
        return [step for step in self.steps if step not in self.reports]


def run_introspect(backend: Backend, steps: list[str], *, on_step: Callable[[int, str], None],
                   on_progress: Callable[[int, int], None], should_stop: Callable[[], bool]) -> IntrospectRun:
    """Run ``steps`` in the engine's order, checking ``should_stop`` before each; errors propagate."""
    run = IntrospectRun([step for step in INTROSPECT_STEPS if step in steps])
    for index, step in enumerate(run.steps):
        if should_stop():
            run.cancelled = True
            break
        on_step(index, step)
        run.reports[step] = backend.call("introspect", {"steps": [step]}, on_progress)["steps"][step]
    return run


def step_summary(step: str, report: dict) -> str:
    """A few words per finished step, for the notification at the end."""
    if step == "distill":
        return f"distill: {report['sessions_distilled']} sessions → {report['cards_created']} cards"
    if step == "consolidate":
        return f"consolidate: {sum(report['new'].values())} new suggestions, {report['pending']} pending"
    if step == "supersede":
        return f"supersede: {report['superseded']} replaced, {report['contradictions']} contradictions"
    if step == "cooldown":
        tiers = report["by_tier"]
        return f"cooldown: HOT {tiers['HOT']:,} · WARM {tiers['WARM']:,} · COLD {tiers['COLD']:,}"
    if step == "forget":
        left = f", {report['left']:,} left for the next run" if report["left"] else ""
        return f"forget: {report['count']:,} cards forgotten{left}"
    return step


def run_summary(run: IntrospectRun) -> str:
    lines = [step_summary(step, report) for step, report in run.reports.items()]
    if run.cancelled:
        lines.append(f"cancelled; skipped: {', '.join(run.skipped)}")
    return "\n".join(lines) or "nothing ran"
