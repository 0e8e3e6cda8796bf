"""One row per measurement; printed as a table and saved as JSON so runs can be compared."""

from __future__ import annotations

import json
import os
import platform
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).parent / "results"


@dataclass
class Row:
    """``value`` is None for a row that says why nothing was measured (a skipped step, missing data).

    ``detail``: optional data behind the row (per-question results), saved in the JSON file, never printed.
    """

    benchmark: str
    metric: str
    value: float | None
    unit: str
    note: str = ""
    detail: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        document = asdict(self)
        if self.detail is None:
            del document["detail"]
        return document


def skipped(benchmark: str, metric: str, why: str) -> Row:
    return Row(benchmark, metric, None, "-", why)


def percent(part: int, whole: int) -> float | None:
    """``part`` as a percentage of ``whole``, one decimal (None of nothing)."""
    return round(100 * part / whole, 1) if whole else None


def median_p95(samples: list[float]) -> tuple[float, float]:
    ordered = sorted(samples)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def print_table(rows: list[Row]) -> None:
    widths = [max(len(str(getattr(row, name))) for row in rows + [Row("benchmark", "metric", 0, "unit", "note")])
              for name in ("benchmark", "metric", "unit", "note")]
    header = f"{'benchmark':<{widths[0]}}  {'metric':<{widths[1]}}  {'value':>12}  {'unit':<{widths[2]}}  note"
    print(header)
    print("-" * len(header))
    for row in rows:
        value = "—" if row.value is None else f"{row.value:.3f}"
        print(f"{row.benchmark:<{widths[0]}}  {row.metric:<{widths[1]}}  {value:>12}  {row.unit:<{widths[2]}}  "
              f"{row.note}")


def load_average() -> list[float] | None:
    """The 1/5/15-minute load: timings taken on a busy machine say so in their JSON file."""
    return list(os.getloadavg()) if hasattr(os, "getloadavg") else None


def save(rows: list[Row], seconds: dict[str, float], quick: bool, load_before: list[float] | None,
         folder: Path) -> Path:
    """``bench-<time>.json`` in ``folder``: the machine, the mode, each benchmark's wall time and every row."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count(),
                    "load_average_before": load_before, "load_average_after": load_average()},
        "quick": quick,
        "benchmarks": seconds,
        "rows": [row.to_json() for row in rows],
    }, indent=2, ensure_ascii=False), encoding="utf-8")
    return path
