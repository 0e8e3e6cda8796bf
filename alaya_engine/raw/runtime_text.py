"""What the coding-agent readers (:mod:`.claude_code`, :mod:`.codex`) do alike to the text they keep.

Their transcripts hold what an agent saw, not only what was said: whole files read, test runs thousands of lines
long, screenshots as base64. A session is stored to be recalled and distilled, so images become a placeholder
(never the bytes) and long tool output is clipped, keeping its head (the command, the first lines) and its tail
(where test runners and tracebacks put the verdict). Tool call arguments are cut at :data:`ARGUMENT_DEPTH` levels
of nesting, so a hostile transcript cannot overflow the stack of whatever later walks the stored session.
"""

from __future__ import annotations

from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

IMAGE = "[image]"
TOOL_TEXT_CAP = 4000
"""Characters of one tool result, or of one string in a tool call's arguments, kept as they are; beyond it the
first and last ``TOOL_TEXT_CAP // 2`` stay, joined by a line saying how much was cut."""
ARGUMENT_DEPTH = 32
"""Levels of objects and lists kept in a tool call's arguments; real calls nest a handful."""
TOO_DEEP = f"[… nested deeper than {ARGUMENT_DEPTH} levels: cut …]"


def clip(text: str, cap: int = TOOL_TEXT_CAP) -> str:
    if len(text) <= cap:
        return text
    half = cap // 2
    return f"{text[:half]}\n[… {len(text) - 2 * half} characters cut …]\n{text[-half:]}"


def clip_arguments(value: Any, depth: int = 0) -> Any:
    """A tool call's arguments with every long string clipped (a Write call carries the whole file) and what is
    nested deeper than :data:`ARGUMENT_DEPTH` replaced by :data:`TOO_DEEP`."""
    if isinstance(value, str):
        return clip(value)
    if isinstance(value, (dict, list)) and depth >= ARGUMENT_DEPTH:
        return TOO_DEEP
    if isinstance(value, dict):
        return {key: clip_arguments(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [clip_arguments(item, depth + 1) for item in value]
    return value


def project_channel(cwd: str | None, fallback: str) -> str:
    """The channel of a coding-agent session: the project it ran in (the last folder of its cwd)."""
    if not cwd:
        return fallback
    path = PureWindowsPath(cwd) if "\\" in cwd else PurePosixPath(cwd)
    return path.name or fallback
