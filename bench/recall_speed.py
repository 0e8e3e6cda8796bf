"""Recall latency and memory on synthetic stores of 1k, 10k and 100k cards (``--quick``: 1k).

Each store is a fresh copy of the one :mod:`bench.store_size` reports on (bulk loaded, vectors composed from
really embedded topic phrases; see :mod:`bench.synthetic`). Rows per store:

- ``Engine.recall`` end to end in this process, warm, with the store held
  open the way the owner server holds it (graph snapshot resident), *including* the query embedding:
  free-text questions, and structured depth-2 navigations with a relation
  filter (``CAUSED_BY``); the note gives the median of the engine's own
  ``search``/``graph``/``rank`` laps, and of the time ``outside`` them (query
  embedding, reading the relation vectors, the access log);
- the whole process ``alaya --home H recall --json "..."`` (the console script, as an agent runs it),
  once with ``ALAYA_NO_SERVER=1`` and once with a warm owner server: wall time
  and the process's peak RSS, and the server's own peak RSS;
- ``alaya status --json`` as a whole process against the warm server;
- recall through the server while a long job runs on it, against the same recalls on the idle server: on the
  largest store, ingest and distill of generated sessions; introspect too in ``--quick`` and when named with
  ``--only`` (:func:`_jobs`);
- references: the client path's import time, the query embedding alone, and
  a plain numpy brute-force cosine top-20 over the same card matrix (the
  floor for the vector step).
"""

from __future__ import annotations

import statistics
import sys
import threading
import time
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.recall.query import build_query

from .plan import Plan, size_label
from .processes import ALAYA, OwnerServer, child_env, measure, measure_many, owner_server
from .quality.alaya import served
from .report import Row, median_p95
from .synthetic import free_text_queries, structured_queries

NAME = "recall_speed"


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def recall_rows(engine: Engine, label: str, kind: str, requests: list[dict], benchmark: str = NAME) -> Row:
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
    return Row(benchmark, f"{label}: recall {kind} (in-process)", p50, "ms p50",
               f"p95 {p95:.0f} ms over {len(samples)} queries; median ms {inside}; "
               f"{found}/{len(samples)} non-empty")


def _cli_rows(home: Path, label: str, texts: list[str], server: OwnerServer | None) -> list[Row]:
    """Whole ``alaya recall --json`` processes: wall time, and the peak RSS of the process (and of the server)."""
    argv = ALAYA + ["--home", str(home), "recall", "--json"]
    samples = [measure(argv + [text], child_env(server=server is not None)) for text in texts]
    p50, p95 = median_p95([sample.ms for sample in samples])
    how = "warm owner server" if server else "--no-server"
    rows = [Row(NAME, f"{label}: alaya recall --json (whole process, {how})", p50, "ms p50",
                f"p95 {p95:.0f} ms over {len(samples)} runs"),
            Row(NAME, f"{label}: alaya recall --json peak RSS ({how})", max(sample.peak_mb for sample in samples),
                "MB", "the recall process itself" + (", a thin client; the server's own is the next row"
                                                    if server else ": engine, graph, LanceDB and the model"))]
    if server:
        peak = server.peak_mb()
        rows.append(Row(NAME, f"{label}: owner server peak RSS", peak, "MB",
                        "VmHWM after start, warm-up and the recalls above" if peak is not None
                        else "not available here (/proc)"))
    return rows


def _status_row(home: Path, label: str, runs: int) -> Row:
    samples = measure_many(ALAYA + ["--home", str(home), "status", "--json"], child_env(server=True), runs)
    p50, p95 = median_p95([sample.ms for sample in samples])
    return Row(NAME, f"{label}: alaya status --json (whole process, warm owner server)", p50, "ms p50",
               f"p95 {p95:.0f} ms over {runs} runs")


def _server_rows(home: Path, label: str, texts: list[str], cli_runs: int,
                 jobs: dict[str, tuple[str, dict]]) -> list[Row]:
    """Whole processes against a warm server, then recall latency while the server runs each of ``jobs`` (a row
    name: the method and its parameters)."""
    with owner_server(home) as server:
        client = server.client
        rows = _cli_rows(home, label, texts[:cli_runs], server)
        rows.append(_status_row(home, label, cli_runs))
        idle = _client_recalls(client, texts)
        during = {job: _recalls_during(client, texts[:5], method, params) for job, (method, params) in jobs.items()}
    idle_p50, idle_p95 = median_p95(idle)
    rows.append(Row(NAME, f"{label}: recall via server, idle", idle_p50, "ms p50", f"p95 {idle_p95:.0f} ms"))
    for job, (busy, job_seconds, job_error) in during.items():
        busy_p50, busy_p95 = median_p95(busy or [float("nan")])
        rows.append(Row(NAME, f"{label}: recall via server during {job.split(' ')[0]}", busy_p50, "ms p50",
                        f"p95 {busy_p95:.0f} ms over {len(busy)} recalls while {job} ran on the server "
                        f"({job_seconds:.0f} s){'; job failed: ' + str(job_error) if job_error else ''}"))
    return rows


