"""A batch command that fails part of its work says so in ``--json`` as every failing command does.

``ingest`` and ``distill`` report file by file and session by session; when some were refused or failed to
distill they exit 2 or 1, and their JSON document then also carries ``{"error": {"code", "message"}}`` beside
the report, so an agent that checks for ``error`` sees the failure. The distiller fails for real here: an
OpenAI-compatible endpoint on 127.0.0.1 that answers no JSON.
"""

from __future__ import annotations

import json

import pytest
from test_llm_distiller import answer

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.engine import Engine

SESSION = "session-20260309-013000"


@pytest.fixture
def llm_home(home, llm):
    """A store whose distiller is an endpoint that answers no JSON, retrying once."""
    llm.queue(*(answer("no json here") for _ in range(20)))
    config = json.loads((home / "config.json").read_text())
    config["distill"].update(llm_provider="openai", base_url=llm.url, model="garbled", max_retries=1)
    (home / "config.json").write_text(json.dumps(config))
    return home


def test_refused_files_give_an_error_beside_the_report(cli, home, tmp_path):
    bad = tmp_path / "empty.json"
    bad.write_text("  \n")
    good = sample_sessions_dir() / f"{SESSION}.json"
    result = cli("ingest", "--json", str(bad), str(good))
    assert result.exit_code == 2
    document = result.json()
    assert document["ingested"] == 1 and document["refused"] == 1
    assert document["error"] == {"code": "bad_session",
                                 "message": f"1 of 2 files refused; first {bad}: file is empty"}
    assert result.stderr.strip() == f"error: {bad}: file is empty"


def test_a_clean_ingest_has_no_error(cli, home):
    result = cli("ingest", "--json", str(sample_sessions_dir() / f"{SESSION}.json"))
    assert result.exit_code == 0 and "error" not in result.json()


def test_failed_distillation_gives_an_error(cli, llm_home):
    Engine.open(llm_home).ingest([str(sample_sessions_dir() / f"{SESSION}.json")])
    result = cli("distill", "--json")
    assert result.exit_code == 1
    document = result.json()
    assert document["sessions_failed"] == 1
    assert document["error"]["code"] == "distill_failed"
    assert document["error"]["message"].startswith(f"1 of 1 sessions failed to distill; first {SESSION}: ")


def test_ingest_that_distills_fails_when_its_distillation_fails(cli, llm_home):
    """It exited 0 with a failed distillation inside its report, unlike ``distill`` and ``sync``."""
    result = cli("ingest", "--distill", "--json", str(sample_sessions_dir() / f"{SESSION}.json"))
    assert result.exit_code == 1
    document = result.json()
    assert document["ingested"] == 1 and document["distill"]["sessions_failed"] == 1
    assert document["error"]["code"] == "distill_failed"
    assert result.stderr.startswith(f"error: {SESSION}: ") and len(result.stderr.strip().splitlines()) == 1
    again = cli("ingest", "--distill", str(sample_sessions_dir() / f"{SESSION}.json"))
    assert again.exit_code == 1 and again.stderr.startswith(f"error: {SESSION}: ")  # still not distilled: tried again
