"""TableVersions: a table's version, asked of LanceDB only when the table may have changed.

With ``read_consistency_interval`` 0, reading ``table.version`` makes LanceDB
look for a newer manifest through its runtime: 0.3-0.9 ms, and a recall asks
twice (card vectors, relations) on every call. Every commit writes a new
manifest into the table's ``_versions`` folder, which moves the folder's
mtime, so one ``stat`` (a few µs) tells whether asking is needed.

The kernel stamps mtimes from a coarse clock (one tick, a few ms), so a commit
in the same tick as the previous one may leave the mtime unchanged. A cached
version is therefore trusted only when it was checked more than
``SETTLE_NS`` after the folder last changed: any commit after that check
stamps a later mtime. The store is a local folder; a network file system
whose clock drifts from this machine's by more than that margin would need
the check every time.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path

SETTLE_NS = 1_000_000_000


class TableVersions:
    def __init__(self, folder: Path):
        self.folder = folder
        self._known: dict[str, tuple[tuple[int, int], int, int]] = {}
        """Table name → (folder stamp, when it was taken, the version LanceDB gave then)."""

    def version(self, name: str, ask: Callable[[], int]) -> int:
        """The table's current version: the cached one while its folder is unchanged and settled, else ``ask()``."""
        checked_at = time.time_ns()
        stamp = self._stamp(name)
        known = self._known.get(name)
        if stamp is not None and known is not None and known[0] == stamp and known[1] - stamp[0] > SETTLE_NS:
            return known[2]
        version = ask()
        if stamp is not None:
            self._known[name] = (stamp, checked_at, version)
        return version

    def identity(self, name: str, ask: Callable[[], int]) -> tuple[int, str] | None:
        """The table's version asked of LanceDB, and a name for that version of this very table (the version with
        its ``_versions`` folder's inode and mtime); None while a commit moves the folder meanwhile."""
        before = self._stamp(name)
        version = ask()
        if before is None or self._stamp(name) != before:
            return None
        return version, f"{version}-{before[1]}-{before[0]}"

    def _stamp(self, name: str) -> tuple[int, int] | None:
        """The ``_versions`` folder's mtime and inode (a dropped and re-created table has a new folder)."""
        try:
            status = os.stat(self.folder / f"{name}.lance" / "_versions")
        except OSError:
            return None
        return status.st_mtime_ns, status.st_ino
