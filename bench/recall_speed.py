"""Recall latency on synthetic stores of 10k and 100k cards (``--quick``: 1k and 10k).

Each store is built once by :func:`bench.synthetic.build_store` (bulk loaded,
vectors composed from really embedded topic phrases) in a temporary folder,
measured, and removed. Rows per store:

- the build time (steps and sizes on disk in the note);
- ``Engine.recall`` end to end in this process, warm, with the store held
  open the way the owner server holds it, *including* the query embedding:
  free-text questions, and structured depth-2 navigations with a relation
  filter (``CAUSED_BY``); the note gives the median of the engine's own
  ``search``/``graph``/``rank`` laps, and of the time ``outside`` them (query
  embedding, reading the relation vectors, the access log);
- the whole process ``python -m alaya_engine.cli --home H recall --json "..."``,
  once with a warm owner server and once with ``ALAYA_NO_SERVER=1`` (what an
  agent paid per call before the server);
- recall through the server while a long job (ingest and distill of generated
  sessions) runs on it, against the same recalls on the idle server;
- references: the client path's import time, the query embedding alone, and
  a plain numpy brute-force cosine top-20 over the same card matrix (the
  floor for the vector step).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.recall.query import build_query

from .report import Row, median_p95
from .synthetic import build_store, free_text_queries, structured_queries

NAME = "recall_speed"


def _label(size: int) -> str:
    return f"{size // 1000}k" if size >= 1000 else str(size)


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _recall_rows(engine: Engine, label: str, kind: str, requests: list[dict]) -> Row:
    samples, laps = [], {"search": [], "graph": [], "rank": [], "outside": []}
    found = 0
    for request in requests:
        started = time.perf_counter()
        result = engine.recall(request)
        samples.append(_ms(started))
        found += bool(result.nodes)
        for name in ("search", "graph", "rank"):
            laps[name].append(result.timings_ms.get(name, 0.0))
        laps["outside"].append(samples[-1] - result.timings_ms.get("total", 0.0))
    p50, p95 = median_p95(samples)
    inside = " / ".join(f"{name} {statistics.median(values):.0f}" for name, values in laps.items())
    return Row(NAME, f"{label}: recall {kind} (in-process)", p50, "ms p50",
               f"p95 {p95:.0f} ms over {len(samples)} queries; median ms {inside}; "
               f"{found}/{len(samples)} non-empty")


def _cli_row(home: Path, label: str, texts: list[str], server: bool) -> Row:
    env = {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}
    if not server:
        env["ALAYA_NO_SERVER"] = "1"
    samples = []
    for text in texts:
        argv = [sys.executable, "-m", "alaya_engine.cli", "--home", str(home), "recall", "--json", text]
        started = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(_ms(started))
    p50, p95 = median_p95(samples)
    how = "warm owner server" if server else "--no-server (in-process)"
    return Row(NAME, f"{label}: alaya recall --json (whole process, {how})", p50, "ms p50",
               f"p95 {p95:.0f} ms over {len(samples)} runs")


def _server_rows(home: Path, label: str, texts: list[str], cli_runs: int, job_sessions: int) -> list[Row]:
    """Whole-process recall against a warm server, then recall latency while the server runs a long job."""
    from alaya_engine.server.client import ServerClient, start_server, wait_until_gone

    from .ingest import generate_sessions

    client = start_server(home, timeout=120)
    try:
        client.call("recall", {"request": {"text": "warm up"}})
        rows = [_cli_row(home, label, texts[:cli_runs], server=True)]
        idle = _client_recalls(client, texts)
        paths = generate_sessions(home.parent / "job-sessions", job_sessions)
        job_error: list[BaseException] = []

        def long_job() -> None:
            try:
                client.call("ingest", {"paths": paths, "distill": True})
            except BaseException as error:  # reported in the row, never lost in the thread
                job_error.append(error)

        worker = threading.Thread(target=long_job)
        started = time.perf_counter()
        worker.start()
        busy = []
        while worker.is_alive():
            busy.extend(_client_recalls(client, texts[:5]))
        worker.join()
        job_seconds = time.perf_counter() - started
        idle_p50, idle_p95 = median_p95(idle)
        busy_p50, busy_p95 = median_p95(busy or [float("nan")])
        rows.append(Row(NAME, f"{label}: recall via server, idle", idle_p50, "ms p50", f"p95 {idle_p95:.0f} ms"))
        rows.append(Row(NAME, f"{label}: recall via server during a long job", busy_p50, "ms p50",
                        f"p95 {busy_p95:.0f} ms over {len(busy)} recalls while ingest+distill of {job_sessions} "
                        f"sessions ran ({job_seconds:.0f} s){'; job failed: ' + str(job_error[0]) if job_error else ''}"))
    finally:
        client.call("server.stop")
        wait_until_gone(ServerClient(home), 60)
    return rows


def _client_recalls(client, texts: list[str]) -> list[float]:
    samples = []
    for text in texts:
        started = time.perf_counter()
        client.call("recall", {"request": {"text": text}})
        samples.append(_ms(started))
    return samples


def _client_import_row(runs: int) -> Row:
    """What the thin client's imports cost beyond starting Python (no numpy, LanceDB, model, rich)."""
    def wall(code: str) -> float:
        samples = []
        for _ in range(runs):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            samples.append(_ms(started))
        return statistics.median(samples)

    floor = wall("pass")
    client = wall("import alaya_engine.cli, alaya_engine.server.client, alaya_engine.recall_request")
    return Row(NAME, "client path imports (beyond python -c pass)", client - floor, "ms p50",
               f"python -c pass {floor:.0f} ms")


