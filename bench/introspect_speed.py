"""Introspect wall time and peak memory on synthetic stores of 1k and 10k cards (``--quick``: 1k); named with
``--only``, 100k too (:meth:`bench.plan.Plan.thorough`: ~5 minutes, a year's forget backlog at once). The nightly
introspect of a 100k store used for a year is measured by :mod:`bench.aged_stores` in every run.

Each is a whole ``alaya introspect --json`` process with ``--no-server`` (the work and its memory are the
process's own) on a fresh copy of the synthetic store (:mod:`bench.synthetic`), whose cards were created over
two years, so cool-down and forget have real work to do.
"""

from __future__ import annotations

import json

from .plan import Plan, size_label
from .processes import ALAYA, child_env, measure
from .report import Row

NAME = "introspect_speed"


def run(plan: Plan) -> list[Row]:
    rows = []
    for size in plan.sizes:
        if size >= 100_000 and not plan.thorough(NAME):
            continue
        label = size_label(size)
        with plan.stores.synthetic(size) as home:
            process = measure(ALAYA + ["--home", str(home), "introspect", "--json"], child_env(server=False))
        report = json.loads(process.stdout)
        steps = {name: round(seconds, 1) for name, seconds in report["step_seconds"].items()}
        rows.append(Row(NAME, f"{label}: alaya introspect (whole process)", process.ms / 1000, "s",
                        f"steps {steps} s; new suggestions {report['steps']['consolidate']['new']}; tiers "
                        f"{report['steps']['cooldown']['by_tier']}; forgotten {report['steps']['forget']['count']}"))
        rows.append(Row(NAME, f"{label}: alaya introspect peak RSS", process.peak_mb, "MB",
                        "the whole process: imports, store open, model, all four steps"))
    return rows
