"""``alaya sync <runtime>``: ingest an agent runtime's transcripts that are new or have changed since the last run.

One sync for every runtime; what differs is where a runtime keeps its transcripts and which files there are
transcripts, a :class:`Runtime`'s ``scan`` (:mod:`.openclaw_sync`, :mod:`.claude_code_sync`, :mod:`.codex_sync`).

When a session has ended: a live transcript carries no end marker, so

- a transcript never seen before is ingested at once, unless its last line is still being written (no line break
  after it, and not a whole JSON object yet): that one waits as a changed transcript does, below (a line still cut
  off when it is taken is refused, naming the line, and read again when the file changes);
- a transcript that changed since then is re-ingested as a new version (``replace``) once it has been quiet for
  ``sync.session_idle_minutes`` (config.json, default 30), or at once with ``--include-active``;
- an archive a runtime renames a live transcript to (OpenClaw's ``.reset.``) is ingested once, as that session's
  final version, when this sync was following the transcript; other archives are skipped.

Never read: what a symbolic link in the transcripts folder leads to (:func:`real_subfolders`), and a file over
``ingest.max_file_mb``, which ingest would refuse (both counted as skipped).

Bookkeeping (size, mtime, sha256 and outcome per file) lives in ``<home>/sync/<runtime>.json``. When nothing
changed a run lists folders and stats files, nothing more: no hashing, no engine, no owner server. One lock per
runtime (``<home>/sync/<runtime>.lock``) keeps overlapping cron runs of the same sync apart.
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_json
from ..foundations.config import ingest_limit, load_config
from ..foundations.errors import AlayaError
from ..foundations.json_input import JsonInputError, load_json
from ..foundations.lock import StoreLock
from ..foundations.paths import Layout, resolve_home

if TYPE_CHECKING:
    from ..server.backend import Backend

STATE_FORMAT = 1
TRANSCRIPT = "transcript"
SYMLINK = "symbolic link"
TOO_LARGE = "over ingest.max_file_mb"
log = logging.getLogger(__name__)


@dataclass
class Tracked:
    """What the last sync that read a file found in it, and what ingest made of it."""

    size: int
    mtime_ns: int
    sha256: str
    status: str
    session_id: str | None = None
    error: str | None = None


@dataclass
class Found:
    path: Path
    agent: str
    kind: str
    size: int
    mtime_ns: int
    follows: str | None = None
    """For an archive, the live transcript it was renamed from: ingested only as that transcript's final version."""


@dataclass
class Scan:
    """What a runtime's scan found: the agents, their transcripts and archives (with stat), skip counts by reason,
    and the folders it read (bookkeeping of files gone from them is dropped)."""

    agents: list[str]
    found: list[Found] = field(default_factory=list)
    skipped: Counter = field(default_factory=Counter)
    folders: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Runtime:
    name: str
    """As typed after ``alaya sync``; also names the bookkeeping and lock files."""
    folder: str
    """Where the transcripts are under the runtime's state folder; the report's paths are shown from there."""
    scan: Callable[[Path, str | None], Scan]
    """``scan(state_dir, agent)``: the transcripts of every agent, or of the one named."""


@dataclass
class Content:
    sha256: str
    size: int
    mtime_ns: int
    complete: bool
    """No line is half written: the file ends with a line break, or its last line is a whole JSON object."""


@dataclass
class Change:
    path: str
    agent: str
    change: str
    """new, grown, changed (rewritten or shrunk), or ended (a reset archive of a followed transcript)."""
    status: str
    """ingested, replaced, unchanged, refused, or waiting (still active, not ingested yet)."""
    session_id: str | None = None
    error: dict | None = None
    idle_s: int | None = None


@dataclass
class SyncReport:
    runtime: str
    state_dir: str
    transcripts_dir: str
    idle_minutes: int
    agents: list[str] = field(default_factory=list)
    files: int = 0
    unchanged: int = 0
    changes: list[Change] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    forgotten: int = 0
    distill: dict | None = None
    busy: str | None = None
    """Why this run did nothing: another sync holds the lock."""
    warnings: list[str] = field(default_factory=list)
    """What the run worked around, one line each (bookkeeping it could not read)."""
    elapsed_ms: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for change in self.changes if change.status == status)

    def to_json(self) -> dict:
        document = asdict(self)
        for status in ("ingested", "replaced", "refused", "waiting"):
            document[status] = self.count(status)
        return document


def run_sync(runtime: Runtime, home: str | os.PathLike | None, no_server: bool, state_dir: str | os.PathLike,
             agent: str | None = None, distill: bool = False, include_active: bool = False,
             backend: Backend | None = None) -> dict:
    """One sync run; returns the report document that ``--json`` prints. Transcripts go through ``backend``
    (else the store's, opened only when there is something to ingest)."""
    started = time.perf_counter()
    layout = Layout(resolve_home(home))
    layout.require_initialised()
    config = load_config(layout.config_file)
    idle_minutes = config["sync"]["session_idle_minutes"]
    state_dir = Path(state_dir).expanduser().absolute()
    report = SyncReport(runtime=runtime.name, state_dir=str(state_dir),
                        transcripts_dir=str(state_dir / runtime.folder), idle_minutes=idle_minutes)
    layout.sync_state(runtime.name).parent.mkdir(parents=True, exist_ok=True)
    lock = StoreLock(layout.sync_lock(runtime.name), wait_seconds=0, command=f"alaya sync {runtime.name}")
    try:
        lock.acquire()
    except AlayaError:
        report.busy = f"another `alaya sync {runtime.name}` is running for this store; this run did nothing"
    else:
        try:
            Sync(runtime, layout, no_server, state_dir, idle_minutes * 60, ingest_limit(config), include_active,
                 backend).run(report, agent, distill)
        finally:
            lock.release()
    report.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
    return report.to_json()


