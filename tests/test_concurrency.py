"""Many processes at once on one store: an explorer, 8 recall loops, 2 ingest+distill loops and introspect.

All of them are real ``alaya`` processes talking to the store's owner server,
started together. Afterwards: no process failed, every session ingested and
every card distilled is there, each card's access count equals the number of
recalls that returned it, and ``verify`` is clean. Recall latency (whole
process, as an agent sees it) is printed idle and under this load; run with
``-s`` to read it.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest
from conftest import write_problem_session

from alaya_engine.engine import Engine

pytestmark = pytest.mark.slow

LOAD = int(os.environ.get("ALAYA_LOAD", "15"))
"""Recalls per recall loop and sessions per writer: CI runs 8 × 15 recalls beside 2 × 15 sessions;
``ALAYA_LOAD=50`` is the run docs/architecture.md quotes."""
RECALLERS, RECALLS = 8, LOAD
WRITERS, SESSIONS = 2, LOAD
QUERIES = ["gateway restart telegram", "pgbouncer pool size", "docker memory limit", "审批 超时", "OOM killer",
           "connection pool exhausted"]

RECALL_LOOP = textwrap.dedent("""
    import json, subprocess, sys, time
    alaya, out, count, queries = sys.argv[1:4] + [json.loads(sys.argv[4])]
    results = []
    for number in range(int(count)):
        started = time.perf_counter()
        done = subprocess.run([*json.loads(alaya), "recall", queries[number % len(queries)], "--json"],
                              capture_output=True, text=True)
        results.append({"code": done.returncode, "seconds": time.perf_counter() - started,
                        "cards": [n["card_id"] for n in json.loads(done.stdout)["nodes"] if n["kind"] == "card"]
                        if done.returncode == 0
                        else [], "stderr": done.stderr[-500:]})
    open(out, "w").write(json.dumps(results))
""")

WRITE_LOOP = textwrap.dedent("""
    import json, pathlib, subprocess, sys
    alaya, folder, out = json.loads(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3]
    results = []
    for path in sorted(folder.glob("*.json")):
        done = subprocess.run([*alaya, "ingest", str(path), "--distill", "--json"], capture_output=True, text=True)
        results.append({"code": done.returncode, "stderr": done.stderr[-500:],
                        "document": json.loads(done.stdout) if done.returncode == 0 else None})
    open(out, "w").write(json.dumps(results))
""")

EXPLORER = textwrap.dedent("""
    import json, pathlib, sys, time
    from alaya_engine.server.backend import open_backend
    home, stop = sys.argv[1], pathlib.Path(sys.argv[2])
    backend = open_backend(home)
    calls = 0
    while not stop.exists():
        status = backend.call("status")
        backend.call("schema", {"relations": True})
        calls += 2
        time.sleep(0.5)
    print(json.dumps({"calls": calls}))
""")

INTROSPECT_LOOP = textwrap.dedent("""
    import json, pathlib, subprocess, sys, time
    alaya, stop = json.loads(sys.argv[1]), pathlib.Path(sys.argv[2])
    codes = []
    while not stop.exists():
        codes.append(subprocess.run([*alaya, "introspect", "--json"], capture_output=True, text=True).returncode)
        time.sleep(1)
    print(json.dumps(codes))
""")
"""Back to back, with a second's pause: a cron job run far more often than any real schedule."""


def served_env() -> dict:
    return {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}


