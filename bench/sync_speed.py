"""``alaya sync openclaw`` over 200 OpenClaw sessions (``--quick``: 20) when nothing changed: what cron pays.

The sessions are the two OpenClaw transcripts shipped with the demo, copied under new ids into two agents, each
with the trajectory sidecar and ``sessions.json`` a real state folder has. Everything runs with
``ALAYA_NO_SERVER=1``: the unchanged path must not need a server, and the benchmark leaves none behind.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
import uuid
from importlib.resources import files
from pathlib import Path

from alaya_engine.integrations.openclaw_sync import sync_openclaw

from .plan import Plan
from .processes import ALAYA, child_env, measure
from .report import Row, median_p95

NAME = "sync_speed"
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


def run(plan: Plan) -> list[Row]:
    runs, sessions = plan.pick(2, 20), plan.pick(20, 200)
    with plan.stores.empty() as home, tempfile.TemporaryDirectory(prefix="alaya-bench-openclaw-") as scratch:
        state = Path(scratch) / "openclaw"
        generate_state_dir(state, sessions)
        env = child_env(server=False)
        argv = ALAYA + ["--home", str(home), "sync", "openclaw", "--state-dir", str(state), "--json"]
        started = time.perf_counter()
        first = json.loads(subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout)
        first_s = time.perf_counter() - started
        assert first["ingested"] == sessions, first
        samples, floor = [], []
        for _ in range(runs):
            started = time.perf_counter()
            again = json.loads(subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout)
            samples.append((time.perf_counter() - started) * 1000)
            assert again["changes"] == [] and again["unchanged"] == sessions, again
            floor.append(measure(ALAYA + ["version", "--json"], env).ms)
        in_process = [sync_openclaw(home, no_server=True, state_dir=str(state))["elapsed_ms"] for _ in range(runs)]
    p50, p95 = median_p95(samples)
    work_p50, _ = median_p95(in_process)
    floor_p50, _ = median_p95(floor)
    return [
        Row(NAME, f"first sync, {sessions} new sessions", first_s, "s", "whole process, ingest only, --no-server"),
        Row(NAME, f"{sessions} sessions, nothing changed (whole process)", p50, "ms p50",
            f"p95 {p95:.0f} ms over {runs} runs; target < 1000 ms for 200"),
        Row(NAME, f"{sessions} sessions, nothing changed (the sync itself)", work_p50, "ms p50",
            f"stat {sessions * 2 + 2} files, no hashing, no engine"),
        Row(NAME, "alaya version --json (any command's floor)", floor_p50, "ms p50",
            "Python + the command line starting, interleaved with the runs above"),
    ]
