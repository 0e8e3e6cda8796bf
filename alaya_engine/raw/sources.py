"""Turn ``alaya ingest`` arguments (files, folders, ``-``) into readable session sources."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..foundations.domain import IngestOutcome
from .formats import refuse

SESSION_SUFFIXES = (".json", ".jsonl")
STDIN = "-"


@dataclass
class SessionSource:
    name: str
    path: Path | None = None
    data: bytes | None = None

    @property
    def agent_hint(self) -> str | None:
        """OpenClaw keeps transcripts at ``agents/<agent>/sessions/<id>.jsonl``."""
        if self.path is None:
            return None
        parts = self.path.parts
        if len(parts) >= 4 and parts[-2] == "sessions" and parts[-4] == "agents":
            return parts[-3]
        return None

    def read(self, max_bytes: int) -> bytes:
        """The raw bytes; an oversized file is refused before it is read. The CLI reads at most one byte more
        than the limit from stdin (whatever its size, a refusal then costs little and the request stays small),
        so stdin's size is not known here."""
        if self.data is not None:
            if len(self.data) > max_bytes:
                raise refuse(f"input is over ingest.max_file_mb ({max_bytes / 1e6:g} MB); split the session")
            return self.data
        size = self.path.stat().st_size
        if size > max_bytes:
            raise refuse(f"file is {size / 1e6:.1f} MB, over ingest.max_file_mb ({max_bytes / 1e6:g} MB)")
        return self.path.read_bytes()


def expand_sources(arguments: list[str], stdin: bytes | None) -> tuple[list[SessionSource], list[IngestOutcome]]:
    """Folders expand recursively to their ``.json``/``.jsonl`` files; missing paths become refusals."""
    sources: list[SessionSource] = []
    missing: list[IngestOutcome] = []
    for argument in arguments:
        if argument == STDIN:
            sources.append(SessionSource(name="<stdin>", data=stdin or b""))
            continue
        path = Path(argument).expanduser()
        if path.is_dir():
            sources.extend(SessionSource(name=display_name(found), path=found) for found in sorted(path.rglob("*"))
                           if found.is_file() and found.suffix in SESSION_SUFFIXES
                           and not any(part.startswith(".") for part in found.relative_to(path).parts))
        elif path.is_file():
            sources.append(SessionSource(name=display_name(path), path=path))
        else:
            missing.append(IngestOutcome(source=display_name(argument), status="refused", error={
                "code": "not_found", "message": "no such file or folder"}))
    return sources, missing


def display_name(path: str | os.PathLike) -> str:
    """A path as one printable line: undecodable bytes as ``\\xNN``, line breaks and other controls escaped.

    Names end up in error lines, JSON output and the log file; a raw newline would split the one
    error line in two, and an undecodable byte cannot be written to a UTF-8 stream at all.
    """
    text = os.fsencode(path).decode("utf-8", "backslashreplace")
    return "".join(char if char.isprintable() else char.encode("unicode_escape").decode("ascii") for char in text)
