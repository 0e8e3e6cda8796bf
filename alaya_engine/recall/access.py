"""The access log: one appended line per recall, so concurrent recalls never lose a count.

Each recall appends ``{"at": ms, "cards": [[card_id, similarity], ...]}`` in a
single ``write`` on an ``O_APPEND`` descriptor (``jsonl.append_lines``): the
kernel places each write at the end of the file atomically, so many processes
can record at once without a lock and without read-modify-write races, and an
append never joins a torn line. Introspect folds the log into the counters
(``access_count``, ``last_accessed``) and the relevance term of the
temperature; a line that is not such a record is skipped (verify names it).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..foundations.jsonl import LogLine, append_lines, read_lines


@dataclass
class AccessStats:
    count: int = 0
    last_accessed: int = 0
    similarities: list[float] = field(default_factory=list)


def is_access(document: dict) -> bool:
    at, cards = document.get("at"), document.get("cards")
    return (isinstance(at, int) and not isinstance(at, bool) and isinstance(cards, list)
            and all(isinstance(hit, list) and len(hit) == 2 and isinstance(hit[0], str)
                    and isinstance(hit[1], (int, float)) and not isinstance(hit[1], bool) for hit in cards))


class AccessLog:
    def __init__(self, path: Path):
        self.path = path

    @property
    def offset_file(self) -> Path:
        """Where cool-down keeps the byte offset it has folded up to."""
        return self.path.with_suffix(".offset")

    def record(self, at: int, hits: list[tuple[str, float]]) -> None:
        if hits:
            append_lines(self.path, [{"at": at, "cards": [[card_id, round(score, 4)] for card_id, score in hits]}],
                         durable=False)

    def lines(self, offset: int = 0) -> Iterator[LogLine]:
        return read_lines(self.path, offset, valid=is_access)

    def fold(self, offset: int = 0, stop_at: Collection[str] = ()) -> tuple[dict[str, AccessStats], int]:
        """Per-card statistics of the complete lines after byte ``offset``, and the offset after them.

        A torn last line (a crash mid-append, or a write in progress) is left for the next fold, and so is every
        line from the first one naming a card in ``stop_at``; an unreadable line is passed over.
        """
        stats: dict[str, AccessStats] = {}
        for line in self.lines(offset):
            entry = line.document
            if entry is not None:
                if stop_at and any(card_id in stop_at for card_id, _ in entry["cards"]):
                    break
                for card_id, similarity in entry["cards"]:
                    card = stats.setdefault(card_id, AccessStats())
                    card.count += 1
                    card.last_accessed = max(card.last_accessed, entry["at"])
                    card.similarities.append(similarity)
            offset = line.end
        return stats, offset
