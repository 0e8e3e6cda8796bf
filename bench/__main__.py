"""``python -m bench [--quick] [--only NAME ...] [--results DIR]``: run the benchmarks, print one table, save JSON."""

from __future__ import annotations

import argparse
import importlib
import sys
import tempfile
import time
import traceback
from pathlib import Path

from .plan import Plan
from .report import RESULTS, load_average, print_table, save, skipped
from .stores import Stores

BENCHMARKS = ("ingest", "cli_startup", "forwarded_commands", "sync_speed", "distill_speed", "embedding_speed",
              "store_size", "recall_speed", "explorer_keys", "search_quality", "introspect_speed", "locomo_quality",
              "memorybank_quality", "crosslingual_quality", "agentset_quality", "agentset_currency",
              "agentset_entities", "aged_quality", "aged_stores", "distill_coverage", "navigation_quality", "team_sync")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="the 1k store only, few repetitions, the quality benchmarks skipped: a smoke run of "
                             "well under 2 minutes")
    parser.add_argument("--million", action="store_true",
                        help="aged_stores also builds and ages a store of a million cards (~40 minutes, ~22 GB of "
                             "RAM, ~12 GB of disk)")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, metavar="NAME",
                        help=f"run only these benchmarks: {', '.join(BENCHMARKS)}")
    parser.add_argument("--results", type=Path, default=RESULTS, metavar="DIR",
                        help="folder for the JSON file (default: bench/results)")
    arguments = parser.parse_args()
    load_before = load_average()
    rows, seconds = [], {}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="alaya-bench-") as scratch:
        plan = Plan(arguments.quick, frozenset(arguments.only or ()), Stores(Path(scratch)), arguments.million)
        failed = []
        for name in arguments.only or BENCHMARKS:
            began = time.perf_counter()
            try:
                rows.extend(importlib.import_module(f"bench.{name}").run(plan))
            except Exception as error:  # one benchmark's failure is its row: the others' rows are kept and saved
                traceback.print_exc()
                rows.append(skipped(name, "failed", f"{type(error).__name__}: {error}"))
                failed.append(name)
            seconds[name] = round(time.perf_counter() - began, 1)
    print_table(rows)
    spent = ", ".join(f"{name} {value:g}" for name, value in seconds.items())
    print(f"\n{time.perf_counter() - started:.0f} s in all: {spent}")
    print(f"saved to {save(rows, seconds, arguments.quick, load_before, arguments.results)}")
    if failed:
        sys.exit(f"failed: {', '.join(failed)} (their errors are above and in their rows)")


if __name__ == "__main__":
    main()
