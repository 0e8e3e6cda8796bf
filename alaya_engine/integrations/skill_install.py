"""``alaya skill install``: put Alaya's SKILL.md where OpenClaw loads skills from.

OpenClaw loads skills from ``<workspace>/skills`` (one agent), ``~/.openclaw/skills`` (managed skills, shared
by every agent on the machine; ``$OPENCLAW_STATE_DIR/skills`` when that is set), bundled skills and
``skills.load.extraDirs``; a name found in several places is taken from the first of that list. Installing into
the managed folder makes the skill visible to every agent; ``--openclaw-dir <workspace>`` installs it for the
agent of one workspace, since both layouts are ``<dir>/skills/<name>/SKILL.md``.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass

from ..foundations.atomic import atomic_write_text
from ..foundations.errors import AlayaError
from ..skills import skill_text
from .openclaw_sync import resolve_state_dir

SKILL_NAME = "alaya"


@dataclass
class SkillInstall:
    path: str
    status: str
    """installed, updated or unchanged."""
    backup: str | None = None
    """Where a different SKILL.md found at the target was kept (it may hold the user's edits)."""

    def to_json(self) -> dict:
        return asdict(self)


def install_skill(openclaw_dir: str | os.PathLike | None = None) -> SkillInstall:
    root = resolve_state_dir(openclaw_dir)
    if not root.is_dir():
        raise AlayaError("not_found", f"no folder {root}: install OpenClaw first, or pass --openclaw-dir with "
                                      "OpenClaw's state folder or an agent's workspace")
    target = root / "skills" / SKILL_NAME / "SKILL.md"
    text = skill_text()
    if not target.exists():
        atomic_write_text(target, text)
        return SkillInstall(str(target), "installed")
    previous = target.read_text(encoding="utf-8", errors="replace")
    if previous == text:
        return SkillInstall(str(target), "unchanged")
    backup = target.with_name("SKILL.md.bak")
    atomic_write_text(backup, previous)
    atomic_write_text(target, text)
    return SkillInstall(str(target), "updated", str(backup))
