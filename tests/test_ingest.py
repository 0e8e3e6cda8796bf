"""``alaya ingest``: every accepted format, idempotence, and every refusal leaving nothing behind."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import FIXTURES, write_session

from alaya_engine.engine import Engine
from alaya_engine.graph.store import GraphStore


def stored_files(home):
    return sorted(p.relative_to(home) for p in (home / "raw").rglob("*") if p.is_file())


def session_nodes(home):
    engine = Engine.open(home)
    with engine.step() as graph:
        return {row[0]: row[1] for row in graph.query("MATCH (s:Session) RETURN s.id, s.channel")}


def test_seed_json_is_stored_atomically_with_summary_and_node(cli, home, tmp_path):
    source = write_session(tmp_path / "in")
    result = cli("ingest", str(source))
    assert result.exit_code == 0, result.stderr
    stored = home / "raw/sessions/2026-03/session-20260331-062900.json"
    assert json.loads(stored.read_text())["turns"][1]["tool_calls"][0]["name"] == "exec"
    summary = stored.with_suffix(".md").read_text()
    assert "plugins.allow" in summary and "Tool call `exec`" in summary
    assert session_nodes(home) == {"session-20260331-062900": "telegram"}
    assert "Saved to" in result.stdout and "Created Session node in graph" in result.stdout


def test_openclaw_jsonl_keeps_tools_and_skips_thinking(cli, home, tmp_path):
    agent_dir = tmp_path / "agents" / "ops" / "sessions"
    agent_dir.mkdir(parents=True)
    shutil.copy(FIXTURES / "openclaw-liveness.jsonl", agent_dir / "7f3c2a9e-1b4d-4e8a-9c61-2d5f8e0b7a13.jsonl")
    result = cli("ingest", "--json", str(agent_dir))
    assert result.exit_code == 0, result.stderr
    outcome = result.json()["files"][0]
    assert outcome["status"] == "ingested" and outcome["channel"] == "openclaw"
    stored = json.loads((home / "raw/sessions/2026-04/session-7f3c2a9e-1b4d-4e8a-9c61-2d5f8e0b7a13.json").read_text())
    roles = [turn["role"] for turn in stored["turns"]]
    assert roles == ["user", "assistant", "tool", "assistant"]
    assert stored["agent"] == "ops"
    assert stored["turns"][1]["tool_calls"] == [{"name": "exec",
                                                 "arguments": {"command": "kubectl describe pod api-7d9f"}}]
    assert stored["turns"][2]["tool_name"] == "exec" and "Liveness probe failed" in stored["turns"][2]["content"]
    assert "SECRET-THINKING" not in json.dumps(stored)
    assert stored["metadata"]["model"] == "claude-sonnet-4-5" and stored["metadata"]["tokens"] == 3260
    assert stored["timestamp"] == 1775643300000


def test_folder_is_walked_recursively_and_stdin_is_accepted(cli, home, tmp_path):
    write_session(tmp_path / "in" / "a", "s-one")
    write_session(tmp_path / "in" / "b" / "deeper", "s-two")
    (tmp_path / "in" / "notes.txt").write_text("not a session")
    result = cli("ingest", "--json", str(tmp_path / "in"))
    assert result.json()["ingested"] == 2
    piped = json.dumps({"id": "s-three", "timestamp": 1774938540000, "turns": [{"role": "user", "content": "hi"}]})
    result = cli("ingest", "--json", "-", input=piped)
    assert result.exit_code == 0 and result.json()["files"][0]["session_id"] == "s-three"
    assert set(session_nodes(home)) == {"s-one", "s-two", "s-three"}


def test_same_session_twice_is_a_reported_no_op(cli, home, tmp_path):
    source = write_session(tmp_path / "in")
    cli("ingest", str(source))
    before = {p: p.stat().st_mtime_ns for p in (home / "raw").rglob("*.json")}
    result = cli("ingest", "--json", str(source))
    assert result.exit_code == 0 and result.json()["unchanged"] == 1
    assert {p: p.stat().st_mtime_ns for p in (home / "raw").rglob("*.json")} == before


def test_changed_content_needs_replace(cli, home, tmp_path):
    cli("ingest", str(write_session(tmp_path / "v1")))
    changed = write_session(tmp_path / "v2", channel="slack")
    result = cli("ingest", str(changed))
    assert result.exit_code == 2
    assert "already stored with different content; pass --replace" in result.stderr
    assert session_nodes(home) == {"session-20260331-062900": "telegram"}
    result = cli("ingest", "--replace", "--json", str(changed))
    assert result.exit_code == 0 and result.json()["replaced"] == 1
    assert session_nodes(home) == {"session-20260331-062900": "slack"}


BAD_INPUTS = {
    "malformed.json": (b'{"id": "x", "turns": [', "malformed JSON at line 1 column 23"),
    "missing.json": (b'{"timestamp": 1774938540000, "turns": []}', "missing field 'id'"),
    "wrongtype.json": (b'{"id": "x", "timestamp": 1774938540000, "turns": {"a": 1}}',
                       "field 'turns' must be a list, got object"),
    "badrole.json": (b'{"id": "x", "timestamp": 1, "turns": [{"role": "robot", "content": "x"}]}',
                     "turns[0].role must be one of"),
    "empty-session.json": (b'{"id": "x", "timestamp": 1774938540000, "turns": []}',
                           "session has no turns with content"),
    "empty-file.json": (b"   \n", "file is empty"),
    "binary.json": (bytes(range(256)) * 4, "binary file, not a session"),
    "escape.json": (b'{"id": "../../etc/passwd", "timestamp": 1, "turns": [{"role": "user", "content": "x"}]}',
                    "session id '../../etc/passwd' is not allowed"),
    "slash.json": (b'{"id": "a/b", "timestamp": 1, "turns": [{"role": "user", "content": "x"}]}', "is not allowed"),
    "badtime.json": (b'{"id": "x", "timestamp": "yesterday", "turns": [{"role": "user", "content": "x"}]}',
                     "timestamp 'yesterday' is not an ISO-8601 time"),
}


@pytest.mark.parametrize("name", sorted(BAD_INPUTS))
def test_bad_input_is_refused_with_one_line_and_nothing_written(cli, home, tmp_path, name):
    data, expected = BAD_INPUTS[name]
    bad = tmp_path / "in" / name
    bad.parent.mkdir()
    bad.write_bytes(data)
    good = write_session(tmp_path / "in", "good-one")
    before = stored_files(home)
    result = cli("ingest", "--json", str(bad), str(good))
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {bad}: ") and expected in lines[0], lines
    document = result.json()
    assert document["ingested"] == 1 and document["refused"] == 1
    assert document["files"][0]["error"]["code"] == "bad_session"
    assert "Traceback" not in result.stderr + result.stdout
    assert set(stored_files(home)) - set(before) == {
        Path("raw/sessions/2026-03/session-good-one.json"),
        Path("raw/sessions/2026-03/session-good-one.md"),
    }
    assert set(session_nodes(home)) == {"good-one"}


def test_absurd_size_is_refused_before_reading(cli, home, tmp_path):
    config = json.loads((home / "config.json").read_text())
    config["ingest"]["max_file_mb"] = 1
    (home / "config.json").write_text(json.dumps(config))
    big = tmp_path / "big.json"
    big.write_bytes(b'{"id": "big", "timestamp": 1, "turns": [{"role": "user", "content": "'
                    + b"a" * 2_000_000 + b'"}]}')
    result = cli("ingest", str(big))
    assert result.exit_code == 2 and "over ingest.max_file_mb (1 MB)" in result.stderr
    assert not list((home / "raw/sessions").rglob("*.json"))


def test_missing_path_is_reported_and_others_continue(cli, home, tmp_path):
    result = cli("ingest", "--json", str(tmp_path / "nope.json"), str(write_session(tmp_path / "in")))
    assert result.exit_code == 2
    assert "nope.json: no such file or folder" in result.stderr
    assert result.json()["ingested"] == 1


def test_ingest_into_uninitialised_home_says_how_to_fix(tmp_path, cli):
    result = cli("ingest", "--json", "x.json", use_home=tmp_path / "nothing-here")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "not_initialised"
    assert "run: alaya --home" in result.stderr and "init" in result.stderr


def test_graph_store_sees_every_ingested_session(home, tmp_path):
    engine = Engine.open(home)
    paths = [str(write_session(tmp_path / "in", f"s-{i:03d}")) for i in range(25)]
    report = engine.ingest(paths)
    assert report.count("ingested") == 25
    with GraphStore(engine.layout.graph_db, engine.manifest["graph_engine"]) as graph:
        assert graph.counts()["sessions"] == 25