def spawn(script: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", script, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=served_env())


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def test_everything_at_once_loses_nothing(demo_home, tmp_path):
    alaya = [sys.executable, "-m", "alaya_cli", "--home", str(demo_home)]
    folders = []
    for writer in range(WRITERS):
        folder = tmp_path / f"writer-{writer}"
        for number in range(SESSIONS):
            write_problem_session(folder, f"session-2026050{writer + 1}-{number:06d}", writer * SESSIONS + number,
                                  1777600000000 + (writer * SESSIONS + number) * 60_000)
        folders.append(folder)
    stop = tmp_path / "stop"
    try:
        idle = _idle_recalls(alaya, tmp_path)
        idle_seconds = [entry["seconds"] for entry in idle[1:]]

        explorer = spawn(EXPLORER, str(demo_home), str(stop))
        introspect = spawn(INTROSPECT_LOOP, json.dumps(alaya), str(stop))
        writers = [spawn(WRITE_LOOP, json.dumps(alaya), str(folder), str(tmp_path / f"write-{n}.json"))
                   for n, folder in enumerate(folders)]
        recallers = [spawn(RECALL_LOOP, json.dumps(alaya), str(tmp_path / f"recall-{n}.json"), str(RECALLS),
                           json.dumps(QUERIES[n % 3:] + QUERIES[:n % 3])) for n in range(RECALLERS)]
        for process in writers + recallers:
            assert process.wait(timeout=900) == 0, process.stderr.read()[-2000:]
        stop.touch()
        explorer_out, explorer_err = explorer.communicate(timeout=120)
        introspect_out, introspect_err = introspect.communicate(timeout=300)
        assert explorer.returncode == 0 and json.loads(explorer_out)["calls"] > 0, explorer_err[-2000:]
        assert introspect.returncode == 0 and set(json.loads(introspect_out)) == {0}, introspect_err[-2000:]

        recalls = [entry for n in range(RECALLERS)
                   for entry in json.loads((tmp_path / f"recall-{n}.json").read_text())]
        assert [entry for entry in recalls if entry["code"] != 0] == []
        writes = [entry for n in range(WRITERS) for entry in json.loads((tmp_path / f"write-{n}.json").read_text())]
        assert [entry["stderr"] for entry in writes if entry["code"] != 0] == []

        folded = subprocess.run([*alaya, "introspect", "--step", "cooldown", "--json"], capture_output=True,
                                text=True, env=served_env())
        assert folded.returncode == 0, folded.stderr
    finally:
        stop.touch()
        subprocess.run([*alaya, "server", "stop"], capture_output=True, env=served_env(), timeout=120)

    engine = Engine.open(demo_home)
    with engine.hold() as graph:
        sessions = graph.session_ids()
        cards = {card.id for card in graph.all_cards()}
    ingested = {outcome["session_id"] for entry in writes for outcome in entry["document"]["files"]}
    distilled = {card["id"] for entry in writes for outcome in entry["document"]["distill"]["sessions"]
                 for card in outcome["cards"]}
    assert len(ingested) == WRITERS * SESSIONS and ingested <= sessions
    assert distilled and distilled <= cards

    returned = Counter(card for entry in recalls + idle for card in entry["cards"])
    counts = {row["id"]: row["access_count"] for row in engine.vectors().heat_rows()}
    assert {card: counts.get(card) for card in returned} == dict(returned)
    assert sum(counts.values()) == sum(returned.values())
    assert engine.verify().to_json()["problems"] == []

    loaded = [entry["seconds"] for entry in recalls]
    print(f"\nrecall, whole process: idle p50 {statistics.median(idle_seconds) * 1000:.0f} ms "
          f"p95 {percentile(idle_seconds, 0.95) * 1000:.0f} ms; under load p50 {statistics.median(loaded) * 1000:.0f} "
          f"ms p95 {percentile(loaded, 0.95) * 1000:.0f} ms ({len(loaded)} recalls)")


def _idle_recalls(alaya: list[str], tmp_path: Path) -> list[dict]:
    """A warm-up recall (the server starts), then 20 with nothing else running."""
    warm = subprocess.run([*alaya, "recall", "warm up", "--json"], capture_output=True, text=True, env=served_env(),
                          timeout=300)
    assert warm.returncode == 0, warm.stderr
    out = tmp_path / "idle.json"
    process = spawn(RECALL_LOOP, json.dumps(alaya), str(out), "20", json.dumps(QUERIES))
    assert process.wait(timeout=300) == 0, process.stderr.read()
    return [{"code": 0, "seconds": 0.0,
             "cards": [n["card_id"] for n in json.loads(warm.stdout)["nodes"] if n["kind"] == "card"]},
            *json.loads(out.read_text())]
