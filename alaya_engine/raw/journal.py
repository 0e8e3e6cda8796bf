"""The L3 journal: append-only records of changes that are not distillations.

Manual links today; merges, forgetting and imports as they land. Each event
is one JSON line appended with ``O_APPEND`` and fsynced before the graph is
touched, so a rebuild replays the journal after the distilled records, in
order. A torn last line (a crash mid-append) is skipped on replay.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path


class Journal:
    def __init__(self, folder: Path):
        self.folder = folder

    def append(self, op: str, at: int, **payload) -> None:
        self.append_many(op, at, [payload])

    def append_many(self, op: str, at: int, payloads: list[dict]) -> None:
        """Several events of one kind in one write and one fsync."""
        month = datetime.now(timezone.utc).strftime("%Y-%m")  # when written, not ``at``: file order is append order
        self.folder.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps({"op": op, "at": at, **payload}, ensure_ascii=False) + "\n" for payload in payloads)
        descriptor = os.open(self.folder / f"{month}.jsonl", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, lines.encode("utf-8"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)

    def events(self, op: str | None = None) -> Iterator[dict]:
        """Every event in order (optionally only one kind); a torn line from a crash is skipped."""
        for path in sorted(self.folder.glob("*.jsonl")):
            with path.open(encoding="utf-8") as handle:
                for line in handle:
                    try:
                        event = json.loads(line)
                    except json.JSONDecodeError:
                        continue
                    if op is None or event.get("op") == op:
                        yield event
