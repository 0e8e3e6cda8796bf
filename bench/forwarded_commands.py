"""Whole-process time of the commands agents and cron run, forwarded to a warm owner server, against the floor.

``alaya`` forwards its command line to the store's server, which parses and runs it (one parser, see
``docs/architecture.md``): each command below should cost about what starting Python costs. Runs are paired —
``python -c pass`` and the command alternate — and the row is the ratio of their medians (target ≤ 3×), on a
synthetic store of 1k cards (``--quick``) or 10k cards, with an empty OpenClaw state folder for ``sync``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path
from statistics import median

from .plan import Plan, size_label
from .processes import ALAYA, child_env, measure, owner_server
from .report import Row

NAME = "forwarded_commands"


def run(plan: Plan) -> list[Row]:
    size, runs = plan.pick(1000, 10_000), plan.pick(3, 21)
    rows = []
    with plan.stores.synthetic(size) as home, owner_server(home) as server, \
            tempfile.TemporaryDirectory(prefix="alaya-bench-openclaw-") as state:
        (Path(state) / "agents" / "main" / "sessions").mkdir(parents=True)
        card = server.client.call("recall", {"request": {"text": "docker memory limit"}})["nodes"][0]["card_id"]
        commands = {
            "recall --json": ["recall", "docker memory limit", "--json"],
            "trace --json": ["trace", card, "--json"],
            "schema --json": ["schema", "--relations", "--json"],
            "status": ["status"],
            "sync openclaw (nothing new)": ["sync", "openclaw", "--state-dir", state],
        }
        env = child_env(server=True)
        for label, args in commands.items():
            floor, command = [], []
            for _ in range(runs):
                floor.append(measure([sys.executable, "-c", "pass"], env).ms)
                command.append(measure(ALAYA + ["--home", str(home), *args], env).ms)
            ratio = median(command) / median(floor)
            rows.append(Row(NAME, f"{size_label(size)}: alaya {label} ÷ python -c pass", ratio, "× (≤ 3)",
                            f"{median(command):.0f} ms vs {median(floor):.0f} ms p50, {runs} paired runs, "
                            "warm owner server"))
    return rows

