"""``alaya sync openclaw``: where OpenClaw keeps its transcripts, and which files there are transcripts.

Where: ``<state dir>/agents/<agent>/sessions/<id>.jsonl``; the state dir is ``--state-dir``, else
``$OPENCLAW_STATE_DIR``, else ``~/.openclaw``. Everything else there is skipped: ``sessions.json`` (OpenClaw's
index), ``*.trajectory.jsonl`` and ``*.checkpoint.*.jsonl`` sidecars (a trace and compaction replays of the same
conversation), ``*.jsonl.deleted.*`` (deleted by the user) and ``*.jsonl.reset.*`` archives, but for one case:
OpenClaw ends a session by archiving it on ``/new``, ``/reset`` or its daily reset (``<id>.jsonl`` is renamed
``<id>.jsonl.reset.<time>``), so the archive of a transcript the sync was following is that session's final
version (else a ``/new`` right after the last message would lose the session's end). The sync itself, the same
for every runtime, is :mod:`.runtime_sync`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.errors import AlayaError
from .runtime_sync import SYMLINK, TRANSCRIPT, Runtime, Scan, list_folder, real_subfolders, run_sync

if TYPE_CHECKING:
    from ..server.backend import Backend

STATE_DIR_ENV = "OPENCLAW_STATE_DIR"
DEFAULT_STATE_DIR = "~/.openclaw"
RESET_ARCHIVE = "reset archive"
RESET_MARK = ".jsonl.reset."


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


def scan(state_dir: Path, agent: str | None) -> Scan:
    """Every agent's ``sessions/`` folder, or the one agent named."""
    agents_dir = state_dir / "agents"
    if not agents_dir.is_dir():
        raise AlayaError("not_found", f"no OpenClaw agents at {agents_dir}; pass --state-dir or set "
                                      f"{STATE_DIR_ENV} to OpenClaw's state folder (default {DEFAULT_STATE_DIR})")
    found = Scan([])
    folders = real_subfolders(agents_dir, found, None if agent is None else {agent})
    if agent is not None and not folders:
        agents = ", ".join(folder.name for folder in real_subfolders(agents_dir, Scan([]))) or "none"
        linked = " (it is a symbolic link, which sync does not follow)" if found.skipped else ""
        raise AlayaError("unknown_agent", f"no OpenClaw agent '{agent}' in {agents_dir}{linked}; found: {agents}")
    found.agents = [folder.name for folder in folders]
    for folder in folders:
        sessions = folder / "sessions"
        if sessions.is_symlink():
            found.skipped[SYMLINK] += 1
        elif sessions.is_dir():
            list_folder(sessions, folder.name, classify, found, archive=(RESET_ARCHIVE, transcript_of))
    return found


OPENCLAW = Runtime("openclaw", "agents", scan)


def sync_openclaw(home: str | os.PathLike | None, no_server: bool = False, state_dir: str | None = None,
                  agent: str | None = None, distill: bool = False, include_active: bool = False,
                  backend: Backend | None = None) -> dict:
    """One ``alaya sync openclaw`` run (see :func:`.runtime_sync.run_sync`)."""
    return run_sync(OPENCLAW, home, no_server, resolve_state_dir(state_dir), agent, distill, include_active, backend)
