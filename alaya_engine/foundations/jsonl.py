"""Append-only JSON-lines files (the L3 journal, the access log): appends that never join a torn line, reads that
name every line they cannot use.

A crash or a full disk can leave a partial last line. An append that glued its event onto it would turn an
acknowledged write into part of an unreadable line, so every append first looks at the last byte and starts a new
line when it is not a newline. Each append is one ``write`` on an ``O_APPEND`` descriptor (the kernel places it at
the end atomically, so concurrent appenders need no lock); a short write or a failed ``fsync`` is an error, and
the bytes that did land are cut off again when nothing was appended after them. Readers get each line with its
number and size, and a reason instead of a document when it is not valid UTF-8 JSON of the expected shape.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path


@dataclass
class LogLine:
    """One newline-terminated line: where it is (its 1-based number when read from the start), its size, and its
    document or why there is none."""

    path: Path
    number: int | None
    start: int
    size: int
    document: dict | None
    reason: str = ""

    @property
    def end(self) -> int:
        return self.start + self.size

    def describe(self) -> str:
        where = f"line {self.number}" if self.number else f"byte {self.start}"
        return f"{self.path}, {where} ({self.size} bytes): {self.reason}"


def append_lines(path: Path, documents: list[dict], durable: bool = True) -> None:
    """Append one JSON line per document in a single write (fsynced when ``durable``), on a line of its own."""
    data = "".join(json.dumps(document, ensure_ascii=False) + "\n" for document in documents).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    descriptor = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        size = os.fstat(descriptor).st_size
        if size and os.pread(descriptor, 1, size - 1) != b"\n":
            data = b"\n" + data
        written = 0
        try:
            written = os.write(descriptor, data)
            if written != len(data):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(path))
            if durable:
                os.fsync(descriptor)
        except OSError:
            _undo(descriptor, size, written)
            raise
    finally:
        os.close(descriptor)


def _undo(descriptor: int, size: int, written: int) -> None:
    """Cut off a failed append's bytes, unless another appender has written after them (then they stay torn)."""
    try:
        if written and os.fstat(descriptor).st_size == size + written:
            os.ftruncate(descriptor, size)
    except OSError:
        pass


def read_lines(path: Path, offset: int = 0, valid: Callable[[dict], bool] | None = None,
               torn_end: bool = False) -> Iterator[LogLine]:
    """The complete lines of ``path`` from byte ``offset`` on. Empty lines are skipped; ``valid`` checks a
    document's shape. A last line without its newline (an append in progress, or a crash's leftover) is not
    yielded, unless ``torn_end`` asks for it as an unreadable line: the journal's, so that verify names a torn
    line at the end as it does one that later appends moved into the middle."""
    if not path.exists():
        return
    with path.open("rb") as handle:
        handle.seek(offset)
        counting = offset == 0
        for number, raw in enumerate(handle, start=1):
            start, offset = offset, offset + len(raw)
            if not raw.endswith(b"\n"):
                if torn_end and raw.strip():
                    yield LogLine(path, number if counting else None, start, len(raw), None,
                                  "no newline at the end: an append cut short (a crash or a full disk)")
                return
            if not raw.strip():
                continue
            document, reason = _parse(raw)
            if document is not None and valid is not None and not valid(document):
                document, reason = None, "not the expected kind of record"
            yield LogLine(path, number if counting else None, start, len(raw), document, reason)


def _parse(raw: bytes) -> tuple[dict | None, str]:
    try:
        document = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        return None, f"invalid UTF-8 at byte {exc.start}"
    except ValueError as exc:
        return None, f"not JSON ({exc})"
    if not isinstance(document, dict):
        return None, "not a JSON object"
    return document, ""
