"""``alaya backup`` and ``alaya restore FILE``: a consistent snapshot of a store while others use it.

A plain cron ``tar`` reads files while the owner may be writing them, so
an archive can hold half a graph transaction. Here the snapshot is taken in
one step of the engine (the store held, this process's other writers kept
out — in the owner server, every client's writes): the graph database is
checkpointed and copied, files that are only ever replaced by rename
(sessions, records, contexts, LanceDB's immutable data files) are
hard-linked, and files appended in place (the journal, the access log) are
copied. That step takes well under a second for thousands of files; the
slow part, compressing, runs after it while recalls and writes go on.

What a backup holds: ``config.json``, ``store.json``, ``raw/``, ``prompts/``,
``stats/``, ``graph/`` and ``lancedb/`` — everything but the server's socket,
pid and lock files, logs, the model cache, exports and earlier backups.
``config.json`` names the environment variable of an API key, never the key.
"""

from __future__ import annotations

import errno
import itertools
import os
import shutil
import tarfile
import time
from contextlib import nullcontext
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.errors import RUNTIME, USAGE, AlayaError
from ..foundations.lock import StoreLock
from ..foundations.paths import Layout
from ..foundations.privacy import make_tree_private

if TYPE_CHECKING:
    from ..store_parts import StoreParts

INCLUDED = ("config.json", "store.json", "raw", "prompts", "stats", "graph", "lancedb")
COPIED = ("graph", "raw/journal", "stats")
"""Folders whose files change in place: copied, never hard-linked."""


@dataclass
class BackupReport:
    path: str
    bytes: int
    files: int
    snapshot_s: float
    """How long the store was held for the snapshot (the rest ran beside other requests)."""
    total_s: float

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class RestoreReport:
    home: str
    archive: str
    files: int
    replaced: str | None
    """Where the home that was there before now is (kept, not deleted), or None."""
    verify: dict | None = None
    """The restored store's verify report."""

    def to_json(self) -> dict:
        return asdict(self)


def default_backup_path(layout: Layout) -> Path:
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    return layout.home / "backup" / f"alaya-{stamp}.tar.gz"


def backup(engine: "StoreParts", out: Path | None) -> BackupReport:
    started = time.perf_counter()
    target = Path(out) if out else default_backup_path(engine.layout)
    if target.exists():
        raise AlayaError("backup_exists", f"{target} already exists; choose another --out or move it away", USAGE)
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = target.parent / f".alaya-backup-{os.getpid()}-{time.monotonic_ns()}"
    try:
        with engine.step() as graph:
            held = time.perf_counter()
            graph.query("CHECKPOINT")
            files = _snapshot(engine.layout.home, staging)
            snapshot_s = time.perf_counter() - held
        _write_archive(staging, target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return BackupReport(path=str(target), bytes=target.stat().st_size, files=files, snapshot_s=round(snapshot_s, 3),
                        total_s=round(time.perf_counter() - started, 3))


def _snapshot(home: Path, staging: Path) -> int:
    files = 0
    for name in INCLUDED:
        source = home / name
        if source.is_file():
            _place(source, staging / name, copy=True)
            files += 1
        elif source.is_dir():
            for path in sorted(source.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    relative = path.relative_to(home).as_posix()
                    changes_in_place = any(relative.startswith(folder + "/") for folder in COPIED)
                    _place(path, staging / relative, copy=changes_in_place)
                    files += 1
    return files


def _place(source: Path, target: Path, copy: bool) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if not copy:
        try:
            os.link(source, target)
            return
        except OSError as exc:
            if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
                raise
    shutil.copy2(source, target)


def _write_archive(staging: Path, target: Path) -> None:
    """Compress to a temporary name, fsync, rename: a backup file is complete or absent."""
    partial = target.with_name(f".{target.name}.partial")
    with tarfile.open(partial, "w:gz", compresslevel=6) as archive:
        for path in sorted(staging.rglob("*")):
            archive.add(path, arcname=path.relative_to(staging).as_posix(), recursive=False)
    with open(partial, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(partial, target)


def restore_backup(archive: Path, home: Path, force: bool) -> RestoreReport:
    """Unpack ``archive`` into ``home``; a non-empty home is only replaced with ``force`` (and kept aside).

    The report's ``verify`` is left for the caller, which opens the restored store (:meth:`Engine.restore_backup`).
    """
    archive = archive.expanduser().absolute()
    members = _checked_members(archive)
    occupied = home.exists() and any(home.iterdir())
    if occupied and not force:
        raise AlayaError("home_not_empty", f"{home} is not empty; restore into an empty --home, or pass --force "
                                           "to replace it (the current home is kept beside it)", USAGE)
    staging = home.with_name(f".{home.name}.restoring-{os.getpid()}")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True, mode=0o700)
    try:
        with tarfile.open(archive, "r:gz") as tar:
            tar.extractall(staging, members=members, filter="data")
        make_tree_private(staging)
    except (OSError, tarfile.TarError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        raise AlayaError("bad_backup", f"cannot unpack {archive}: {exc}", RUNTIME) from None
    replaced = None
    try:
        if home.exists():
            layout = Layout(home)
            with StoreLock(layout.lock_file, 0.0) if layout.is_initialised() else nullcontext():
                replaced = _set_aside(home)
        staging.rename(home)
    except BaseException:
        if replaced is not None and not home.exists():
            replaced.rename(home)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return RestoreReport(home=str(home), archive=str(archive), files=sum(1 for member in members if member.isfile()),
                         replaced=str(replaced) if replaced else None)


def _set_aside(home: Path) -> Path:
    """Rename ``home`` to ``<home>.replaced-<time>``, with ``-2``, ``-3``… when restores share a second."""
    stamp = f"{home.name}.replaced-{datetime.now(timezone.utc):%Y%m%d-%H%M%S}"
    for attempt in itertools.count(1):
        replaced = home.with_name(stamp if attempt == 1 else f"{stamp}-{attempt}")
        try:
            home.rename(replaced)
            return replaced
        except OSError as exc:
            if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise


def _checked_members(archive: Path) -> list[tarfile.TarInfo]:
    try:
        with tarfile.open(archive, "r:gz") as tar:
            members = tar.getmembers()
    except FileNotFoundError:
        raise AlayaError("no_such_file", f"no backup file {archive}", USAGE) from None
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise AlayaError("bad_backup", f"{archive} is not a readable .tar.gz backup ({exc})", USAGE) from None
    names = {member.name for member in members}
    if not {"store.json", "config.json"} <= names:
        raise AlayaError("bad_backup", f"{archive} is not an Alaya backup (no store.json/config.json at its top)",
                         USAGE)
    return [member for member in members if member.name.split("/")[0] in INCLUDED]

