"""Recall latency on synthetic stores of 10k and 100k cards (``--quick``: 1k and 10k).

Each store is built once by :func:`bench.synthetic.build_store` (bulk loaded,
vectors composed from really embedded topic phrases) in a temporary folder,
measured, and removed. Rows per store:

- the build time (steps and sizes on disk in the note);
- ``Engine.recall`` end to end in this process, warm (one warm-up call first),
  *including* the query embedding: free-text questions, and structured
  depth-2 navigations with a relation filter (``CAUSED_BY``); the note gives
  the median of the engine's own ``search``/``graph``/``rank`` laps, and of the time ``outside`` them
  (query embedding, opening and closing the graph, reading the relation vectors, the access log);
- the whole process ``python -m alaya_engine.cli --home H recall --json "..."``
  (``ALAYA_NO_SERVER=1``): what an agent pays per call today;
- references: the query embedding alone, and a plain numpy brute-force cosine
  top-20 over the same card matrix (the floor for the vector step).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
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


def _cli_rows(home: Path, label: str, texts: list[str]) -> Row:
    env = {**os.environ, "ALAYA_NO_SERVER": "1"}
    samples = []
    for text in texts:
        argv = [sys.executable, "-m", "alaya_engine.cli", "--home", str(home), "recall", "--json", text]
        started = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append(_ms(started))
    p50, p95 = median_p95(samples)
    return Row(NAME, f"{label}: alaya recall --json (whole process)", p50, "ms p50",
               f"p95 {p95:.0f} ms over {len(samples)} runs, ALAYA_NO_SERVER=1")


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
        best = (matrix @ query.T).max(axis=1)
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
        engine.recall({"text": "warm-up: docker container OOM kill"})
        rows.append(_recall_rows(engine, label, "free text", [{"text": text} for text in texts[:queries]]))
        rows.append(_recall_rows(engine, label, "structured depth 2, CAUSED_BY", structured_queries(queries)))
        rows.append(_cli_rows(home, label, texts[queries:]))
        rows.extend(_reference_rows(engine, label, texts[:queries]))
    return rows


def run(quick: bool) -> list[Row]:
    sizes = (1_000, 10_000) if quick else (10_000, 100_000)
    queries = 20 if quick else 50
    cli_runs = 5 if quick else 10
    rows = []
    for size in sizes:
        rows.extend(measure_store(size, queries, cli_runs))
    return rows
