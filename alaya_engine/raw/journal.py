"""The L3 journal: append-only records of changes that are not distillations.

Manual links, merges, forgetting, imports. Each event is one JSON line appended
and fsynced before the graph is touched (``jsonl.append_lines``: never onto a
torn line), so a rebuild replays the journal after the distilled records, in
order. A line that cannot be read (a torn append, damage) is skipped by replay
and named by ``lines``, so verify can report it, the last line of a file too;
the lines after it still count.

Each event names the machine that wrote it (``machine``, see ``foundations/machine.py``): when several machines
share one memory, every machine's events are merged as a union, and a pull appends the events of the others as
they were written. Events written before machines were named have no ``machine``: they are this store's own.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

from ..foundations.jsonl import LogLine, append_lines, read_lines
from ..foundations.machine import machine_id


def is_event(document: dict) -> bool:
    at = document.get("at")
    return isinstance(document.get("op"), str) and isinstance(at, int) and not isinstance(at, bool)


class Journal:
    def __init__(self, folder: Path):
        self.folder = folder
        self._machine: str | None = None

    @property
    def machine(self) -> str:
        """This store's machine id (the journal lives in ``<home>/raw/journal``)."""
        if self._machine is None:
            self._machine = machine_id(self.folder.parent.parent)
        return self._machine

    def append(self, op: str, at: int, **payload) -> None:
        self.append_many(op, at, [payload])

    def append_many(self, op: str, at: int, payloads: list[dict]) -> None:
        """Several events of one kind in one write and one fsync."""
        self.append_events([{"op": op, "at": at, "machine": self.machine, **payload} for payload in payloads])

    def append_events(self, events: list[dict]) -> None:
        """Whole events, as another machine wrote them (a pull), in one write."""
        month = datetime.now(timezone.utc).strftime("%Y-%m")  # when written, not ``at``: file order is append order
        append_lines(self.folder / f"{month}.jsonl", events)

    def own(self, event: dict) -> bool:
        """Whether this store wrote ``event`` (events older than machine ids are its own)."""
        return event.get("machine", self.machine) == self.machine

    def lines(self) -> Iterator[LogLine]:
        """Every line in append order, readable or not: a file's torn last line is one that is not."""
        for path in sorted(self.folder.glob("*.jsonl")):
            yield from read_lines(path, valid=is_event, torn_end=True)

    def events(self, op: str | None = None) -> Iterator[dict]:
        """Every readable event in order (optionally only one kind)."""
        for line in self.lines():
            if line.document is not None and (op is None or line.document["op"] == op):
                yield line.document
