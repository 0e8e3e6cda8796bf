"""Whole-process wall time of CLI commands: what an agent pays per call."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from alaya_engine.engine import Engine

from .report import Row, median_p95


def time_process(argv: list[str], runs: int, env: dict) -> list[float]:
    """Wall milliseconds of ``runs`` complete runs of ``argv``."""
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def run(quick: bool) -> list[Row]:
    runs = 5 if quick else 20
    rows = []
    with tempfile.TemporaryDirectory(prefix="alaya-bench-") as scratch:
        home = Path(scratch) / "home"
        Engine.init(home)
        env = {**os.environ, "ALAYA_HOME": str(home)}
        commands = (
            ("python -c pass (floor)", [sys.executable, "-c", "pass"]),
            ("alaya --help", [sys.executable, "-m", "alaya_engine.cli", "--help"]),
            ("alaya status --json", [sys.executable, "-m", "alaya_engine.cli", "status", "--json"]),
        )
        for label, argv in commands:
            p50, p95 = median_p95(time_process(argv, runs, env))
            rows.append(Row("cli", label, p50, "ms p50", f"p95 {p95:.0f} ms over {runs} runs"))
    return rows
