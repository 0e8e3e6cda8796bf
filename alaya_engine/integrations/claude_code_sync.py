"""``alaya sync claude-code``: where Claude Code keeps its session transcripts, and which files there are sessions.

Where: ``<config dir>/projects/<project>/<session id>.jsonl``, one folder per project (its path with ``/`` written
as ``-``); the config dir is ``--dir``, else ``$CLAUDE_CONFIG_DIR``, else ``~/.claude``. Skipped: sub-agent
transcripts (``agent-*.jsonl`` beside the sessions, and the per-session folders that newer versions keep them in):
what a sub-agent found reaches its session as the Task call's result, and its file carries the parent's session
id, so ingesting it would replace the parent. How a transcript becomes a session: :mod:`alaya_engine.raw.claude_code`.
"""

from __future__ import annotations

from pathlib import Path

from ..foundations.errors import AlayaError
from ..raw.claude_code import AGENT
from .runtime_sync import TRANSCRIPT, Runtime, Scan, list_folder, real_subfolders

DIR_ENV = "CLAUDE_CONFIG_DIR"
DEFAULT_DIR = "~/.claude"


def classify(name: str) -> str:
    if name.startswith("."):
        return "hidden file"
    if not name.endswith(".jsonl"):
        return "not a transcript"
    if name.startswith("agent-"):
        return "sub-agent transcript"
    return TRANSCRIPT


def scan(config_dir: Path, agent: str | None) -> Scan:
    """Every project folder's transcripts; ``agent`` is unused (one agent, Claude Code)."""
    projects = config_dir / "projects"
    if not projects.is_dir():
        raise AlayaError("not_found", f"no Claude Code projects at {projects}; pass --dir or set {DIR_ENV} to "
                                      f"Claude Code's config folder (default {DEFAULT_DIR})")
    found = Scan([AGENT])
    for folder in real_subfolders(projects, found):
        if not folder.name.startswith("."):
            list_folder(folder, AGENT, classify, found, subfolders="session folder")
    return found


CLAUDE_CODE = Runtime("claude-code", "projects", scan)
