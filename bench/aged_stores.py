"""Speed on a store used for a year: the synthetic store, aged by the real introspect.

The synthetic store (:mod:`bench.synthetic`) spreads its cards and sessions over two years and gives its cards
Zipf-distributed recalls up to a month after the last session. Cool-down then runs with its clock at that moment,
as the nightly introspect of a store in daily use would: the configured rules make most cards COLD (their vectors
leave the resident matrix for 8-bit codes) and cap HOT and WARM at ``hot_limit`` / ``warm_limit``. Rows, at 100k
cards (``--quick --only aged_stores``: 10k):

- what aging did: the cards per tier and how long the cool-down took;
- ``Engine.recall`` of free text in-process with the store held as the owner server holds it (targets p50 ≤ 20
  ms, p95 ≤ 40 ms at 100k), and the texts it embedded beyond the query's own concepts (target 0: a COLD card never
  costs an embedding at query time), counted on the engine's real embedder;
- the owner server's start to its first answer, with nothing saved and again once its stop saved its loads
  (target ≤ 3 s at 1M);
- against a warm owner server: whole-process ``alaya recall --json`` and ``alaya status --json`` paired with
  ``python -c pass`` (target ≤ 2.5×) and the server's peak RSS (target ≤ 1.2 GB at 100k, 4 GB at 1M);
- every introspect step in a process of its own, as cron runs it, the night after the store's last recalls: its
  seconds and peak RSS (target ≤ 10 minutes and 4 GB at 1M), forget spending at most ``introspect.forget_minutes``
  on the year's backlog. At 100k only when named with ``--only`` (~90 s, for scale: the target is the million's).

``--million`` adds the same rows for a store of a million cards (2M windows): measured, a 17-minute build that
peaks at 21.8 GB of RSS (a machine of 24 GB has just enough), 12 GB of disk, a 4.4-minute cool-down and ~17 minutes
of measures (the in-process keep_resident and the owner server each wait for their graph snapshot).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from statistics import median

from alaya_engine.engine import Engine
from alaya_engine.recall.query import build_query

from .plan import Plan, size_label
from .processes import ALAYA, OwnerServer, child_env, measure, owner_server
from .quality.alaya import served
from .recall_speed import recall_rows
from .report import Row, skipped
from .stores import update_config
from .synthetic import SPAN, START, free_text_queries

NAME = "aged_stores"
AGED_AT = START + SPAN + 30 * 86_400_000
"""The moment of the last recalls the synthetic store records: the year's last nightly introspect."""


def run(plan: Plan) -> list[Row]:
    if plan.quick and NAME not in plan.named:
        return [skipped(NAME, "skipped in --quick", f"builds and ages a 100k store; --quick --only {NAME} for 10k")]
    sizes = [plan.pick(10_000, 100_000)] + ([1_000_000] if plan.million else [])
    return [row for size in sizes for row in _store_rows(plan, size)]


def _store_rows(plan: Plan, size: int) -> list[Row]:
    """A copy of the shared synthetic store; the million-card one, which nothing else reads, aged in place (a copy
    of it would be another ~15 GB)."""
    queries, paired_runs = plan.pick(20, 50), plan.pick(5, 21)
    introspect = size >= 1_000_000 or NAME in plan.named
    if size >= 1_000_000:
        return aged_rows(plan.stores.built(size)[0], size, queries, paired_runs, introspect)
    with plan.stores.synthetic(size) as home:
        return aged_rows(home, size, queries, paired_runs, introspect)


def aged_rows(home: Path, size: int, queries: int, paired_runs: int, introspect: bool) -> list[Row]:
    """Age the synthetic store at ``home`` (``size`` cards) and measure it; with ``introspect``, its nightly
    introspect last."""
    label = f"aged {size_label(size)}"
    texts = free_text_queries(queries)
    engine = Engine.open(home)
    started = time.perf_counter()
    report = engine.introspect(["cooldown"], now=AGED_AT)["steps"]["cooldown"]
    rows = [Row(NAME, f"{label}: cards HOT / WARM / COLD after a year's cool-down",
                100 * report["by_tier"]["COLD"] / max(1, report["cards"]), "% COLD",
                " / ".join(f"{report['by_tier'][tier]:,}" for tier in ("HOT", "WARM", "COLD"))
                + f"; cool-down {time.perf_counter() - started:.1f} s")]
    with served(engine, wait_seconds=600):  # a million cards' snapshot takes ~40 s to read
        engine.recall({"text": "warm-up: docker container OOM kill"})
        counted = _EmbeddedTexts(engine)
        rows.append(recall_rows(engine, label, "free text", [{"text": text} for text in texts], NAME))
        concepts = sum(len(build_query({"text": text}, engine.config["recall"]).concepts) for text in texts)
        rows.append(Row(NAME, f"{label}: texts embedded per recall beyond the query",
                        (counted.texts - concepts) / len(texts), "texts",
                        f"{counted.texts} embedded for {concepts} concepts in {len(texts)} recalls (target 0)"))
    del engine
    rows.extend(_first_answer_rows(home, label))
    with owner_server(home) as server:
        env = child_env(server=True)
        floor, command, status = [], [], []
        for text in texts[:paired_runs]:
            floor.append(measure([sys.executable, "-c", "pass"], env).ms)
            command.append(measure(ALAYA + ["--home", str(home), "recall", text, "--json"], env).ms)
            status.append(measure(ALAYA + ["--home", str(home), "status", "--json"], env).ms)
        for name, timings in (("alaya recall --json", command), ("alaya status --json", status)):
            rows.append(Row(NAME, f"{label}: {name} ÷ python -c pass", median(timings) / median(floor), "× (≤ 2.5)",
                            f"{median(timings):.0f} ms vs {median(floor):.0f} ms p50, {paired_runs} paired runs, "
                            "warm owner server"))
        peak = server.peak_mb()
        target = "1,200 MB at 100k" if size < 1_000_000 else "4,000 MB at 1M"
        now = server.resident_mb()
        rows.append(Row(NAME, f"{label}: owner server peak RSS", peak if peak is not None else float("nan"),
                        "MB", f"VmHWM after start (from the saved loads), warm-up and the recalls above (target ≤ "
                              f"{target}); RSS after "
                              f"them {now if now is not None else float('nan'):.0f} MB"))
    rows.extend(_introspect_rows(home, label, size) if introspect else
                [skipped(NAME, f"{label}: introspect, every step", f"named with --only {NAME}: ~90 s at 100k")])
    return rows


