"""Whole-process wall time of commands that touch no store: the floor every ``alaya`` call pays; and of
``alaya init`` of a new store (target 1.5 s), each run into a fresh folder.

What a call pays on top of this against a store is measured where the store is: ``recall_speed`` (recall and
status with a warm owner server and with ``--no-server``) and ``sync_speed``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .plan import Plan
from .processes import ALAYA, child_env, measure, measure_many
from .report import Row, median_p95

NAME = "cli_startup"
COMMANDS = (
    ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
    ("alaya --help", ALAYA + ["--help"]),
    ("alaya version --json", ALAYA + ["version", "--json"]),
)


def run(plan: Plan) -> list[Row]:
    runs = plan.pick(2, 20)
    rows = []
    for label, argv in COMMANDS:
        p50, p95 = median_p95([sample.ms for sample in measure_many(argv, child_env(server=False), runs)])
        rows.append(Row(NAME, label, p50, "ms p50", f"p95 {p95:.0f} ms over {runs} runs"))
    with tempfile.TemporaryDirectory(prefix="alaya-bench-init-") as folder:
        inits = [measure(ALAYA + ["--home", str(Path(folder) / f"store-{run}"), "init", "--json"],
                         child_env(server=False)).ms for run in range(plan.pick(1, 5))]
    p50, p95 = median_p95(inits)
    rows.append(Row(NAME, "alaya init (new store, whole process)", p50, "ms p50",
                    f"p95 {p95:.0f} ms over {len(inits)} runs; target 1500 ms"))
    return rows
