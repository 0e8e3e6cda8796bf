"""A full disk, recognised wherever it surfaces, so it is reported as one line with what to do.

Python raises ``OSError(ENOSPC)``; LanceDB quotes the OS error in a ``RuntimeError``; LadybugDB reports a failed
write as an "IO exception" whose text may carry another errno (a short write sets none), so for those the free
space of the store's file system decides.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path

from .errors import RUNTIME, AlayaError

SIGNS = ("No space left on device", "os error 28", "Disk quota exceeded", "os error 122")
IO_FAILURES = ("IO exception", "LanceError(IO)")
NEARLY_FULL = 1 << 20
"""Fewer free bytes than this, and a native library's failed write is taken for a full disk."""


def is_disk_full(error: BaseException, home: Path) -> bool:
    if isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    text = str(error)
    return any(sign in text for sign in SIGNS) or (any(kind in text for kind in IO_FAILURES)
                                                   and free_bytes(home) < NEARLY_FULL)


def free_bytes(folder: Path) -> int:
    try:
        stats = os.statvfs(folder)
    except OSError:
        return NEARLY_FULL
    return stats.f_bavail * stats.f_frsize


def disk_full(error: BaseException, home: Path) -> AlayaError:
    """The one-line error for ``error``, naming the file it hit when it says, else the store's home."""
    where = getattr(error, "filename", None) or home
    return AlayaError("disk_full", f"disk full at {where}: free space and re-run", RUNTIME)
