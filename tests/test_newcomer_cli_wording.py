"""What a newcomer reads: help texts and docs say what things are (never "the seed" or a design section), and
command output words match what happened (dry runs, skips, plurals, every introspect step)."""

from __future__ import annotations

import re
from pathlib import Path

import typer
from typer.testing import CliRunner

from alaya_engine.commands import app

ROOT = Path(__file__).resolve().parent.parent
DESIGN_WORDS = re.compile(r"\bseed|\bsection \d|§\s*\d", re.IGNORECASE)
""""seed" (the internal name of the design document) and citations of its sections."""


def command_paths(command, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and sub-command of the CLI, as the words that name it."""
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += command_paths(sub, (*path, name))
    return paths


def test_no_help_text_or_doc_cites_the_design_document():
    runner = CliRunner()
    paths = command_paths(typer.main.get_command(app))
    assert len(paths) > 25
    offenders = []
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        offenders += [f"alaya {' '.join(path)} --help: {line.strip()}" for line in result.output.splitlines()
                      if DESIGN_WORDS.search(line)]
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                     ROOT / "alaya_engine/skills/alaya/SKILL.md"]:
        offenders += [f"{document.name}:{number}: {line.strip()}"
                      for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), start=1)
                      if DESIGN_WORDS.search(line)]
    assert offenders == []
