"""What a newcomer reads: help texts and docs say what things are (never "the seed" or a design section), and
command output words match what happened (dry runs, skips, plurals, every introspect step)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import typer
from conftest import demo_session_id, write_problem_session
from typer.testing import CliRunner

from alaya_cli.app import app

ROOT = Path(__file__).resolve().parent.parent
DESIGN_WORDS = re.compile(r"\bseed|\bsection \d|§\s*\d", re.IGNORECASE)
""""seed" (the internal name of the design document) and citations of its sections."""


def command_paths(command, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command and sub-command of the CLI, as the words that name it."""
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += command_paths(sub, (*path, name))
    return paths


def test_no_help_text_doc_or_agent_text_cites_the_design_document():
    runner = CliRunner()
    paths = command_paths(typer.main.get_command(app))
    assert len(paths) > 25
    offenders = []
    for path in paths:
        result = runner.invoke(app, [*path, "--help"])
        assert result.exit_code == 0, (path, result.output)
        offenders += [f"alaya {' '.join(path)} --help: {line.strip()}" for line in result.output.splitlines()
                      if DESIGN_WORDS.search(line)]
    from alaya_mcp.tools import INSTRUCTIONS, TOOLS

    agent_text = json.dumps([INSTRUCTIONS, *[(tool.description, tool.input_schema) for tool in TOOLS]])
    offenders += [f"MCP tools: {match.group(0)}" for match in DESIGN_WORDS.finditer(agent_text)]
    for document in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
                     ROOT / "alaya_engine/skills/alaya/SKILL.md"]:
        offenders += [f"{document.name}:{number}: {line.strip()}"
                      for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), start=1)
                      if DESIGN_WORDS.search(line)]
    assert offenders == []


def session(folder: Path, session_id: str, *turns: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.json"
    path.write_text(json.dumps({"id": session_id, "timestamp": 1764547200000, "turns": [
        {"role": "user" if number % 2 == 0 else "assistant", "content": text} for number, text in enumerate(turns)]}))
    return path


def test_a_dry_run_never_says_created(demo_cli, demo_home):
    session_id = demo_session_id(demo_home, "session-20260309-013000")
    distill = demo_cli("distill", "--force", "--dry-run", "--session", session_id)
    assert distill.exit_code == 0, distill.stderr
    assert "Created" not in distill.stdout and "created" not in distill.stdout
    assert "Would create" in distill.stdout
    assert "Dry run, nothing written: would distill 1 session into" in distill.stdout
    introspect = demo_cli("introspect", "--dry-run")
    assert introspect.exit_code == 0, introspect.stderr
    assert not {"Created", "Forgot", "Folded"} & set(introspect.stdout.split())
    assert "Would create" in introspect.stdout and "Would forget" in introspect.stdout


def test_skipped_sessions_say_why_in_human_output_too(cli, tmp_path):
    """Eleven sessions: more than distill details one by one, yet each skipped one is still named with its reason."""
    for number in range(11):
        session(tmp_path / "chat", f"hello-{number:02}", "hi there", "hello! how can I help?")
    assert cli("ingest", str(tmp_path / "chat")).exit_code == 0
    result = cli("distill")
    assert result.exit_code == 0, result.stderr
    reasons = [line for line in result.stdout.splitlines() if line.strip().startswith("Skipped hello-")]
    assert len(reasons) == 11
    document = cli("distill", "--force", "--session", "hello-00", "--json").json()
    reason = document["sessions"][0]["reason"]
    assert reason and reasons[0].strip() == f"Skipped hello-00: {reason}"
    assert "below distill.min_session_tokens" in reason
    assert "0 sessions, created 0 cards and 0 links, 11 skipped" in result.stdout


def test_counts_of_one_are_singular(cli, tmp_path):
    path = session(tmp_path, "first-session", "Hello again!", "Hi, good to see you.",
                   "I decided to keep the timeout at 300s for all services from now on.")
    result = cli("ingest", str(path), "--distill")
    assert result.exit_code == 0, result.stderr
    [card] = cli("distill", "--force", "--dry-run", "--json").json()["sessions"][0]["cards"]
    assert "Found 1 card:" in result.stdout
    assert "Distillation complete: 1 session, created 1 card and 0 links" in result.stdout
    second = write_problem_session(tmp_path, "second-session", 0, 1764547300000)
    other = cli("ingest", str(second), "--distill", "--json").json()["distill"]["sessions"][0]["cards"][0]
    assert cli("link", card["id"], other["id"], "--rel", "FIXED_BY", "--new-relation").exit_code == 0
    schema = cli("schema", "--relations").stdout
    assert re.search(r"FIXED_BY\s+1 use\n", schema) and re.search(r"CAUSES\s+0 uses\n", schema)


def test_every_introspect_step_is_listed_and_runs_alone(cli):
    help_text = " ".join(CliRunner().invoke(app, ["introspect", "--help"]).stdout.split())
    steps = ("distill", "consolidate", "supersede", "cooldown", "forget")
    assert "distill, consolidate, supersede, cooldown, forget" in help_text
    docs = "".join((ROOT / "docs" / name).read_text(encoding="utf-8") for name in ("cli.md", "introspect.md"))
    assert "distill\\|consolidate\\|supersede\\|cooldown\\|forget" in docs
    assert "distill|consolidate|supersede|cooldown|forget" in docs
    for step in steps:
        result = cli("introspect", "--step", step, "--dry-run")
        assert result.exit_code == 0 and f"[1/1] {step.capitalize()}" in result.stdout, (step, result.stderr)
    wrong = cli("introspect", "--step", "cleanup")
    assert wrong.exit_code == 2 and "distill, consolidate, supersede, cooldown, forget" in wrong.stderr
