"""One row per measurement; printed as a table and saved as JSON so runs can be compared."""

from __future__ import annotations

import json
import platform
import statistics
import time
from dataclasses import asdict, dataclass
from pathlib import Path

RESULTS = Path(__file__).parent / "results"


@dataclass
class Row:
    benchmark: str
    metric: str
    value: float
    unit: str
    note: str = ""


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
        print(f"{row.benchmark:<{widths[0]}}  {row.metric:<{widths[1]}}  {row.value:>12.3f}  {row.unit:<{widths[2]}}  {row.note}")


def save(rows: list[Row], quick: bool) -> Path:
    RESULTS.mkdir(exist_ok=True)
    path = RESULTS / f"bench-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps({
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {"python": platform.python_version(), "platform": platform.platform(), "cpus": __import__("os").cpu_count()},
        "quick": quick,
        "rows": [asdict(row) for row in rows],
    }, indent=2))
    return path
