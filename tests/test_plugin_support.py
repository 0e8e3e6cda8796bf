"""What the OpenClaw memory plugin (``integrations/openclaw-plugin``) needs from the engine: recall without memex
cards (``include_memex``, on every way in) and a stored session's turns by position (``session.turns``)."""

from __future__ import annotations

import json
import shutil

import pytest
from conftest import FIXTURES, cli_for, write_session
from jsonschema import Draft202012Validator

from alaya_engine.api import call
from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.schemas import json_schema
from alaya_mcp.tools import recall_request_schema

QUESTION = "gateway restart docker memory limit"


@pytest.fixture(scope="module")
def memex_home(template_home, tmp_path_factory):
    """A store holding the fixture memex vault and one ordinary session (read-only for these tests)."""
    home = tmp_path_factory.mktemp("plugin-memex") / "home"
    shutil.copytree(template_home, home)
    run = cli_for(home)
    assert run("import-memex", str(FIXTURES / "memex_vault"), "--json").exit_code == 0
    assert run("ingest", str(write_session(home.parent / "in")), "--json").exit_code == 0
    return home


def sources(document: dict) -> set[str]:
    return {node["source"] for node in document["nodes"]}


def test_recall_leaves_memex_cards_out_when_asked(memex_home):
    engine = Engine.open(memex_home)
    with_memex = engine.recall({"text": QUESTION, "max_results": 20}).to_json()
    without = engine.recall({"text": QUESTION, "max_results": 20, "include_memex": False}).to_json()
    assert "memex" in sources(with_memex)
    assert "memex" not in sources(without) and without["nodes"], without
    assert without["query"]["include_memex"] is False and with_memex["query"]["include_memex"] is True
    Draft202012Validator(json_schema("recall")).validate(without)


def test_include_memex_must_be_a_boolean(memex_home):
    with pytest.raises(AlayaError, match="'include_memex' must be true or false"):
        Engine.open(memex_home).recall({"text": QUESTION, "include_memex": "no"})


def test_cli_no_memex_on_both_paths(memex_home):
    run = cli_for(memex_home)
    full = run("recall", QUESTION, "--no-memex", "--max-results", "20", "--json")
    assert full.exit_code == 0, full.stderr
    assert "memex" not in sources(full.json()) and full.json()["query"]["include_memex"] is False
    assert "memex" in sources(run("recall", QUESTION, "--memex", "--max-results", "20", "--json").json())


def test_mcp_recall_schema_offers_include_memex():
    assert recall_request_schema()["properties"]["include_memex"]["type"] == "boolean"


@pytest.fixture
def stored_session(home):
    """A store with one six-turn session; returns (engine, session id)."""
    session_id = "plugin-turns-1"
    turns = [{"role": "user" if index % 2 == 0 else "assistant", "content": f"turn number {index}",
              "timestamp": 1774938540000 + index * 1000} for index in range(6)]
    path = write_session(home.parent / "in", session_id, turns=turns)
    engine = Engine.open(home)
    assert call(engine, "ingest", {"paths": [str(path)]})["ingested"] == 1
    return engine, session_id


def test_session_turns_by_range(stored_session):
    engine, session_id = stored_session
    document = call(engine, "session.turns", {"session_id": session_id, "first": 2, "count": 3})
    assert [turn["index"] for turn in document["turns"]] == [2, 3, 4]
    assert [turn["content"] for turn in document["turns"]] == ["turn number 2", "turn number 3", "turn number 4"]
    assert document["turns"][0]["role"] == "user" and document["turns"][1]["role"] == "assistant"
    assert (document["turn_count"], document["first"], document["last"], document["more"]) == (6, 2, 4, True)
    assert document["path"].endswith(f"session-{session_id}.json")
    json.dumps(document)  # what the server sends


def test_session_turns_cut_at_the_end_and_default_from_the_start(stored_session):
    engine, session_id = stored_session
    tail = call(engine, "session.turns", {"session_id": session_id, "first": 4, "count": 50})
    assert [turn["index"] for turn in tail["turns"]] == [4, 5] and tail["more"] is False
    head = call(engine, "session.turns", {"session_id": session_id})
    assert [turn["index"] for turn in head["turns"]] == list(range(6))


@pytest.mark.parametrize(("params", "code", "message"), [
    ({"session_id": "nope"}, "unknown_session", "no session 'nope'"),
    ({"session_id": "plugin-turns-1", "first": 6}, "bad_request", "has 6 turns"),
    ({"session_id": "plugin-turns-1", "count": 0}, "bad_request", "'count' must be an integer from 1 to 200"),
    ({"session_id": "plugin-turns-1", "first": "2"}, "bad_request", "'first' must be an integer"),
    ({"session_id": "../x"}, "bad_request", "needs 'session_id'"),
    ({}, "bad_request", "needs 'session_id'"),
])
def test_session_turns_refusals(stored_session, params, code, message):
    engine, _ = stored_session
    with pytest.raises(AlayaError, match=message) as raised:
        call(engine, "session.turns", params)
    assert raised.value.code == code
