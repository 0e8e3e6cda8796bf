"""``alaya sync codex``: where the Codex CLI keeps its session rollouts, and which files there are sessions.

Where: ``<codex home>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl``; the Codex home is ``--dir``, else
``$CODEX_HOME``, else ``~/.codex``. Only ``rollout-*.jsonl`` files under ``sessions/`` count; ``history.jsonl``,
``archived_sessions/`` and the rest of the Codex home are never read. How a rollout becomes a session:
:mod:`alaya_engine.raw.codex`.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..foundations.errors import AlayaError
from ..raw.codex import AGENT
from .runtime_sync import TRANSCRIPT, Runtime, Scan, list_folder

DIR_ENV = "CODEX_HOME"
DEFAULT_DIR = "~/.codex"


def classify(name: str) -> str:
    if name.startswith("."):
        return "hidden file"
    if not (name.startswith("rollout-") and name.endswith(".jsonl")):
        return "not a transcript"
    return TRANSCRIPT


def scan(codex_home: Path, agent: str | None) -> Scan:
    """Every day folder under ``sessions/`` (any depth); ``agent`` is unused (one agent, Codex)."""
    sessions = codex_home / "sessions"
    if not sessions.is_dir():
        raise AlayaError("not_found", f"no Codex sessions at {sessions}; pass --dir or set {DIR_ENV} to the Codex "
                                      f"home folder (default {DEFAULT_DIR})")
    found = Scan([AGENT])
    for folder, subfolders, _ in os.walk(sessions):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        list_folder(Path(folder), AGENT, classify, found, subfolders=None)
    return found


CODEX = Runtime("codex", "sessions", scan)