class Sync:
    def __init__(self, runtime: Runtime, layout: Layout, no_server: bool, state_dir: Path, idle_s: float,
                 max_bytes: int, include_active: bool, backend: Backend | None = None):
        self.runtime = runtime
        self.state_file = layout.sync_state(runtime.name)
        self.layout = layout
        self.no_server = no_server
        self.backend = backend
        self.state_dir = state_dir
        self.idle_s = idle_s
        self.max_bytes = max_bytes
        self.include_active = include_active
        self.tracked, self.unreadable = load_state(self.state_file)
        self.dirty = self.unreadable is not None  # written even if nothing changed, so the warning is given once

    def run(self, report: SyncReport, agent: str | None, distill: bool) -> None:
        scan = self.runtime.scan(self.state_dir, agent)
        found = sorted(scan.found, key=lambda item: str(item.path))
        report.agents, skipped, folders = scan.agents, scan.skipped, scan.folders
        if self.unreadable:
            report.warnings.append(self.unreadable)
        report.files = len(found)
        now_ns = time.time_ns()
        to_ingest: list[tuple[Found, str, Content]] = []
        for item in found:
            step = self._consider(item, (now_ns - item.mtime_ns) / 1e9, skipped, report)
            if step is not None:
                to_ingest.append(step)
        if to_ingest:
            report.distill = self._ingest(to_ingest, distill, report)
        report.forgotten = self._forget(found, folders)
        report.skipped = dict(sorted(skipped.items()))
        if self.dirty:
            save_state(self.state_file, self.tracked)

    def _consider(self, item: Found, idle_s: float, skipped: Counter,
                  report: SyncReport) -> tuple[Found, str, Content] | None:
        """Decide from the file's stat alone when possible; read (and hash) only what may need ingesting."""
        key = str(item.path)
        known = baseline = self.tracked.get(key)
        quiet = self.include_active or idle_s >= self.idle_s
        if known is None and item.follows is not None:
            followed = self.tracked.get(item.follows)
            if followed is None or item.mtime_ns < followed.mtime_ns:
                skipped[item.kind] += 1
                return None
            change, baseline = "ended", followed
        elif known is None:
            change = "new"
        elif (known.size, known.mtime_ns) == (item.size, item.mtime_ns):
            report.unchanged += 1
            return None
        else:
            change = "grown" if item.size > known.size else "changed"
        if item.size > self.max_bytes:  # ingest would refuse it: not worth hashing (a sparse 3 GB file took 10 s)
            skipped[TOO_LARGE] += 1
            return None
        if known is not None and item.follows is None and not quiet:
            report.changes.append(Change(key, item.agent, change, "waiting", known.session_id, idle_s=int(idle_s)))
            return None
        try:
            content = read_content(item.path)
        except OSError as error:
            report.changes.append(Change(key, item.agent, change, "refused",
                                         error={"code": "io_error", "message": error.strerror or str(error)}))
            return None
        if baseline is not None and content.sha256 == baseline.sha256:
            self.tracked[key] = replace(baseline, size=content.size, mtime_ns=content.mtime_ns)
            self.dirty = True
            report.unchanged += 1
            return None
        if change == "new" and not content.complete and not quiet:
            report.changes.append(Change(key, item.agent, change, "waiting", idle_s=int(idle_s)))
            return None
        return item, change, content

    def _ingest(self, steps: list[tuple[Found, str, Content]], distill: bool, report: SyncReport) -> dict | None:
        """One ingest call for every file that needs it; the file is the source of truth, so ``replace``."""
        from ..server.backend import open_backend

        backend = self.backend or open_backend(self.layout.home, self.no_server)
        document = backend.call("ingest", {"paths": [str(item.path) for item, _, _ in steps], "replace": True,
                                           "distill": distill, "stdin_b64": None})
        outcomes = {outcome["source"]: outcome for outcome in document["files"]}
        for item, change, content in steps:
            key = str(item.path)
            outcome = outcomes[key]
            error = outcome["error"]
            self.tracked[key] = Tracked(content.size, content.mtime_ns, content.sha256, outcome["status"],
                                        outcome["session_id"], error["message"] if error else None)
            report.changes.append(Change(key, item.agent, change, outcome["status"], outcome["session_id"], error))
            log.info("sync %s: %s %s → %s", self.runtime.name, change, key, outcome["status"])
        self.dirty = True
        return document["distill"]

    def _forget(self, found: list[Found], folders: list[Path]) -> int:
        """Drop the bookkeeping of files gone from the folders this run looked at."""
        present = {str(item.path) for item in found}
        scanned = {str(folder) for folder in folders}
        gone = [key for key in self.tracked if key not in present and str(Path(key).parent) in scanned]
        for key in gone:
            del self.tracked[key]
        self.dirty = self.dirty or bool(gone)
        return len(gone)


