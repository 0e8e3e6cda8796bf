"""``python -m bench --quick`` completes and saves rows for every benchmark it ran: the issue's CI smoke run.

Only completion is asserted, never a speed: CI machines differ and this one shares its cores with the rest of
the suite. The benchmark package is not installed, so it runs from the repository root, as a person runs it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
ISSUE_ROWS = {"ingest", "distill_speed", "embedding_speed", "store_size", "recall_speed", "introspect_speed",
              "locomo_quality"}
"""The benchmarks the issue asks for (LoCoMo appears as a row saying it was skipped)."""


@pytest.mark.slow
def test_quick_benchmark_completes_and_saves_rows_for_every_benchmark(tmp_path):
    results = tmp_path / "results"
    completed = subprocess.run([sys.executable, "-m", "bench", "--quick", "--results", str(results)], cwd=REPO,
                               capture_output=True, text=True, timeout=600)
    assert completed.returncode == 0, completed.stderr[-3000:]
    [saved] = results.glob("bench-*.json")
    document = json.loads(saved.read_text(encoding="utf-8"))
    ran = set(document["benchmarks"])
    assert document["quick"] is True and ISSUE_ROWS <= ran
    assert {row["benchmark"] for row in document["rows"]} == ran
    assert "saved to" in completed.stdout
