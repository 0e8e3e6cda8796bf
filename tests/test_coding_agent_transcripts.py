"""Claude Code transcripts and Codex rollouts through ``alaya ingest FILE``, and what the offline distiller makes of
them: the mapping decisions (tool results as tool turns, thinking and reasoning dropped, images as a placeholder,
long tool output clipped, sidechains dropped, compaction summaries kept as system turns) and the cards."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from conftest import FIXTURES

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.json_input import load_json
from alaya_engine.raw.formats import parse_session_bytes
from alaya_engine.raw.runtime_text import ARGUMENT_DEPTH, TOO_DEEP, TOOL_TEXT_CAP

CLAUDE_PROJECTS = FIXTURES / "claude_home" / "projects"
CLAUDE_SQL = CLAUDE_PROJECTS / "-home-dev-projects-billing-api" / "6f2c1e4a-8b3d-4c5e-9f1a-2b3c4d5e6f70.jsonl"
CLAUDE_OOM = CLAUDE_PROJECTS / "-home-dev-projects-infra" / "0b7d3f19-2a6c-4e8d-b5f0-7c1e9a2d4b63.jsonl"
CLAUDE_SUBAGENT = CLAUDE_PROJECTS / "-home-dev-projects-billing-api" / "agent-5c1d2e3f.jsonl"
CODEX_DAYS = FIXTURES / "codex_home" / "sessions" / "2026" / "04"
CODEX_PEP668 = CODEX_DAYS / "07" / "rollout-2026-04-07T10-00-00-0199a2b3-7c4d-7e5f-8a6b-9c0d1e2f3a4b.jsonl"
CODEX_PUSH = CODEX_DAYS / "08" / "rollout-2026-04-08T15-00-00-0199a4c5-1e2f-7a3b-9c4d-5e6f7a8b9c0d.jsonl"
PNG_BYTES = base64.b64encode(bytes(range(256)) * 3).decode()[:60]
"""The start of the base64 screenshot both fixtures attach: it must never reach the store."""


def parse(path: Path):
    return parse_session_bytes(path.read_bytes(), 10**8)


def stored_text(home: Path, session_id: str) -> str:
    [path] = (home / "raw" / "sessions").glob(f"*/session-{session_id}.json")
    return path.read_text(encoding="utf-8")


@pytest.mark.parametrize("path, session_id", [(CLAUDE_SQL, "claude-6f2c1e4a-8b3d-4c5e-9f1a-2b3c4d5e6f70"),
                                              (CODEX_PEP668, "codex-0199a2b3-7c4d-7e5f-8a6b-9c0d1e2f3a4b")])
def test_alaya_ingest_file_takes_each_runtime_format(cli, home, path, session_id):
    result = cli("ingest", str(path), "--json")
    assert result.exit_code == 0, result.stderr
    [outcome] = result.json()["files"]
    assert (outcome["status"], outcome["session_id"]) == ("ingested", session_id)
    document = json.loads(stored_text(home, session_id))
    assert document["agent"] in ("claude-code", "codex")
    assert document["metadata"]["cwd"].startswith("/home/dev/projects/")
    assert PNG_BYTES not in json.dumps(document)
    again = cli("ingest", str(path), "--json").json()["files"][0]
    assert again["status"] == "unchanged", "the same transcript is the same session"


def test_claude_code_mapping():
    session = parse(CLAUDE_SQL)
    assert (session.id, session.channel, session.agent) == (
        "claude-6f2c1e4a-8b3d-4c5e-9f1a-2b3c4d5e6f70", "billing-api", "claude-code")
    assert session.metadata["title"] == "SQLAlchemy 2.0 upgrade: wrap raw SQL in text()"
    assert session.metadata["git_branch"] == "deps/sqlalchemy-2"
    roles = [turn.role for turn in session.turns]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "assistant", "tool",
                     "system", "assistant", "tool", "assistant", "user"]
    first_user, first_answer, failure = session.turns[:3]
    assert first_user.content.endswith("Can you fix it?\n[image]"), "the screenshot is a placeholder"
    assert first_answer.content == "I'll run the two failing tests first.", "no thinking; one message, one turn"
    assert [call["name"] for call in first_answer.tool_calls] == ["Bash"]
    assert failure.tool_name == "Bash" and failure.extra == {"is_error": True}
    assert len(failure.content) < TOOL_TEXT_CAP + 60 and "characters cut" in failure.content
    assert failure.content.rstrip().endswith("2 failed, 40 passed in 3.41s =========================")
    assert session.turns[4].tool_name == "Task" and "app/reports.py:88" in session.turns[4].content
    assert not any("Found 2 call sites" in turn.content for turn in session.turns), "the sub-agent's own turns go"
    assert session.turns[9].extra == {"compaction_summary": True}
    assert session.turns[-1].content == "Thanks, that did it.", "the synthetic 'No response requested.' goes"
    assert not any("local-command-caveat" in turn.content for turn in session.turns)


def test_codex_mapping():
    session = parse(CODEX_PEP668)
    assert (session.id, session.channel, session.agent) == (
        "codex-0199a2b3-7c4d-7e5f-8a6b-9c0d1e2f3a4b", "payments", "codex")
    assert session.metadata["model"] == "gpt-5-codex" and session.metadata["git_branch"] == "main"
    roles = [turn.role for turn in session.turns]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool", "system", "assistant",
                     "tool", "assistant"]
    assert not any("environment_context" in turn.content for turn in session.turns), "injected context goes"
    assert not any("Planning dependency" in turn.content for turn in session.turns), "reasoning goes"
    announce, failure = session.turns[1:3]
    assert announce.content == "I'll install the dependencies first."
    assert announce.tool_calls[0]["name"] == "shell"
    assert announce.tool_calls[0]["arguments"]["command"] == ["bash", "-lc", "pip install -r requirements.txt"]
    assert failure.tool_name == "shell" and failure.extra == {"exit_code": 1}
    assert failure.content.startswith("error: externally-managed-environment"), "the shell envelope unwrapped"
    assert "characters cut" in session.turns[4].content and session.turns[4].content.endswith("uvicorn-0.31.0")
    assert session.turns[5].tool_calls[0]["name"] == "apply_patch"
    assert session.turns[7].extra == {"compaction_summary": True}
    pushed = parse(CODEX_PUSH)
    assert pushed.turns[0].content.endswith("Why?\n[image]") and pushed.metadata["git_branch"] == "release/2.4"


def test_a_sub_agent_transcript_and_a_summary_only_file_are_refused_with_the_reason(tmp_path):
    with pytest.raises(AlayaError, match="sub-agent transcript"):
        parse(CLAUDE_SUBAGENT)
    titles = tmp_path / "titles.jsonl"
    titles.write_text('{"type":"summary","summary":"Old session","leafUuid":"a1b2"}\n')
    with pytest.raises(AlayaError, match="only summary or bookkeeping lines"):
        parse(titles)


@pytest.mark.parametrize("path, expected", [
    (CLAUDE_SQL, {"gotcha": "SQLAlchemy 2.0 no longer accepts plain SQL", "pattern": "Rule for the SQLAlchemy"}),
    (CLAUDE_OOM, {"gotcha": "OOM-killed", "decision": "mem_limit to 1g"}),
    (CODEX_PEP668, {"gotcha": "externally managed", "pattern": "Debian 12"}),
    (CODEX_PUSH, {"gotcha": "protected"}),
])
def test_the_offline_distiller_reads_failures_and_fixes_from_both_runtimes(path, expected):
    distillation = OfflineDistiller().distill(parse(path))
    titles = {card.type: card.title for card in distillation.cards}
    assert all(phrase in titles.get(kind, "") for kind, phrase in expected.items()), titles
    if path is not CLAUDE_OOM:
        [gotcha] = [card for card in distillation.cards if card.type == "gotcha"]
        assert "**Error:** `" in gotcha.content, "the error line is quoted from the failing tool turn"


def _claude_line(session: str, kind: str, content, message_id: str | None = None) -> str:
    message = {"role": kind, "content": content, **({"id": message_id} if message_id else {})}
    return json.dumps({"type": kind, "sessionId": session, "uuid": f"u-{kind}-{message_id}",
                       "timestamp": "2026-04-06T10:00:00.000Z", "message": message})


def _codex_lines(session: str, *items: dict) -> str:
    head = {"timestamp": "2026-04-07T10:00:00.000Z", "type": "session_meta",
            "payload": {"id": session, "timestamp": "2026-04-07T10:00:00.000Z", "cwd": "/srv/app"}}
    asked = {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the build"}]}
    return "\n".join(json.dumps(line) for line in [head, *({"timestamp": "2026-04-07T10:00:01.000Z",
                                                             "type": "response_item", "payload": item}
                                                            for item in (asked, *items))]) + "\n"


def _call(arguments: str, call_id="call_1") -> dict:
    return {"type": "function_call", "name": "shell", "arguments": arguments, "call_id": call_id}


def _nested(depth: int) -> str:
    return '{"a":' * depth + "1" + "}" * depth


NOT_JSON_ARGUMENTS = '{"timeout": NaN, "retries": Infinity, "limit": 1e999}'
HOSTILE_TRANSCRIPTS = {
    "claude-id-list.jsonl": "\n".join([
        _claude_line("c-ids", "user", "run the tests"),
        _claude_line("c-ids", "assistant", [{"type": "tool_use", "id": ["t1"], "name": "Bash", "input": {}}], "m1"),
        _claude_line("c-ids", "user", [{"type": "tool_result", "tool_use_id": {"id": "t1"}, "content": "ok"}])])
    + "\n",
    "claude-deep-input.jsonl": _claude_line("c-deep", "user", "run the tests") + "\n" + _claude_line(
        "c-deep", "assistant", [{"type": "tool_use", "id": "t1", "name": "Bash", "input": "DEEP"}], "m1").replace(
        '"DEEP"', _nested(900)) + "\n",
    "codex-id-list.jsonl": _codex_lines("k-ids", _call("{}", ["c1"]),
                                        {"type": "function_call_output", "call_id": {"id": 1}, "output": "ok"}),
    "codex-deep-arguments.jsonl": _codex_lines("k-deep", _call(_nested(600))),
    "codex-bracket-string.jsonl": _codex_lines("k-brackets", _call("[" * 100_000)),
    "codex-nan-arguments.jsonl": _codex_lines("k-nan", _call(NOT_JSON_ARGUMENTS)),
}


def test_hostile_coding_agent_transcripts_are_stored_as_json_never_as_internal_errors(cli, home, tmp_path):
    """Ids of the wrong type, arguments nested hundreds deep and arguments that are not JSON (NaN) once made an
    internal error (exit 1, a traceback in the log), or put NaN in L3 and in every reply that read it back."""
    folder = tmp_path / "hostile"
    folder.mkdir()
    for name, text in HOSTILE_TRANSCRIPTS.items():
        (folder / name).write_text(text, encoding="utf-8")
    result = cli("ingest", "--json", str(folder))
    assert result.exit_code == 0, result.stderr
    assert [outcome["status"] for outcome in result.json()["files"]] == ["ingested"] * len(HOSTILE_TRANSCRIPTS)
    assert "Traceback" not in (home / "logs" / "alaya.log").read_text(encoding="utf-8")
    stored = {session_id: load_json(stored_text(home, session_id)) for session_id in (
        "claude-c-ids", "claude-c-deep", "codex-k-ids", "codex-k-deep", "codex-k-brackets", "codex-k-nan")}
    for session_id in ("claude-c-ids", "codex-k-ids"):
        turns = stored[session_id]["turns"]
        assert turns[1]["tool_calls"][0]["id"] is None and turns[2].get("tool_name") is None
    for session_id in ("claude-c-deep", "codex-k-deep"):
        deep = json.dumps(stored[session_id], ensure_ascii=False)
        assert TOO_DEEP in deep and deep.count('{"a": ') == ARGUMENT_DEPTH
    assert stored["codex-k-brackets"]["turns"][1]["tool_calls"][0]["arguments"].startswith("[[[")
    [call] = stored["codex-k-nan"]["turns"][1]["tool_calls"]
    assert call["arguments"] == NOT_JSON_ARGUMENTS, "arguments that are not JSON are kept as the text they are"
    trace = cli("trace", "--json", "codex-k-nan:turns:0-1")
    assert trace.exit_code == 0, trace.stderr
    assert load_json(trace.stdout)["context_turns"][1]["tool_calls"] == [call], "the reply is strict JSON"
