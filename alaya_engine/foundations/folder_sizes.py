"""The files under a folder, counted and summed, each directory listed again only when it changed.

``alaya status`` reports L3's sessions and bytes; walking the sessions, records and card contexts of an aged
100k-card store (one stat a file) took ~114 ms of every call. A directory's mtime moves whenever a file in it is
created, renamed over or removed, which is every write of a file written whole (an atomic rename), so the owner
server keeps each directory's totals until its mtime moves. A directory holding a file written in place (an
append-only journal) is listed every time. A listing taken within a second of its directory's last change is not
trusted: a second change in the same tick of the file system's clock would leave the mtime as it was.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SETTLED_NS = 1_000_000_000
"""How long after its directory's last change a listing is kept (see the module's docstring)."""


def disk_usage(folder: Path) -> int:
    """Bytes in all files under ``folder`` (0 if it does not exist), listed now: one ``os.scandir`` walk and one
    stat a file (``rglob`` with ``is_file`` and ``stat`` took 240 ms for a large store's 20k sessions)."""
    return FolderSizes(folder, lambda directory, name: False, lambda name: True).totals()[1]


@dataclass(frozen=True)
class _Listing:
    mtime_ns: int
    listed_ns: int
    subdirs: tuple[str, ...]
    counted: int
    bytes: int
    in_place: bool
    """Whether it holds a file written in place: then it is listed again every time."""


class FolderSizes:
    def __init__(self, folder: Path, counted: Callable[[str, str], bool], written_in_place: Callable[[str], bool]):
        """``counted(directory, name)``: whether a file is one of those :meth:`totals` counts;
        ``written_in_place(name)``: whether a file is changed without its directory's mtime moving."""
        self.folder = folder
        self._counted = counted
        self._in_place = written_in_place
        self._listings: dict[str, _Listing] = {}
        self._lock = threading.Lock()

    def totals(self) -> tuple[int, int]:
        """(files counted, bytes of every file) under the folder; (0, 0) if it does not exist."""
        with self._lock:
            listings, pending, counted, total = {}, [str(self.folder)], 0, 0
            while pending:
                path = pending.pop()
                listing = self._listing(path)
                if listing is not None:
                    listings[path] = listing
                    counted, total = counted + listing.counted, total + listing.bytes
                    pending.extend(listing.subdirs)
            self._listings = listings
            return counted, total

    def _listing(self, path: str) -> _Listing | None:
        """The directory's totals, from the last walk if it has not changed since, else listed now."""
        try:
            mtime = os.stat(path).st_mtime_ns
        except (FileNotFoundError, NotADirectoryError):
            return None
        kept = self._listings.get(path)
        if kept is not None and kept.mtime_ns == mtime and not kept.in_place and kept.listed_ns - mtime >= SETTLED_NS:
            return kept
        listed = time.time_ns()
        subdirs, counted, total, in_place = [], 0, 0, False
        try:
            entries = os.scandir(path)
        except (FileNotFoundError, NotADirectoryError):
            return None
        with entries:
            for entry in entries:
                try:
                    if entry.is_dir(follow_symlinks=False):
                        subdirs.append(entry.path)
                    elif entry.is_file(follow_symlinks=False):  # a link's target lies elsewhere (or loops)
                        total += entry.stat(follow_symlinks=False).st_size
                        counted += self._counted(path, entry.name)
                        in_place = in_place or self._in_place(entry.name)
                except FileNotFoundError:  # an atomic write's temporary file, renamed meanwhile
                    continue
        return _Listing(mtime, listed, tuple(subdirs), counted, total, in_place)