def _jobs(plan: Plan, size: int, home: Path) -> dict[str, tuple[str, dict]]:
    """The long jobs recalls are measured during: on the largest store only (a smaller one says nothing more), an
    ingest and distill of generated sessions; the whole introspect too when the benchmark is named with ``--only``
    (:meth:`bench.plan.Plan.thorough`): on the fresh synthetic store it meets a year's forget backlog and runs for
    ~10 minutes at 100k. The nightly introspect of a store used for a year is :mod:`bench.aged_stores`' row."""
    from .ingest import generate_sessions

    if size != max(plan.sizes):
        return {}
    sessions = plan.pick(5, 100)
    paths = generate_sessions(home.parent / "job-sessions", sessions)
    jobs = {f"ingest+distill of {sessions} sessions": ("ingest", {"paths": paths, "distill": True})}
    if plan.thorough(NAME) or plan.quick:
        jobs["introspect (all four steps)"] = ("introspect", {})
    return jobs


def _recalls_during(client, texts: list[str], method: str, params: dict) -> tuple[list[float], float, str | None]:
    """Recall latencies (ms) from this client while another connection runs ``method`` as a server-side job;
    the job's wall time and its error, if any (reported in the row, never lost in the thread)."""
    job_error: list[BaseException] = []

    def long_job() -> None:
        try:
            client.call(method, params)
        except BaseException as error:
            job_error.append(error)

    worker = threading.Thread(target=long_job)
    started = time.perf_counter()
    worker.start()
    busy = []
    while worker.is_alive():
        busy.extend(_client_recalls(client, texts))
    worker.join()
    return busy, time.perf_counter() - started, str(job_error[0]) if job_error else None


def _client_recalls(client, texts: list[str]) -> list[float]:
    samples = []
    for text in texts:
        started = time.perf_counter()
        client.call("recall", {"request": {"text": text}})
        samples.append(_ms(started))
    return samples


def _client_import_row(runs: int) -> Row:
    """What the warm-server recall path imports cost beyond starting Python (the bare client; the regular one,
    which takes over for autostart, errors and stdin, loads ``json``, ``socket`` and ``pathlib`` too).
    The three are measured in turn, run after run, so a slow moment of the machine falls on all of them."""
    codes = {"floor": "pass", "bare": "import alaya_cli.main, alaya_engine.server.bare_client",
             "regular": "import alaya_cli.main, alaya_engine.server.client, alaya_cli.recall_request"}
    samples: dict[str, list[float]] = {name: [] for name in codes}
    for _ in range(runs):
        for name, code in codes.items():
            samples[name].append(measure([sys.executable, "-c", code], child_env(server=False)).ms)
    floor, bare, regular = (statistics.median(samples[name]) for name in codes)
    return Row(NAME, "client path imports (beyond python -c pass)", bare - floor, "ms p50",
               f"python -c pass {floor:.0f} ms; the regular client's imports {regular - floor:.0f} ms; "
               f"{runs} runs each, interleaved")


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


def measure_store(plan: Plan, size: int) -> list[Row]:
    label = size_label(size)
    queries, server_runs = plan.pick(10, 50), plan.pick(3, 10)
    no_server_runs = plan.pick(1, 5)  # each opens the whole store and loads the model: ~2 s at 1k, ~5 s at 100k
    texts = free_text_queries(queries + no_server_runs)
    with plan.stores.synthetic(size) as home:
        engine = Engine.open(home)
        with served(engine):  # the graph resident first, as the owner server holds it
            engine.recall({"text": "warm-up: docker container OOM kill"})
            rows = [recall_rows(engine, label, "free text", [{"text": text} for text in texts[:queries]]),
                    recall_rows(engine, label, "structured depth 2, CAUSED_BY", structured_queries(queries))]
            rows.extend(_reference_rows(engine, label, texts[:queries]))
        rows.extend(_cli_rows(home, label, texts[queries:], server=None))
        rows.extend(_server_rows(home, label, texts[:queries], server_runs, _jobs(plan, size, home)))
    return rows


def run(plan: Plan) -> list[Row]:
    rows = [_client_import_row(plan.pick(5, 30))]
    for size in plan.sizes:
        rows.extend(measure_store(plan, size))
    return rows