def list_folder(folder: Path, agent: str, classify: Callable[[str], str], scan: Scan,
                archive: tuple[str, Callable[[str], str]] | None = None,
                subfolders: str | None = "not a file") -> None:
    """Add one folder's transcripts (with stat) to ``scan``; ``classify`` names what a file is by its name.
    ``archive`` is the kind that marks an archive and how to find the transcript it was renamed from;
    ``subfolders`` is the skip reason for folders inside (None when the scan walks into them). Symbolic links are
    skipped, as everywhere in a runtime's folder (:func:`real_subfolders`)."""
    scan.folders.append(folder)
    for entry in os.scandir(folder):
        if entry.is_symlink():
            scan.skipped[SYMLINK] += 1
            continue
        if entry.is_dir():
            if subfolders:
                scan.skipped[subfolders] += 1
            continue
        kind = classify(entry.name)
        follows = archive[1](entry.path) if archive is not None and kind == archive[0] else None
        if (kind != TRANSCRIPT and follows is None) or not entry.is_file():
            scan.skipped[kind if entry.is_file() else "not a file"] += 1
            continue
        stat = entry.stat()
        scan.found.append(Found(Path(entry.path), agent, kind, stat.st_size, stat.st_mtime_ns, follows))


def real_subfolders(folder: Path, scan: Scan, names: set[str] | None = None) -> list[Path]:
    """The folders in ``folder`` (only those ``names`` when given), by name. A symbolic link among them is counted
    as skipped, never followed, as ``import-memex`` does in a vault: nothing outside the folder the user pointed
    at is read, and no transcript is read twice under two paths (each time replacing its session)."""
    found = []
    for entry in sorted(os.scandir(folder), key=lambda entry: entry.name):
        if (names is not None and entry.name not in names) or not entry.is_dir():
            continue
        if entry.is_symlink():
            scan.skipped[SYMLINK] += 1
        else:
            found.append(Path(entry.path))
    return found


def read_content(path: Path) -> Content:
    digest = hashlib.sha256()
    size, tail = 0, bytearray()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            cut = chunk.rfind(b"\n")
            if cut < 0:
                tail += chunk
            else:
                tail[:] = chunk[cut + 1:]
        mtime_ns = os.fstat(handle.fileno()).st_mtime_ns
    return Content(digest.hexdigest(), size, mtime_ns, complete=is_whole_line(bytes(tail)))


def is_whole_line(tail: bytes) -> bool:
    """Whether what follows a transcript's last line break is a whole line: nothing, or a JSON object. A line being
    written is never one, since no cut-off start of an object parses; a writer that ends its file without a line
    break leaves one."""
    if not tail.strip():
        return True
    try:
        return isinstance(load_json(tail.decode("utf-8-sig")), dict)
    except (UnicodeDecodeError, JsonInputError):
        return False


TRACKED_TYPES = {"size": int, "mtime_ns": int, "sha256": str, "status": str, "session_id": (str, type(None)),
                 "error": (str, type(None))}
"""Every field of a :class:`Tracked` and the types it may hold: bookkeeping of another shape is unreadable."""


def load_state(path: Path) -> tuple[dict[str, Tracked], str | None]:
    """The bookkeeping, or none and why, when it cannot be read or is not of the shape this sync writes: it is then
    started afresh (every file looks new; ingest finds the sessions already stored unchanged)."""
    if not path.exists():
        return {}, None
    try:
        document = load_json(path.read_text(encoding="utf-8"))
        files = document.get("files") if isinstance(document, dict) else None
        if not isinstance(files, dict):
            raise ValueError("no 'files' object")
        return {key: _tracked(key, entry) for key, entry in files.items()}, None
    except (OSError, ValueError) as error:
        reason = (error.strerror if isinstance(error, OSError) and error.strerror
                  else f"{error}{error.where}" if isinstance(error, JsonInputError) else str(error))
        log.warning("sync bookkeeping %s is unreadable (%s); starting afresh", path, reason)
        return {}, f"sync bookkeeping {path} is unreadable ({reason}); started afresh: every transcript is read again"


def _tracked(key: str, entry: object) -> Tracked:
    if not isinstance(entry, dict):
        raise ValueError(f"{key}: not an object")
    for name, kind in TRACKED_TYPES.items():
        if not isinstance(entry.get(name), kind) or isinstance(entry.get(name), bool):
            raise ValueError(f"{key}: field '{name}' is missing or of the wrong type")
    return Tracked(**{name: entry[name] for name in TRACKED_TYPES})


def save_state(path: Path, tracked: dict[str, Tracked]) -> None:
    atomic_write_json(path, {"format": STATE_FORMAT,
                             "files": {key: asdict(entry) for key, entry in sorted(tracked.items())}})
