"""Hostile session input: ``alaya ingest`` of broken, nasty and absurd files never crashes or half-writes.

Parse-level properties run many generated documents through ``parse_session_bytes`` (cheap, no
store); store-level tests go through the CLI and compare the store before and after a refusal.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES, write_session
from hostile_checks import (
    NO_DEADLINE,
    assert_ingest_refused,
    assert_one_error_line,
    graph_state,
    raw_files,
    store_state,
)
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.graph.store import from_millis
from alaya_engine.raw.formats import parse_session_bytes, parse_session_json
from alaya_engine.raw.store import RawStore
from alaya_engine.raw.summary import session_markdown

MAX_BYTES = 64_000_000
SESSIONS = Path("/store/raw/sessions")
GOOD_TURN = {"role": "user", "content": "hello there", "timestamp": 1774938540000}
OPENCLAW = (FIXTURES / "openclaw-liveness.jsonl").read_bytes()

HOSTILE_IDS = [
    "../x",
    "..",
    ".",
    "a/../../b",
    "/etc/passwd",
    "a\x00b",
    "a;rm -rf ~",
    "$(touch pwned)",
    "`id`",
    "a|b",
    "a&b",
    "a b",
    ".hidden",
    "-rf",
    "x" * 129,
    "",
    "a\nb",
    "C:\\x",
    "~root",
    "*",
    "?",
    "[a]",
    "ünï",
    "a..b",
    "session-../x",
    "%2e%2e%2f",
    "a\\..\\b",
    "\u202eexe.json",
]


# --- strategies --------------------------------------------------------------------------------


def _with_lone_surrogate(text: str) -> str:
    return text + "\ud83d"


texts = st.text(max_size=30) | st.text(max_size=10).map(_with_lone_surrogate)
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | texts
)
values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4), max_leaves=10
)
times = (
    st.integers(min_value=-(2**64), max_value=2**64)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(
        [
            "2026-03-31T06:29:00Z",
            "2026-03-31",
            "9999-12-31T23:59:59-12:00",
            "0001-01-01T00:00:00+01:00",
            "yesterday",
            "",
        ]
    )
    | values
)
ids = st.sampled_from(HOSTILE_IDS) | st.from_regex(r"[A-Za-z0-9][A-Za-z0-9._-]{0,20}", fullmatch=True) | values
roles = st.sampled_from(["user", "assistant", "tool", "toolResult", "system", "robot"]) | values
turns = st.fixed_dictionaries(
    {"role": roles},
    optional={
        "content": texts | values,
        "timestamp": times,
        "tool_calls": values | st.lists(st.dictionaries(texts, values)),
        "tool_name": texts | values,
        "extra": values,
    },
)
metadata = st.dictionaries(st.sampled_from(["tokens", "duration_ms", "model", "other"]), values) | values
seed_documents = st.fixed_dictionaries(
    {"id": ids, "turns": st.lists(turns, max_size=4) | values},
    optional={"timestamp": times, "channel": texts | values, "agent": texts | values, "metadata": metadata},
)
openclaw_messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["message", "model_change", "custom"]) | values},
    optional={
        "message": st.fixed_dictionaries(
            {"role": roles},
            optional={
                "content": texts
                | st.lists(
                    st.fixed_dictionaries(
                        {"type": st.sampled_from(["text", "toolCall", "image", "thinking"])},
                        optional={"text": values, "name": values, "arguments": values},
                    )
                )
                | values,
                "timestamp": times,
                "toolName": values,
                "model": values,
                "usage": values,
            },
        )
        | values,
        "modelId": values,
        "timestamp": times,
    },
)


def encode(document, ascii_only: bool) -> bytes:
    """JSON as a producer would write it: lone surrogates escaped, or raw (which is not UTF-8)."""
    return json.dumps(document, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def openclaw_bytes(header: dict, events: list, ascii_only: bool) -> bytes:
    return b"\n".join(encode(item, ascii_only) for item in [header, *events]) + b"\n"


def assert_parses_or_refuses(data: bytes):
    """The property: a clean one-line refusal, or a session that can be stored, read back and shown."""
    try:
        session = parse_session_bytes(data, MAX_BYTES)
    except AlayaError as error:
        assert error.code == "bad_session" and error.exit_code == 2
        assert error.message and "\n" not in error.message and len(error.message) < 400
        return None
    path = RawStore(SESSIONS, SESSIONS.parent / "contexts").path_for(session)
    assert path.parent.parent == SESSIONS and path.name.endswith(".json") and "/" not in session.id
    stored = json.dumps(session.to_json(), ensure_ascii=False, indent=2, allow_nan=False)
    stored.encode("utf-8")
    assert parse_session_json(json.loads(stored), stored=True).content_hash() == session.content_hash()
    session_markdown(session).encode("utf-8")
    from_millis(session.timestamp)
    assert 0 <= session.tokens < 2**63 and 0 <= session.duration_ms < 2**63
    return session


# --- parse-level properties -------------------------------------------------------------------


@settings(max_examples=80, **NO_DEADLINE)
@given(seed_documents, st.booleans())
@example({"id": "0", "turns": [{"role": "user", "content": "0"}, {"role": "user", "timestamp": 1}]}, False)
def test_any_seed_document_is_stored_cleanly_or_refused_in_one_line(document, ascii_only):
    assert_parses_or_refuses(encode(document, ascii_only))


@settings(max_examples=60, **NO_DEADLINE)
@given(
    st.fixed_dictionaries({"type": st.just("session"), "id": ids}, optional={"timestamp": times, "cwd": values}),
    st.lists(openclaw_messages, max_size=5),
    st.booleans(),
)
@example({"type": "session", "id": "0", "timestamp": -1.797693134862316e305}, [], False)
def test_any_openclaw_transcript_is_stored_cleanly_or_refused_in_one_line(header, events, ascii_only):
    assert_parses_or_refuses(openclaw_bytes(header, events, ascii_only))


@settings(max_examples=150, **NO_DEADLINE)
@given(st.binary(max_size=300))
@example(b"\xef\xbb\xbf")
@example(b'{"id": "x", "turns": [' + b"[" * 5000)
def test_arbitrary_bytes_never_crash_the_parser(data):
    assert_parses_or_refuses(data)


VALID_SEED = json.dumps({"id": "s-valid", "timestamp": 1774938540000, "turns": [GOOD_TURN] * 3}).encode()


@settings(max_examples=100, **NO_DEADLINE)
@given(st.sampled_from([VALID_SEED, OPENCLAW]), st.data())
def test_truncated_or_corrupted_valid_files_never_crash(original, data):
    """Cut anywhere (a crash mid-write), or bytes replaced by NUL, 0xFF, a quote or a line break."""
    cut = data.draw(st.integers(min_value=0, max_value=len(original)))
    assert_parses_or_refuses(original[:cut])
    at = data.draw(st.integers(min_value=0, max_value=len(original) - 1))
    junk = data.draw(st.sampled_from([b"\x00", b"\xff", b'"', b"\n", b"\\", b"{", b"\xe4\xb8"]))
    assert_parses_or_refuses(original[:at] + junk + original[at + 1 :])


@settings(max_examples=150, **NO_DEADLINE)
@given(st.text(max_size=40) | st.sampled_from(HOSTILE_IDS))
def test_only_plain_names_become_session_files(session_id):
    data = json.dumps({"id": session_id, "timestamp": 1774938540000, "turns": [GOOD_TURN]}).encode()
    session = assert_parses_or_refuses(data)
    if session is not None:
        assert session.id == session_id and session_id not in HOSTILE_IDS
        assert session_id[0].isascii() and session_id[0].isalnum() and ".." not in session_id
        assert all(char.isascii() and (char.isalnum() or char in "._-") for char in session_id)


@pytest.mark.parametrize(
    "text",
    [
        '{"id": "x", "timestamp": NaN, "turns": [{"role": "user", "content": "x"}]}',
        '{"id": "x", "timestamp": 1e999, "turns": [{"role": "user", "content": "x"}]}',
        '{"id": "x", "timestamp": 1, "metadata": {"tokens": Infinity}, "turns": [{"role": "user", "content": "x"}]}',
    ],
)
def test_nan_and_infinity_are_not_json(text):
    with pytest.raises(AlayaError) as caught:
        parse_session_bytes(text.encode(), MAX_BYTES)
    assert "malformed JSON" in caught.value.message and (
        "not a JSON number" in caught.value.message or "too large" in caught.value.message
    )


def test_a_lone_surrogate_becomes_a_replacement_character():
    """A truncated emoji in a Node.js transcript is escaped as a lone surrogate: keep the session, fix the text."""
    data = b'{"id": "emoji", "timestamp": 1774938540000, "turns": [{"role": "user", "content": "cut \\ud83d here"}]}'
    session = assert_parses_or_refuses(data)
    assert session.turns[0].content == "cut \ufffd here"


# --- through the CLI: refused files leave the store as it was -----------------------------------


def seed(**fields) -> bytes:
    document = {"id": "nasty", "timestamp": 1774938540000, "turns": [GOOD_TURN]}
    document.update(fields)
    return json.dumps(document).encode()


def openclaw(*events: bytes, header: bytes = b'{"type":"session","id":"oc-nasty","timestamp":"2026-04-08T10:15:00Z"}'):
    return b"\n".join([header, *events]) + b"\n"


USER_EVENT = b'{"type":"message","message":{"role":"user","content":"why does it crash"}}'

CORPUS = {
    "deep-array.json": (b'{"id": "x", "turns": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    "deep-object.json": (
        b'{"id": "x", "timestamp": 1, "metadata": ' + b'{"a":' * 5000 + b"1" + b"}" * 5000 + b', "turns": []}',
        "nested too deeply",
    ),
    "nan-time.json": (seed().replace(b"1774938540000", b"NaN"), "NaN is not a JSON number"),
    "huge-number.json": (seed().replace(b"1774938540000", b"9" * 5000), "4300 digits"),
    "far-future.json": (seed(timestamp="9999-12-31T23:59:59-12:00"), "out of range"),
    "before-1970.json": (seed(timestamp=-5), "out of range"),
    "role-list.json": (seed(turns=[{"role": ["user"], "content": "x"}]), "turns[0].role must be one of"),
    "tokens-text.json": (seed(metadata={"tokens": "many"}), "metadata.tokens must be a non-negative number"),
    "tokens-huge.json": (seed(metadata={"tokens": 10**30}), "metadata.tokens must be a non-negative number"),
    "duration-list.json": (seed(metadata={"duration_ms": [1]}), "metadata.duration_ms must be"),
    "turns-string.json": (seed(turns="hello"), "field 'turns' must be a list"),
    "content-number.json": (seed(turns=[{"role": "user", "content": 42}]), "turns[0].content must be a string"),
    "latin1.json": (seed(turns=[{"role": "user", "content": "caf\u00e9"}]).replace(b"\\u00e9", b"\xe9"), "not UTF-8"),
    "late-nul.json": (
        seed(turns=[{"role": "user", "content": "x" * 70_000 + "NUL"}]).replace(b"NUL", b"\x00"),
        "malformed JSON",
    ),
    "array.json": (b"[1, 2, 3]", "expected a JSON object"),
    "two-documents.json": (seed() + seed(), "Extra data"),
    "oc-truncated.jsonl": (
        openclaw(USER_EVENT, b'{"type":"message","message":{"role":"user","content":"cut'),
        "line 3: malformed JSON",
    ),
    "oc-not-object.jsonl": (openclaw(USER_EVENT, b"[1, 2]"), "line 3: expected a JSON object"),
    "oc-message-string.jsonl": (openclaw(b'{"type":"message","message":"hi"}'), "line 2: 'message' must be an object"),
    "oc-content-number.jsonl": (
        openclaw(b'{"type":"message","message":{"role":"user","content":7}}'),
        "line 2: message content must be a string or a list",
    ),
    "oc-header-only.jsonl": (openclaw(), "session has no turns with content"),
    "oc-deep-line.jsonl": (openclaw(USER_EVENT, b"[" * 50_000), "line 3: malformed JSON (nested too deeply)"),
    "oc-bad-id.jsonl": (openclaw(USER_EVENT, header=b'{"type":"session","id":"../../x","timestamp":1}'), "not allowed"),
    "oc-nan-time.jsonl": (
        openclaw(b'{"type":"message","message":{"role":"user","content":"x","timestamp":NaN}}'),
        "NaN is not a JSON number",
    ),
}


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_nasty_file_is_refused_in_one_line_and_changes_nothing(cli, home, tmp_path, name):
    data, expected = CORPUS[name]
    bad = tmp_path / name
    bad.write_bytes(data)
    before = store_state(home)
    result = cli("ingest", "--json", str(bad))
    error = assert_ingest_refused(result)
    assert expected in error["message"], error
    assert result.stderr.startswith(f"error: {bad}: ")
    assert store_state(home) == before


def test_hostile_session_ids_are_refused_file_by_file_and_write_nothing(cli, home, tmp_path):
    """Every hostile id, in both formats, in one folder: one error line per file, nothing stored or created."""
    folder = tmp_path / "in"
    for number, session_id in enumerate(HOSTILE_IDS):
        write_session(folder, f"seed-{number:02d}", id=session_id)
        header = json.dumps({"type": "session", "id": session_id, "timestamp": 1774938540000}).encode()
        (folder / f"oc-{number:02d}.jsonl").write_bytes(openclaw(USER_EVENT, header=header))
    before = store_state(home)
    result = cli("ingest", "--json", str(folder))
    assert result.exit_code == 2 and "Traceback" not in result.stdout + result.stderr
    files = result.json()["files"]
    assert len(files) == 2 * len(HOSTILE_IDS) and {f["error"]["code"] for f in files} == {"bad_session"}
    assert result.stderr.count("\n") == len(files) and result.stderr.count("error: ") == len(files)
    assert store_state(home) == before
    assert sorted(path.name for path in tmp_path.iterdir()) == ["home", "in"]
    assert not Path("pwned").exists()


def test_hostile_bytes_on_stdin_are_refused_as_stdin(cli, home):
    before = store_state(home)
    result = cli("ingest", "--json", "-", input=b'{"id": "x", "turns": [' + b"\xff\x00" * 10)
    assert_ingest_refused(result)
    assert result.stderr.startswith("error: <stdin>: ")
    assert store_state(home) == before


def test_duplicate_ids_in_one_call_keep_the_first_and_refuse_the_second(cli, home, tmp_path):
    first = write_session(tmp_path / "a", "dup-1")
    second = write_session(tmp_path / "b", "dup-1", channel="slack")
    same = write_session(tmp_path / "c", "dup-1")
    result = cli("ingest", "--json", str(first), str(second), str(same))
    assert_one_error_line(result)
    statuses = [(f["status"], (f["error"] or {}).get("code")) for f in result.json()["files"]]
    assert statuses == [("ingested", None), ("refused", "session_conflict"), ("unchanged", None)]
    stored = json.loads((home / "raw/sessions/2026-03/session-dup-1.json").read_text())
    assert stored["channel"] == "telegram"


@pytest.mark.parametrize(("first", "second"), [("x", "session-x"), ("session-y", "y")])
def test_ids_that_share_a_file_name_never_overwrite_each_other(cli, home, tmp_path, first, second):
    """``x`` and ``session-x`` both map to ``session-x.json``: the second is refused, even with --replace."""
    cli("ingest", str(write_session(tmp_path / "a", first)))
    kept = raw_files(home)
    for flags in ([], ["--replace"]):
        result = cli("ingest", "--json", *flags, str(write_session(tmp_path / "b", second, channel="slack")))
        assert "would share the file" in assert_ingest_refused(result, code="session_id_collision")["message"]
        assert raw_files(home) == kept
    assert graph_state(home)["sessions"] == [first]


def test_lone_surrogate_is_stored_as_valid_utf8_and_is_idempotent(cli, home, tmp_path):
    source = tmp_path / "emoji.json"
    source.write_bytes(
        b'{"id": "emoji", "timestamp": 1774938540000, "turns": [{"role": "user", "content": "x \\ud83d"}]}'
    )
    assert cli("ingest", str(source)).exit_code == 0
    stored = (home / "raw/sessions/2026-03/session-emoji.json").read_bytes()
    assert "x \ufffd" in stored.decode("utf-8")
    assert cli("ingest", "--json", str(source)).json()["unchanged"] == 1


def test_escaped_nul_characters_are_kept_as_data(cli, home, tmp_path):
    source = write_session(
        tmp_path, "nul-data", channel="tele\x00gram", turns=[{"role": "user", "content": "before\x00after"}]
    )
    assert cli("ingest", str(source)).exit_code == 0
    stored = (home / "raw/sessions/2026-03/session-nul-data.json").read_bytes()
    assert b"\x00" not in stored and json.loads(stored)["turns"][0]["content"] == "before\x00after"
    engine = Engine.open(home)
    with engine.step() as graph:
        assert graph.query("MATCH (s:Session {id: 'nul-data'}) RETURN s.channel") == [["tele\x00gram"]]


def test_a_huge_string_is_ingested_whole(cli, home, tmp_path):
    source = write_session(
        tmp_path, "big-turn", turns=[{"role": "tool", "content": "log line\n" * 300_000}], metadata={}
    )
    result = cli("ingest", "--json", str(source))
    assert result.exit_code == 0, result.stderr
    assert result.json()["files"][0]["tokens"] > 600_000


def _many_turns(count: int) -> bytes:
    turns = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"} for i in range(count)]
    return json.dumps({"id": "many-turns", "timestamp": 1774938540000, "turns": turns}).encode()


@pytest.mark.slow
def test_100k_turns_are_ingested_in_reasonable_time(cli, home):
    data = _many_turns(100_000)
    started = time.monotonic()
    result = cli("ingest", "--json", "-", input=data)
    assert result.exit_code == 0, result.stderr
    assert result.json()["files"][0]["turns"] == 100_000
    assert time.monotonic() - started < 60


def test_100k_turns_over_the_size_limit_are_refused_fast(cli, home, tmp_path):
    config = json.loads((home / "config.json").read_text())
    config["ingest"]["max_file_mb"] = 1
    (home / "config.json").write_text(json.dumps(config))
    big = tmp_path / "many.json"
    big.write_bytes(_many_turns(100_000))
    before = store_state(home)
    for args, input_ in ((["-"], big.read_bytes()), ([str(big)], None)):
        started = time.monotonic()
        error = assert_ingest_refused(cli("ingest", "--json", *args, input=input_))
        assert "over ingest.max_file_mb (1 MB)" in error["message"]
        assert time.monotonic() - started < 5
    assert store_state(home) == before


# --- a real terminal: no traceback reaches it ----------------------------------------------------


def alaya(home: Path, *args: str, input: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "ALAYA_NO_SERVER": "1"}
    return subprocess.run(
        [sys.executable, "-m", "alaya_cli", "--home", str(home), *args],
        input=input,
        capture_output=True,
        timeout=120,
        env=env,
    )


def test_real_process_with_unprintable_file_names_prints_one_line_per_file(home, tmp_path):
    """A name with a line break and a byte that is not UTF-8 once split the error line and broke the log."""
    folder = tmp_path / "in"
    folder.mkdir()
    with open(os.path.join(os.fsencode(folder), b"bad\xff\nname.json"), "wb") as handle:
        handle.write(b'{"id": "../escape", "timestamp": 1, "turns": []}')
    completed = alaya(home, "ingest", "--json", str(folder))
    stderr = completed.stderr.decode("utf-8", "replace")
    assert completed.returncode == 2, stderr
    assert "Traceback" not in stderr and "Logging error" not in stderr
    (line,) = stderr.strip().splitlines()
    assert line.startswith(f"error: {folder}/bad\\xff\\nname.json: session id '../escape' is not allowed")
    assert json.loads(completed.stdout)["files"][0]["source"] == f"{folder}/bad\\xff\\nname.json"
    log = (home / "logs/alaya.log").read_bytes().decode("utf-8")
    assert "bad\\xff\\nname.json" in log


def test_real_process_refuses_deep_nesting_without_a_traceback(home):
    completed = alaya(home, "ingest", "-", input=b"[" * 200_000)
    stderr = completed.stderr.decode()
    assert completed.returncode == 2 and "Traceback" not in stderr
    assert stderr.strip().splitlines() == ["error: <stdin>: malformed JSON: nested too deeply"]


@settings(max_examples=15, suppress_health_check=[HealthCheck.function_scoped_fixture], **NO_DEADLINE)
@given(document=seed_documents, ascii_only=st.booleans())
def test_generated_sessions_through_the_cli_exit_0_or_2_and_refusals_write_nothing(cli, home, document, ascii_only):
    before = raw_files(home)
    result = cli("ingest", "--json", "-", input=encode(document, ascii_only))
    assert "Traceback" not in result.stdout + result.stderr
    assert result.exit_code in (0, 2), result.stderr
    if result.exit_code == 2:
        assert_ingest_refused(result, code=result.json()["files"][0]["error"]["code"])
        assert raw_files(home) == before
