"""``alaya sync openclaw`` over 200 OpenClaw sessions when nothing changed: what cron pays every few minutes.

The sessions are the two OpenClaw transcripts shipped with the demo, copied under new ids into two agents, each
with the trajectory sidecar and ``sessions.json`` a real state folder has. Everything runs with
``ALAYA_NO_SERVER=1``: the unchanged path must not need a server, and the benchmark leaves none behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from importlib.resources import files
from pathlib import Path

from alaya_engine.engine import Engine
from alaya_engine.integrations.openclaw_sync import sync_openclaw

from .report import Row, median_p95

SESSIONS = 200
TEMPLATES = ("3b7e2c91-5d4a-4f08-9c6e-1a2f8d0b47e5.jsonl", "9f41d6a2-0c3e-4b7a-8e15-d2c6b93a7f08.jsonl")


def generate_state_dir(root: Path, count: int) -> None:
    """``count`` transcripts under ``agents/{main,work}/sessions/``, written an hour ago (ended sessions)."""
    templates = [files("alaya_engine.demo").joinpath("sessions", name).read_text(encoding="utf-8").splitlines()
                 for name in TEMPLATES]
    an_hour_ago = time.time() - 3600
    for index in range(count):
        session_id = str(uuid.UUID(int=index + 1))
        lines = list(templates[index % len(templates)])
        header = json.loads(lines[0])
        lines[0] = json.dumps({**header, "id": session_id})
        folder = root / "agents" / ("main" if index % 2 else "work") / "sessions"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{session_id}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (folder / f"{session_id}.trajectory.jsonl").write_text(json.dumps({"type": "session.started"}) + "\n")
    for folder in root.glob("agents/*/sessions"):
        (folder / "sessions.json").write_text("{}\n")
        for path in folder.iterdir():
            os.utime(path, (an_hour_ago, an_hour_ago))


def run(quick: bool) -> list[Row]:
    runs = 5 if quick else 20
    with tempfile.TemporaryDirectory(prefix="alaya-bench-") as scratch:
        home, state = Path(scratch) / "home", Path(scratch) / "openclaw"
        Engine.init(home)
        generate_state_dir(state, SESSIONS)
        env = {**os.environ, "ALAYA_NO_SERVER": "1"}
        argv = [sys.executable, "-m", "alaya_engine.cli", "--home", str(home), "sync", "openclaw", "--state-dir",
                str(state), "--json"]
        started = time.perf_counter()
        first = json.loads(subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout)
        first_s = time.perf_counter() - started
        assert first["ingested"] == SESSIONS, first
        samples, floor = [], []
        for _ in range(runs):
            started = time.perf_counter()
            again = json.loads(subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout)
            samples.append((time.perf_counter() - started) * 1000)
            assert again["changes"] == [] and again["unchanged"] == SESSIONS, again
            started = time.perf_counter()
            subprocess.run(argv[:3] + ["version", "--json"], env=env, check=True, capture_output=True)
            floor.append((time.perf_counter() - started) * 1000)
        in_process = [sync_openclaw(home, no_server=True, state_dir=str(state))["elapsed_ms"] for _ in range(runs)]
    p50, p95 = median_p95(samples)
    work_p50, _ = median_p95(in_process)
    floor_p50, _ = median_p95(floor)
    return [
        Row("sync_speed", f"first sync, {SESSIONS} new sessions", first_s, "s", "ingest only, in-process engine"),
        Row("sync_speed", f"{SESSIONS} sessions, nothing changed (whole process)", p50, "ms p50",
            f"p95 {p95:.0f} ms over {runs} runs; target < 1000 ms"),
        Row("sync_speed", f"{SESSIONS} sessions, nothing changed (the sync itself)", work_p50, "ms p50",
            f"stat {SESSIONS * 2 + 2} files, no hashing, no engine"),
        Row("sync_speed", "alaya version --json (any command's floor)", floor_p50, "ms p50",
            "Python + the command line starting, interleaved with the runs above"),
    ]
