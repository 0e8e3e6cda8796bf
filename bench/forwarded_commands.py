"""Whole-process time of the commands agents and cron run, forwarded to a warm owner server, against the floor.

``alaya`` forwards its command line to the store's server, which parses and runs it (one parser, see
``docs/architecture.md``): each command below should cost about what starting Python costs. Runs are paired —
``python -c pass`` and the command alternate — and the row is the ratio of their medians (target ≤ 2.5×), on the
demo memory (alone with ``--quick``, as CI's smoke run) and on a synthetic store of 10k cards, with an empty
OpenClaw state folder for ``sync``. ``recall --json`` asks one question every run (the server remembers a question's
vector, as it does for an agent asking again) and, in a row of its own, a question it has not seen each run (the
query's embedding paid every time). Output goes to a file, as an agent's pipe takes it (one line of JSON). A last
row per store is a recall as a connected client sees it (the server's whole answer, no process to start): target
8 ms on the demo.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from .plan import Plan, size_label
from .processes import ALAYA, child_env, measure, owner_server
from .report import Row
from .synthetic import free_text_queries

NAME = "forwarded_commands"
TARGET_RATIO = 2.5
TARGET_DEMO_RECALL_MS = 8.0
DEMO_QUESTIONS = ("nginx 502 after deploy", "gateway 重启后 telegram 收不到消息", "docker container memory limit",
                  "why did the build fail", "连接池 配置")
"""Recalls of the demo memory, English and Chinese, identifiers and plain words."""


def run(plan: Plan) -> list[Row]:
    from alaya_engine.demo import build_demo

    rows = []
    with plan.stores.dataset("demo", lambda home: build_demo(home)) as (home, _built):
        rows.extend(_store_rows(plan, "demo", home, DEMO_QUESTIONS, TARGET_DEMO_RECALL_MS))
    if plan.quick:
        return rows
    with plan.stores.synthetic(10_000) as home:
        rows.extend(_store_rows(plan, size_label(10_000), home, ("docker memory limit",), None))
    return rows


def _store_rows(plan: Plan, label: str, home: Path, questions: tuple[str, ...], target_ms: float | None
                ) -> list[Row]:
    """The commands on the store at ``home``, recall asking the first of ``questions``; the connected client all."""
    question, runs, rows = questions[0], plan.pick(3, 21), []
    new_questions = free_text_queries(runs, seed=11)
    with owner_server(home) as server, tempfile.TemporaryDirectory(prefix="alaya-bench-openclaw-") as state:
        (Path(state) / "agents" / "main" / "sessions").mkdir(parents=True)
        card = server.client.call("recall", {"request": {"text": question}})["nodes"][0]["card_id"]
        commands = {
            "recall --json": lambda _run: ["recall", question, "--json"],
            "recall --json, a new question each run": lambda run: ["recall", new_questions[run], "--json"],
            "trace --json": lambda _run: ["trace", card, "--json"],
            "schema --json": lambda _run: ["schema", "--relations", "--json"],
            "status": lambda _run: ["status"],
            "sync openclaw (nothing new)": lambda _run: ["sync", "openclaw", "--state-dir", state],
        }
        env = child_env(server=True)
        for name, args in commands.items():
            floor, command = [], []
            for run in range(runs):
                floor.append(measure([sys.executable, "-c", "pass"], env).ms)
                command.append(measure(ALAYA + ["--home", str(home), *args(run)], env).ms)
            ratio = median(command) / median(floor)
            rows.append(Row(NAME, f"{label}: alaya {name} ÷ python -c pass", ratio, f"× (≤ {TARGET_RATIO})",
                            f"{median(command):.0f} ms vs {median(floor):.0f} ms p50, {runs} paired runs, "
                            "warm owner server"))
        rows.append(_connected_recall_row(label, server.client, questions, plan.pick(10, 60), target_ms))
    return rows


def _connected_recall_row(label: str, client, questions: tuple[str, ...], runs: int, target_ms: float | None
                          ) -> Row:
    """A recall asked by a client already connected (what the server itself costs), beside the engine's own laps."""
    took, engine = [], []
    for index in range(runs):
        started = time.perf_counter()
        document = client.call("recall", {"request": {"text": questions[index % len(questions)]}})
        took.append((time.perf_counter() - started) * 1000)
        engine.append(document["timings_ms"]["total"])
    target = f"; target {target_ms:g} ms" if target_ms is not None else ""
    return Row(NAME, f"{label}: recall through the warm server, connected client", median(took), "ms p50",
               f"p95 {sorted(took)[int(0.95 * (len(took) - 1))]:.1f} ms, the engine's laps {median(engine):.1f} ms, "
               f"{runs} recalls of {len(questions)} questions{target}")
