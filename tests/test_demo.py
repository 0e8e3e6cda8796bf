"""``alaya demo``: the README's first command, offline, from the sessions shipped in the package."""

from __future__ import annotations

import json
import re

from typer.testing import CliRunner

from alaya_engine.commands import app
from alaya_engine.demo import sample_sessions_dir


def run_demo(*args: str):
    result = CliRunner().invoke(app, ["demo", *args])
    assert result.exit_code == 0, result.stderr
    return result


def test_sample_sessions_cover_both_languages_and_both_formats():
    files = sorted(sample_sessions_dir().iterdir())
    assert 12 <= len(files) <= 20
    assert sum(path.suffix == ".jsonl" for path in files) >= 2
    text = "".join(path.read_text(encoding="utf-8") for path in files)
    assert re.search(r"[\u4e00-\u9fff]{20}", text) and "because" in text


def test_demo_builds_a_memory_and_is_idempotent(tmp_path):
    home = tmp_path / "demo"
    document = json.loads(run_demo("--demo-home", str(home), "--json").stdout)
    files = len(list(sample_sessions_dir().iterdir()))
    assert document["ingest"]["ingested"] == files and document["ingest"]["refused"] == 0
    assert document["status"]["l3"]["sessions"] == files == document["status"]["l2"]["sessions"]
    channels = {outcome["channel"] for outcome in document["ingest"]["files"]}
    assert "openclaw" in channels and "telegram" in channels
    again = json.loads(run_demo("--demo-home", str(home), "--json").stdout)
    assert again["init"]["created"] is False and again["ingest"]["unchanged"] == files
    fresh = json.loads(run_demo("--demo-home", str(home), "--fresh", "--json").stdout)
    assert fresh["init"]["created"] is True and fresh["ingest"]["ingested"] == files


def test_demo_human_output_shows_status(tmp_path, monkeypatch):
    monkeypatch.setenv("ALAYA_DEMO_HOME", str(tmp_path / "env-demo"))
    output = run_demo().stdout
    assert "Alaya is ready!" in output and "Sessions: 16 ingested" in output and "L2 Graph DB" in output
    assert (tmp_path / "env-demo" / "store.json").exists()
