"""A store is private: every file and folder Alaya creates is owner-only, and no one else may write the home.

Raw sessions hold whatever an agent saw, and the graph, vectors, logs and caches are derived from them, so all of
it is as private as the sessions. Rather than give a mode to each file (LanceDB and the graph database create
theirs in native code), a process that works on a store sets its umask to 077: whatever the user's umask, nothing
it creates is readable by others. A home that others can write is refused on every path (in-process too), since
anyone who can plant a file there controls what a command reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import RUNTIME, AlayaError

OWNER_ONLY_UMASK = 0o077


def create_privately() -> None:
    """From now on, files and folders this process creates are owner-only (0600/0700)."""
    os.umask(OWNER_ONLY_UMASK)


def refuse_shared_home(home: Path) -> None:
    """Refuse a home that is writable by group or others, or not the user's own."""
    info = home.stat()
    mode = stat.S_IMODE(info.st_mode)
    if mode & 0o022 or info.st_uid != os.getuid():
        raise AlayaError("unsafe_home", f"{home} is writable by others (mode {mode:o}) or not yours; "
                                        f"run: chmod 700 {home}", RUNTIME)


def tighten_home(home: Path) -> str | None:
    """Make an adopted home owner-only (0700); says what changed, or None when it already was."""
    info = home.stat()
    if info.st_uid != os.getuid():
        raise AlayaError("unsafe_home", f"{home} belongs to another user; choose a folder of your own", RUNTIME)
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return None
    home.chmod(0o700)
    return f"Made {home} private: mode {mode:o} → 700 (only you can read it)"


def make_tree_private(folder: Path) -> None:
    """Owner-only modes for everything under ``folder`` (files unpacked with the modes an archive recorded)."""
    for root, folders, files in os.walk(folder):
        for name in folders:
            os.chmod(os.path.join(root, name), 0o700, follow_symlinks=False)
        for name in files:
            path = os.path.join(root, name)
            if not os.path.islink(path):
                os.chmod(path, stat.S_IMODE(os.stat(path).st_mode) & 0o700)
    folder.chmod(0o700)
