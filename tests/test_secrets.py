"""API keys never appear in error output, ``--json`` documents, status or the log, even when a server echoes them.

The key lives only in the environment variable ``config.json`` names. A hostile or misconfigured
endpoint (or a proxy) can still send it back: in an error body, in a 5xx, or inside the model's
answer. Every one of those paths ends in an error line, a report and a log record: all are checked.
"""

from __future__ import annotations

import json
import logging

import pytest
from test_llm_distiller import Reply, answer

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import AlayaError, report_error

KEY_ENV = "ALAYA_HOSTILE_TEST_KEY"
SECRET = "sk-hostile-" + "7f3a9c" * 4
SESSION = "session-20260309-013000"


@pytest.fixture
def keyed_home(home, llm, monkeypatch):
    """A store whose distiller uses an API key from the environment, with one session to distill."""
    monkeypatch.setenv(KEY_ENV, SECRET)
    config = json.loads((home / "config.json").read_text())
    config["distill"].update(llm_provider="openai", base_url=llm.url, model="echo", api_key_env=KEY_ENV)
    (home / "config.json").write_text(json.dumps(config))
    Engine.open(home).ingest([str(sample_sessions_dir() / f"{SESSION}.json")])
    return home


def everything_written(home, *results) -> str:
    """Every byte a person or a script could see: both streams of each command, the log, the store's text files."""
    texts = [part for result in results for part in (result.stdout, result.stderr)]
    texts += [
        path.read_text(encoding="utf-8", errors="replace")
        for path in home.rglob("*")
        if path.is_file() and path.suffix in (".json", ".jsonl", ".log", ".md", ".txt")
    ]
    return "\n".join(texts)


ECHOES = {
    "401 quoting the key": [
        Reply(401, json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}).encode())
    ],
    "5xx quoting the key": [
        Reply(503, json.dumps({"error": f"upstream rejected Bearer {SECRET}"}).encode(), {"Retry-After": "0"})
    ]
    * 5,
    "answer quoting the key": [answer(f"I cannot do that. By the way, your key is {SECRET}.")] * 5,
}


@pytest.mark.parametrize("echo", sorted(ECHOES))
def test_a_key_echoed_by_the_endpoint_never_reaches_output_or_log(cli, keyed_home, llm, echo):
    llm.queue(*ECHOES[echo], *ECHOES[echo])
    result = cli("distill", "--json")
    assert result.exit_code == 1, result.stderr
    assert result.stderr.startswith(f"error: {SESSION}: ") and len(result.stderr.strip().splitlines()) == 1
    assert result.json()["sessions"][0]["status"] == "failed"
    assert llm.requests[0]["headers"]["Authorization"] == f"Bearer {SECRET}"
    human = cli("distill")
    status = cli("status", "--json"), cli("status")
    written = everything_written(keyed_home, result, human, *status)
    assert SECRET not in written
    assert KEY_ENV in (keyed_home / "config.json").read_text()


def test_a_key_in_any_error_message_is_redacted_once_the_store_is_open(keyed_home, capsys):
    Engine.open(keyed_home)
    error = AlayaError("internal", f"unexpected ValueError: could not convert string to float: '{SECRET}'")
    assert SECRET not in error.message + str(error) + json.dumps(error.to_json())
    report_error(error, wants_json=True)
    out, err = capsys.readouterr()
    assert SECRET not in out + err and "[REDACTED]" in err


def test_a_key_in_a_logged_traceback_is_redacted(keyed_home):
    Engine.open(keyed_home)
    log = logging.getLogger("alaya_cli.app")
    try:
        raise RuntimeError(f"header was Authorization: Bearer {SECRET}")
    except RuntimeError:
        log.exception("unexpected failure")
    text = (keyed_home / "logs/alaya.log").read_text(encoding="utf-8")
    assert "RuntimeError: header was Authorization: Bearer [REDACTED]" in text
    assert SECRET not in text


def test_a_missing_key_names_the_variable_only(cli, keyed_home, monkeypatch):
    monkeypatch.delenv(KEY_ENV)
    result = cli("distill", "--json")
    error = result.json()["error"]
    assert result.exit_code == 2 and error["code"] == "distill_api_key_missing"
    assert KEY_ENV in error["message"] and SECRET not in result.stdout + result.stderr
