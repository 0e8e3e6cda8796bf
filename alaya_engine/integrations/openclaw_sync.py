"""``alaya sync openclaw``: ingest the OpenClaw transcripts that are new or have changed since the last run.

Where: ``<state dir>/agents/<agent>/sessions/<id>.jsonl``; the state dir is ``--state-dir``, else
``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``. Everything else there is skipped: ``sessions.json`` (OpenClaw's
index), ``*.trajectory.jsonl`` and ``*.checkpoint.*.jsonl`` sidecars (a trace and compaction replays of the same
conversation), ``*.jsonl.deleted.*`` (deleted by the user) and ``*.jsonl.reset.*`` archives, but for one case.

When a session has ended: a live transcript carries no end marker. OpenClaw ends a session by archiving it on
``/new``, ``/reset`` or its daily reset (``<id>.jsonl`` is renamed ``<id>.jsonl.reset.<time>``), or it simply goes
quiet. Hence:

- a transcript never seen before is ingested at once (unless its last line is still being written);
- a transcript that changed since then is re-ingested as a new version (``replace``) once it has been quiet for
  ``sync.session_idle_minutes`` (config.json, default 30), or at once with ``--include-active``;
- the ``.reset.`` archive of a transcript this sync was following is ingested once, as that session's final
  version (else a ``/new`` right after the last message would lose the session's end); archives of transcripts
  it never saw, such as history from before Alaya, are skipped.

Bookkeeping (size, mtime, sha256 and outcome per file) lives in ``<home>/sync/openclaw.json``. When nothing
changed a run lists folders and stats files, nothing more: no hashing, no engine, no owner server.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_json
from ..foundations.config import load_config
from ..foundations.errors import AlayaError
from ..foundations.lock import StoreLock
from ..foundations.paths import Layout, resolve_home

if TYPE_CHECKING:
    from ..server.backend import Backend

STATE_DIR_ENV = "OPENCLAW_STATE_DIR"
DEFAULT_STATE_DIR = "~/.openclaw"
STATE_FORMAT = 1
TRANSCRIPT = "transcript"
RESET_ARCHIVE = "reset archive"
RESET_MARK = ".jsonl.reset."
log = logging.getLogger(__name__)


def resolve_state_dir(explicit: str | os.PathLike | None = None) -> Path:
    chosen = explicit or os.environ.get(STATE_DIR_ENV) or DEFAULT_STATE_DIR
    return Path(chosen).expanduser().absolute()


def classify(name: str) -> str:
    """What a file in a ``sessions/`` folder is, by name: a transcript, a reset archive, or why it is skipped."""
    if name.startswith("."):
        return "hidden file"
    if RESET_MARK in name:
        return RESET_ARCHIVE
    if ".jsonl.deleted." in name:
        return "deleted archive"
    if not name.endswith(".jsonl"):
        return "not a transcript"
    if name.endswith(".trajectory.jsonl") or ".checkpoint." in name:
        return "sidecar"
    return TRANSCRIPT


def transcript_of(archive: str) -> str:
    """``…/abc.jsonl.reset.2026-03-06T05-00-00.000Z`` → ``…/abc.jsonl``."""
    return archive[: archive.index(RESET_MARK) + len(".jsonl")]


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


@dataclass
class Content:
    sha256: str
    size: int
    mtime_ns: int
    complete: bool
    """Ends with a line break: no line is half written."""


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
    state_dir: str
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
    elapsed_ms: float = 0.0

    def count(self, status: str) -> int:
        return sum(1 for change in self.changes if change.status == status)

    def to_json(self) -> dict:
        document = asdict(self)
        for status in ("ingested", "replaced", "refused", "waiting"):
            document[status] = self.count(status)
        return document


def sync_openclaw(home: str | os.PathLike | None, no_server: bool = False, state_dir: str | None = None,
                  agent: str | None = None, distill: bool = False, include_active: bool = False,
                  backend: Backend | None = None) -> dict:
    """One sync run; returns the report document that ``--json`` prints. Transcripts go through ``backend``
    (else the store's, opened only when there is something to ingest)."""
    started = time.perf_counter()
    layout = Layout(resolve_home(home))
    layout.require_initialised()
    idle_minutes = load_config(layout.config_file)["sync"]["session_idle_minutes"]
    report = SyncReport(state_dir=str(resolve_state_dir(state_dir)), idle_minutes=idle_minutes)
    layout.openclaw_sync_state.parent.mkdir(parents=True, exist_ok=True)
    lock = StoreLock(layout.openclaw_sync_lock, wait_seconds=0, command="alaya sync openclaw")
    try:
        lock.acquire()
    except AlayaError:
        report.busy = "another `alaya sync openclaw` is running for this store; this run did nothing"
    else:
        try:
            Sync(layout, no_server, Path(report.state_dir), idle_minutes * 60, include_active, backend).run(
                report, agent, distill)
        finally:
            lock.release()
    report.elapsed_ms = round((time.perf_counter() - started) * 1000, 1)
    return report.to_json()


class Sync:
    def __init__(self, layout: Layout, no_server: bool, state_dir: Path, idle_s: float, include_active: bool,
                 backend: Backend | None = None):
        self.layout = layout
        self.no_server = no_server
        self.backend = backend
        self.state_dir = state_dir
        self.idle_s = idle_s
        self.include_active = include_active
        self.tracked = load_state(layout.openclaw_sync_state)
        self.dirty = False

    def run(self, report: SyncReport, agent: str | None, distill: bool) -> None:
        report.agents, found, skipped, folders = scan(self.state_dir, agent)
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
            save_state(self.layout.openclaw_sync_state, self.tracked)

    def _consider(self, item: Found, idle_s: float, skipped: Counter,
                  report: SyncReport) -> tuple[Found, str, Content] | None:
        """Decide from the file's stat alone when possible; read (and hash) only what may need ingesting."""
        key = str(item.path)
        known = baseline = self.tracked.get(key)
        quiet = self.include_active or idle_s >= self.idle_s
        if known is None and item.kind == RESET_ARCHIVE:
            followed = self.tracked.get(transcript_of(key))
            if followed is None or item.mtime_ns < followed.mtime_ns:
                skipped[RESET_ARCHIVE] += 1
                return None
            change, baseline = "ended", followed
        elif known is None:
            change = "new"
        elif (known.size, known.mtime_ns) == (item.size, item.mtime_ns):
            report.unchanged += 1
            return None
        else:
            change = "grown" if item.size > known.size else "changed"
            if item.kind == TRANSCRIPT and not quiet:
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
        if change == "new" and not content.complete and idle_s < self.idle_s:
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
            log.info("sync openclaw: %s %s → %s", change, key, outcome["status"])
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


def scan(state_dir: Path, agent: str | None) -> tuple[list[str], list[Found], Counter, list[Path]]:
    """The agents, their transcripts and reset archives (with stat), skip counts by reason, the folders read."""
    agents_dir = state_dir / "agents"
    if not agents_dir.is_dir():
        raise AlayaError("not_found", f"no OpenClaw agents at {agents_dir}; pass --state-dir or set "
                                      f"{STATE_DIR_ENV} to OpenClaw's state folder (default {DEFAULT_STATE_DIR})")
    agents = sorted(entry.name for entry in os.scandir(agents_dir) if entry.is_dir())
    if agent is not None:
        if agent not in agents:
            raise AlayaError("unknown_agent", f"no OpenClaw agent '{agent}' in {agents_dir}; "
                                              f"found: {', '.join(agents) or 'none'}")
        agents = [agent]
    found: list[Found] = []
    skipped: Counter = Counter()
    folders = []
    for name in agents:
        folder = agents_dir / name / "sessions"
        if not folder.is_dir():
            continue
        folders.append(folder)
        for entry in os.scandir(folder):
            kind = classify(entry.name)
            if kind not in (TRANSCRIPT, RESET_ARCHIVE) or not entry.is_file():
                skipped[kind if entry.is_file() else "not a file"] += 1
                continue
            stat = entry.stat()
            found.append(Found(Path(entry.path), name, kind, stat.st_size, stat.st_mtime_ns))
    found.sort(key=lambda item: str(item.path))
    return agents, found, skipped, folders


def read_content(path: Path) -> Content:
    digest = hashlib.sha256()
    size, last = 0, b""
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
            last = chunk[-1:]
        mtime_ns = os.fstat(handle.fileno()).st_mtime_ns
    return Content(digest.hexdigest(), size, mtime_ns, complete=last == b"\n")


def load_state(path: Path) -> dict[str, Tracked]:
    """The bookkeeping; unreadable bookkeeping is started afresh (every file looks new, ingest dedups)."""
    if not path.exists():
        return {}
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        return {key: Tracked(**entry) for key, entry in document["files"].items()}
    except (OSError, ValueError, KeyError, TypeError) as error:
        log.warning("sync state %s is unreadable (%s); starting afresh", path, error)
        return {}


def save_state(path: Path, tracked: dict[str, Tracked]) -> None:
    atomic_write_json(path, {"format": STATE_FORMAT,
                             "files": {key: asdict(entry) for key, entry in sorted(tracked.items())}})
