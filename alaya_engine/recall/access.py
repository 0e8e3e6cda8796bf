"""The access log: one appended line per recall, so concurrent recalls never lose a count.

Each recall appends ``{"at": ms, "cards": [[card_id, similarity], ...]}`` in a
single ``write`` on an ``O_APPEND`` descriptor: the kernel places each write at
the end of the file atomically, so many processes can record at once without
a lock and without read-modify-write races. Introspect folds the log into the
counters (``access_count``, ``last_accessed``) and the relevance term of the
temperature.
"""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class AccessStats:
    count: int = 0
    last_accessed: int = 0
    similarities: list[float] = field(default_factory=list)


class AccessLog:
    def __init__(self, path: Path):
        self.path = path

    @property
    def offset_file(self) -> Path:
        """Where cool-down keeps the byte offset it has folded up to."""
        return self.path.with_suffix(".offset")

    def record(self, at: int, hits: list[tuple[str, float]]) -> None:
        if not hits:
            return
        line = json.dumps({"at": at, "cards": [[card_id, round(score, 4)] for card_id, score in hits]}) + "\n"
        self.path.parent.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(descriptor, line.encode("utf-8"))
        finally:
            os.close(descriptor)

    def fold(self, offset: int = 0, stop_at: Collection[str] = ()) -> tuple[dict[str, AccessStats], int]:
        """Per-card statistics of the complete lines after byte ``offset``, and the offset after them.

        A torn last line (a crash mid-append, or a write in progress) is left for the next fold, and so is every
        line from the first one naming a card in ``stop_at``.
        """
        stats: dict[str, AccessStats] = {}
        if not self.path.exists():
            return stats, offset
        with self.path.open("rb") as handle:
            handle.seek(offset)
            for line in handle:
                if not line.endswith(b"\n"):
                    break
                try:
                    entry = json.loads(line)
                except json.JSONDecodeError:
                    offset += len(line)
                    continue
                if stop_at and any(card_id in stop_at for card_id, _ in entry["cards"]):
                    break
                offset += len(line)
                for card_id, similarity in entry["cards"]:
                    card = stats.setdefault(card_id, AccessStats())
                    card.count += 1
                    card.last_accessed = max(card.last_accessed, entry["at"])
                    card.similarities.append(similarity)
        return stats, offset