def _reference_rows(engine: Engine, label: str, texts: list[str]) -> list[Row]:
    import numpy as np

    embedder = engine.embedder()
    concepts = [build_query({"text": text}, engine.config["recall"]).concepts for text in texts]
    embed_samples, queries = [], []
    for items in concepts:
        started = time.perf_counter()
        queries.append(embedder.embed(items))
        embed_samples.append(_ms(started))
    ids, matrix = engine.vectors().active_vectors()
    top_k = engine.config["recall"]["vector_top_k"]
    brute_samples = []
    for query in queries:
        started = time.perf_counter()
        best = np.max([matrix @ vector for vector in query], axis=0)
        top = np.argpartition(-best, top_k - 1)[:top_k]
        [ids[index] for index in top[np.argsort(-best[top])]]
        brute_samples.append(_ms(started))
    embed_p50, embed_p95 = median_p95(embed_samples)
    brute_p50, brute_p95 = median_p95(brute_samples)
    average = sum(len(items) for items in concepts) / len(concepts)
    return [
        Row(NAME, f"{label}: ref. query embedding alone", embed_p50, "ms p50",
            f"p95 {embed_p95:.0f} ms; {average:.1f} concepts per free-text query, one embed call"),
        Row(NAME, f"{label}: ref. numpy brute-force cosine top-{top_k}", brute_p50, "ms p50",
            f"p95 {brute_p95:.1f} ms; {matrix.shape[0]}x{matrix.shape[1]} float32, same concepts"),
    ]


def measure_store(size: int, queries: int, cli_runs: int) -> list[Row]:
    label = _label(size)
    with tempfile.TemporaryDirectory(prefix="alaya-bench-recall-") as scratch:
        home = Path(scratch) / "home"
        stats = build_store(home, size)
        seconds, steps, sizes = stats["seconds"], stats["bulk_load_seconds"], stats["bytes"]
        graph_s = sum(value for name, value in steps.items() if name.startswith("graph"))
        rows = [Row(NAME, f"{label}: build synthetic store", seconds["total"], "s",
                    f"{stats['links']} links, {stats['sessions']} sessions; init {seconds['init']:.1f}, generate "
                    f"{seconds['generate']:.1f}, embed topics {seconds['embed topics']:.1f}, bulk load "
                    f"{seconds['bulk load']:.1f} (graph {graph_s:.1f}, L1 {steps['vectors']:.1f}, FTS "
                    f"{steps['full-text index']:.1f}) s; graph {sizes['graph'] / 1e6:.0f} MB, "
                    f"lancedb {sizes['lancedb'] / 1e6:.0f} MB")]
        engine = Engine.open(home)
        texts = free_text_queries(queries + cli_runs)
        with engine.hold():
            engine.recall({"text": "warm-up: docker container OOM kill"})
            rows.append(_recall_rows(engine, label, "free text", [{"text": text} for text in texts[:queries]]))
            rows.append(_recall_rows(engine, label, "structured depth 2, CAUSED_BY", structured_queries(queries)))
            rows.extend(_reference_rows(engine, label, texts[:queries]))
        rows.append(_cli_row(home, label, texts[queries:], server=False))
        rows.extend(_server_rows(home, label, texts[:queries], cli_runs, job_sessions=100 if queries > 20 else 30))
    return rows


def run(quick: bool) -> list[Row]:
    sizes = (1_000, 10_000) if quick else (10_000, 100_000)
    queries = 20 if quick else 50
    cli_runs = 5 if quick else 10
    rows = [_client_import_row(cli_runs)]
    for size in sizes:
        rows.extend(measure_store(size, queries, cli_runs))
    return rows