MILLION_POOL_MB = 2048
"""``graph.buffer_pool_mb`` for a million cards' introspect, as docs/configuration.md tells a user to set it:
forget's deletions load the adjacency of the entities the cards mention, and 1,024 MB (the default) runs out."""


def _introspect_rows(home: Path, label: str, size: int) -> list[Row]:
    """The whole nightly introspect (every step, forget within its minutes) in a process of its own as cron runs
    it, on the night after the aged store's last recalls: forget meets the year's backlog (the synthetic store
    never forgot). Last, since it changes the store. A failed run is a row saying why: the store's other rows
    stand."""
    import json

    if size >= 1_000_000:
        update_config(home, "graph", {"buffer_pool_mb": MILLION_POOL_MB})
    night = AGED_AT + 86_400_000
    try:
        run = measure([sys.executable, "-c", INTROSPECT, str(home), str(night)], child_env(server=False))
    except RuntimeError as failed:
        return [skipped(NAME, f"{label}: introspect, every step", f"failed: {failed}")]
    report = json.loads(run.stdout)
    forget = report["steps"]["forget"]
    target = "≤ 10 min and 4,000 MB at 1M" + ("" if size >= 1_000_000 else "; here for scale")
    steps = ", ".join(f"{name} {seconds:g} s" for name, seconds in report["step_seconds"].items())
    return [Row(NAME, f"{label}: introspect, every step", run.ms / 1000, "s",
                f"{steps}; forgot {forget['count']:,}, {forget['left']:,} left for the next run (target {target})"),
            Row(NAME, f"{label}: introspect, every step: peak RSS", run.peak_mb, "MB",
                f"the introspect's process (target {target})")]


INTROSPECT = ("import json, sys; from alaya_engine.engine import Engine; "
              "print(json.dumps(Engine.open(sys.argv[1]).introspect(now=int(sys.argv[2]))))")
"""A process that runs every introspect step on the store at argv[1] with its clock at argv[2] (ms)."""


def _first_answer_rows(home, label: str) -> list[Row]:
    """From starting the owner server to its first recall's answer, as the first agent after a reboot waits: once
    with nothing saved (every load read from L1), then again after that server's stop saved its loads."""
    import shutil

    from alaya_engine.foundations.paths import Layout

    shutil.rmtree(Layout(home).cache / "resident", ignore_errors=True)
    rows = []
    for start in ("first start, loads read from L1", "restart, loads saved by the last stop mapped"):
        seconds, peak = _first_answer(home)
        rows.append(Row(NAME, f"{label}: owner server start to first answer ({start})", seconds, "s",
                        f"start_server, then one free-text recall (target ≤ 3 s at 1M); server peak RSS then "
                        f"{peak:,.0f} MB"))
    return rows


def _first_answer(home) -> tuple[float, float]:
    from alaya_engine.server.client import ServerClient, start_server, wait_until_gone

    started = time.perf_counter()
    client = start_server(home, timeout=600)
    client.call("recall", {"request": {"text": "docker container OOM kill"}})
    seconds = time.perf_counter() - started
    peak = OwnerServer(client, client.call("server.status")["pid"]).peak_mb() or float("nan")
    client.call("server.stop")
    wait_until_gone(ServerClient(home), 600)
    return seconds, peak


class _EmbeddedTexts:
    """Counts the texts the engine's embedder is given, by wrapping the real embedder's two calls; a call made
    from inside the other (``embed_query`` is ``embed`` for the default model) counts once."""

    def __init__(self, engine: Engine):
        self.texts = 0
        self._inside = False
        embedder = engine.embedder()
        for name in ("embed", "embed_query"):
            setattr(embedder, name, self._counting(getattr(embedder, name)))

    def _counting(self, call):
        def counted(texts):
            if self._inside:
                return call(texts)
            self.texts += len(texts)
            self._inside = True
            try:
                return call(texts)
            finally:
                self._inside = False
        return counted
