"""``python -m bench [--quick] [--only NAME ...]``: run the benchmarks, print one table, save JSON."""

from __future__ import annotations

import argparse
import importlib

from .report import print_table, save

BENCHMARKS = ("ingest", "cli_startup", "sync_speed", "distill_speed", "recall_speed", "introspect_speed",
              "locomo_quality")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="small sizes, finishes in under 2 minutes")
    parser.add_argument("--only", nargs="+", choices=BENCHMARKS, help="run only these benchmarks")
    arguments = parser.parse_args()
    rows = []
    for name in arguments.only or BENCHMARKS:
        rows.extend(importlib.import_module(f"bench.{name}").run(arguments.quick))
    print_table(rows)
    print(f"\nsaved to {save(rows, arguments.quick)}")


if __name__ == "__main__":
    main()
