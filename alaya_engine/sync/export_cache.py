"""What the last push made of each shared session, so that a push masks and encodes only what changed.

Masking a session and encoding its copy and record cost ~10 ms each: a store of 10,000 sessions paid that for every
one of them at every push, though cron pushes every few minutes and almost nothing changes in between. The cache
(``<home>/sync/export-cache.json``) maps a session's stored file and record, by content, to the tree files made of
them (their sha256) and what the masker found there (kinds and offsets, never a secret). The files themselves are
not kept twice: the working copy holds them since the last push, and one is reused only while its bytes are still
the ones made. The cache is dropped whole when the code that makes the copies changes (:data:`VERSION`, a digest
of the masker's and the export's sources), and keeps only the entries the last push used.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..foundations import domain
from ..foundations.atomic import atomic_write_json
from ..raw import distilled, formats
from . import mask

SOURCES = (mask.__file__, str(Path(__file__).with_name("tree.py")), formats.__file__, distilled.__file__,
           domain.__file__)
"""The masker, the export (``tree.py``, named by path: it hands the cache in) and the formats of what it copies."""


def _digest(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


VERSION = _digest(*(Path(source).read_bytes() for source in SOURCES))
"""Changes with any line of the code a pushed copy depends on (the masker's rules above all)."""


class ExportCache:
    def __init__(self, file: Path, tree: Path | None):
        """``tree``: the working copy whose files were made by the last push (None: nothing to reuse)."""
        self.file, self.tree, self.used = file, tree, {}
        try:
            document = json.loads(file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            document = {}
        fresh = isinstance(document, dict) and document.get("version") == VERSION
        self.entries = document.get("entries", {}) if fresh and isinstance(document.get("entries"), dict) else {}

    @staticmethod
    def key(machine: str, session: bytes, record: bytes | None) -> str:
        return _digest(machine.encode("utf-8"), session, record if record is not None else b"\0none")

    def take(self, key: str) -> tuple[dict[str, bytes], list[dict]] | None:
        """The tree files and findings made last time from the same content, or None."""
        entry = self.entries.get(key)
        if self.tree is None or not isinstance(entry, dict):
            return None
        files = {}
        for relative, digest in entry["files"].items():
            try:
                data = (self.tree / relative).read_bytes()
            except OSError:
                return None
            if hashlib.sha256(data).hexdigest() != digest:
                return None
            files[relative] = data
        self.used[key] = entry
        return files, entry["masked"]

    def remember(self, key: str, files: dict[str, bytes], masked: list[dict]) -> None:
        self.used[key] = {"files": {relative: hashlib.sha256(data).hexdigest() for relative, data in files.items()},
                          "masked": masked}

    def save(self) -> None:
        atomic_write_json(self.file, {"version": VERSION, "entries": self.used})
