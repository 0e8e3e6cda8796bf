"""Introspect wall time and peak memory on synthetic stores of 10k and 100k cards (``--quick``: 1k and 10k).

Each run is a separate process (``python -c``) so its peak RSS is introspect's own; the store is a fresh
synthetic one (:mod:`bench.synthetic`), whose cards were created over two years, so cool-down and forget
have real work to do.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from .report import Row
from .synthetic import build_store

NAME = "introspect"
PROBE = """
import json, resource, sys, time
from alaya_engine.engine import Engine
engine = Engine.open(sys.argv[1])
started = time.perf_counter()
report = engine.introspect()
steps = {name: round(seconds, 1) for name, seconds in report["step_seconds"].items()}
print(json.dumps({"seconds": time.perf_counter() - started, "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "steps": steps, "suggestions": report["steps"]["consolidate"]["new"],
                  "tiers": report["steps"]["cooldown"]["by_tier"], "forgotten": report["steps"]["forget"]["count"]}))
"""


def run(quick: bool) -> list[Row]:
    rows = []
    for size in (1_000, 10_000) if quick else (10_000, 100_000):
        label = f"{size // 1000}k"
        with tempfile.TemporaryDirectory(prefix="alaya-bench-introspect-") as scratch:
            home = Path(scratch) / "home"
            build_store(home, size)
            child = subprocess.run([sys.executable, "-c", PROBE, str(home)], capture_output=True, text=True,
                                   check=True, timeout=1800)
            result = json.loads(child.stdout.strip().splitlines()[-1])
        rows.append(Row(NAME, f"{label}: alaya introspect (whole)", result["seconds"], "s",
                        f"steps {result['steps']}; peak RSS {result['peak_mb']:.0f} MB; new suggestions "
                        f"{result['suggestions']}; tiers {result['tiers']}; forgotten {result['forgotten']}"))
        rows.append(Row(NAME, f"{label}: introspect peak RSS", result["peak_mb"], "MB"))
    return rows
