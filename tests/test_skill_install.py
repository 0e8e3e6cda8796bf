"""``alaya skill`` prints the skill; ``alaya skill install`` puts it where OpenClaw loads skills."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from alaya_cli.app import app
from alaya_engine.skills import skill_text


@pytest.fixture
def run():
    runner = CliRunner()
    return lambda *args: runner.invoke(app, list(args))


def test_skill_alone_still_prints_the_skill(run):
    result = run("skill")
    assert result.exit_code == 0 and result.stdout == skill_text()
    assert result.stdout.startswith("---\nname: alaya\n")


def test_install_update_and_unchanged(run, tmp_path):
    target = tmp_path / "skills" / "alaya" / "SKILL.md"
    first = run("skill", "install", "--openclaw-dir", str(tmp_path), "--json")
    assert first.exit_code == 0
    assert json.loads(first.stdout) == {"path": str(target), "status": "installed", "backup": None}
    assert target.read_text() == skill_text()

    again = run("skill", "install", "--openclaw-dir", str(tmp_path))
    assert again.stdout.strip() == f"✓ Already up to date: {target}"

    target.write_text("my own notes")
    updated = run("skill", "install", "--openclaw-dir", str(tmp_path))
    assert updated.exit_code == 0 and "previous version kept as" in updated.stdout
    assert target.read_text() == skill_text()
    assert (target.parent / "SKILL.md.bak").read_text() == "my own notes"


def test_default_is_openclaws_managed_skills_folder(run, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(tmp_path / "state"))
    missing = run("skill", "install")
    assert missing.exit_code == 2 and f"no folder {tmp_path / 'state'}: install OpenClaw first" in missing.stderr
    (tmp_path / "state").mkdir()
    result = run("skill", "install")
    assert result.exit_code == 0
    assert (tmp_path / "state" / "skills" / "alaya" / "SKILL.md").read_text() == skill_text()


def test_the_skill_teaches_mcp_and_sync():
    text = skill_text()
    assert "alaya_recall" in text and "alaya sync openclaw" in text
