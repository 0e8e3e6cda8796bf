"""``alaya sync openclaw`` on a real store and a fixture OpenClaw state folder.

The fixture: agents ``main`` and ``work``; a finished session, one that keeps growing, a ``.reset.`` archive from
before Alaya, a trajectory sidecar and ``sessions.json`` (skipped), and a transcript with a corrupt line.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES

from alaya_engine.foundations.lock import StoreLock
from alaya_engine.foundations.paths import Layout
from alaya_engine.integrations import runtime_sync

MAIN_DONE = "main/sessions/1a0c7f52-6d1e-4b8a-9f3c-0e2d4b6a8c10.jsonl"
MAIN_GROWING = "main/sessions/2b7e4a10-3c5d-4e6f-8a9b-1c2d3e4f5a6b.jsonl"
WORK_DONE = "work/sessions/4d2e6f80-9a1b-4c2d-8e3f-5a6b7c8d9e0f.jsonl"
WORK_CORRUPT = "work/sessions/5e8f0a1b-2c3d-4e5f-9a0b-1c2d3e4f5a6b.jsonl"
GROWING_ID = "2b7e4a10-3c5d-4e6f-8a9b-1c2d3e4f5a6b"
HOUR_AGO = time.time() - 3600


@pytest.fixture
def state(tmp_path) -> Path:
    """A copy of the fixture state folder whose files were last written an hour ago (sessions that ended)."""
    target = tmp_path / "openclaw"
    shutil.copytree(FIXTURES / "openclaw_state", target)
    for path in target.rglob("*"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    return target


def sync(cli, state: Path, *args: str) -> tuple[int, dict]:
    result = cli("sync", "openclaw", "--state-dir", str(state), "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def changes(document: dict) -> dict[str, tuple[str, str]]:
    agents = Path(document["state_dir"]) / "agents"
    return {str(Path(c["path"]).relative_to(agents)): (c["change"], c["status"]) for c in document["changes"]}


def append_message(path: Path, text: str, when: float) -> None:
    line = {"type": "message", "id": f"x{int(when)}", "parentId": None, "timestamp": "2026-04-02T09:40:00.000Z",
            "message": {"role": "user", "content": [{"type": "text", "text": text}]}}
    with path.open("a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    os.utime(path, (when, when))


def stored_turns(home: Path, session_id: str) -> list[str]:
    [path] = (home / "raw" / "sessions").glob(f"*/session-{session_id}.json")
    return [turn["content"] for turn in json.loads(path.read_text())["turns"]]


def test_first_sync_ingests_both_agents_and_skips_what_is_not_a_session(cli, home, state):
    code, document = sync(cli, state)
    assert code == 2, "a refused transcript makes the run exit 2, like ingest"
    assert changes(document) == {MAIN_DONE: ("new", "ingested"), MAIN_GROWING: ("new", "ingested"),
                                 WORK_DONE: ("new", "ingested"), WORK_CORRUPT: ("new", "refused")}
    [refused] = [c for c in document["changes"] if c["status"] == "refused"]
    assert (refused["error"]["code"] == "bad_session"
            and refused["error"]["message"].startswith("line 4: malformed JSON"))
    assert document["skipped"] == {"not a transcript": 2, "reset archive": 1, "sidecar": 1}
    assert document["agents"] == ["main", "work"] and document["ingested"] == 3
    status = cli("status", "--json").json()
    assert status["l3"]["sessions"] == 3
    [work_file] = (home / "raw" / "sessions").glob("*/session-4d2e6f80-*.json")
    assert json.loads(work_file.read_text())["agent"] == "work"


def test_nothing_changed_means_stat_only(cli, home, state, monkeypatch):
    sync(cli, state)
    state_file = Layout(home).sync_state("openclaw")
    written = state_file.stat().st_mtime_ns

    def tripwire(*args, **kwargs):
        raise AssertionError("an unchanged run must not read transcripts or open a backend")

    monkeypatch.setattr(runtime_sync, "read_content", tripwire)
    monkeypatch.setattr("alaya_engine.server.backend.open_backend", tripwire)
    code, document = sync(cli, state)
    assert code == 0 and document["changes"] == [] and document["unchanged"] == 4
    assert state_file.stat().st_mtime_ns == written, "nothing changed, so the bookkeeping is not rewritten"


def test_a_touched_file_is_hashed_but_not_ingested_again(cli, state, monkeypatch):
    sync(cli, state)
    os.utime(state / "agents" / MAIN_DONE, (HOUR_AGO - 60, HOUR_AGO - 60))
    monkeypatch.setattr("alaya_engine.server.backend.open_backend", lambda *a: pytest.fail("same content: no ingest"))
    code, document = sync(cli, state)
    assert code == 0 and document["changes"] == [] and document["unchanged"] == 4


def test_a_growing_session_waits_until_it_is_quiet_then_is_replaced(cli, home, state):
    sync(cli, state)
    growing = state / "agents" / MAIN_GROWING
    append_message(growing, "And the weekly report too?", time.time())
    code, document = sync(cli, state)
    assert code == 0 and changes(document) == {MAIN_GROWING: ("grown", "waiting")}
    assert "And the weekly report too?" not in stored_turns(home, GROWING_ID)
    assert cli("sync", "openclaw", "--state-dir", str(state)).stdout.startswith(
        f"… {MAIN_GROWING}: grown, active 0 min ago → ingested once quiet for 30 min")

    os.utime(growing, (HOUR_AGO + 600, HOUR_AGO + 600))
    code, document = sync(cli, state)
    assert changes(document) == {MAIN_GROWING: ("grown", "replaced")}
    assert stored_turns(home, GROWING_ID)[-1] == "And the weekly report too?"
    assert sync(cli, state)[1]["changes"] == []


def test_include_active_replaces_a_live_session_at_once(cli, home, state):
    sync(cli, state)
    append_message(state / "agents" / MAIN_GROWING, "One more thing.", time.time())
    code, document = sync(cli, state, "--include-active")
    assert code == 0 and changes(document) == {MAIN_GROWING: ("grown", "replaced")}
    assert stored_turns(home, GROWING_ID)[-1] == "One more thing."


def test_idle_minutes_come_from_config(cli, home, state):
    sync(cli, state)
    config = json.loads((home / "config.json").read_text())
    config["sync"] = {"session_idle_minutes": 0}
    (home / "config.json").write_text(json.dumps(config))
    append_message(state / "agents" / MAIN_GROWING, "Right away.", time.time())
    assert changes(sync(cli, state)[1]) == {MAIN_GROWING: ("grown", "replaced")}
    config["sync"] = {"session_idle_minutes": -5}
    (home / "config.json").write_text(json.dumps(config))
    result = cli("sync", "openclaw", "--state-dir", str(state), "--json")
    assert result.exit_code == 2 and "'sync.session_idle_minutes' is -5; it must be at least 0" in result.stderr


def test_the_reset_archive_of_a_followed_session_is_its_final_version(cli, home, state):
    """``/new`` right after the last message renames the transcript before it was ever quiet."""
    sync(cli, state)
    growing = state / "agents" / MAIN_GROWING
    append_message(growing, "Last words before /new.", time.time())
    archive = growing.with_name(growing.name + ".reset.2026-04-02T09-41-00.000Z")
    growing.rename(archive)
    code, document = sync(cli, state)
    assert code == 0 and changes(document) == {archive.relative_to(state / "agents").as_posix(): ("ended", "replaced")}
    assert document["forgotten"] == 1, "the live transcript's bookkeeping goes with it"
    assert stored_turns(home, GROWING_ID)[-1] == "Last words before /new."
    again = sync(cli, state)[1]
    assert again["changes"] == [] and again["skipped"]["reset archive"] == 1


def test_a_refused_file_is_retried_only_when_it_changes(cli, home, state):
    sync(cli, state)
    assert sync(cli, state)[1]["changes"] == []
    corrupt = state / "agents" / WORK_CORRUPT
    lines = corrupt.read_text().splitlines()
    corrupt.write_text("\n".join(lines[:3] + lines[4:]) + "\n")
    os.utime(corrupt, (HOUR_AGO + 60, HOUR_AGO + 60))
    code, document = sync(cli, state)
    assert code == 0 and changes(document) == {WORK_CORRUPT: ("changed", "ingested")}


def test_a_new_transcript_still_being_written_waits(cli, state):
    partial = state / "agents" / "main" / "sessions" / "6f1a2b3c-0000-4000-8000-000000000000.jsonl"
    partial.write_text('{"type":"session","version":3,"id":"6f1a2b3c-0000-4000-8000-000000000000",'
                       '"timestamp":"2026-04-05T10:00:00.000Z"}\n{"type":"message","mess')
    document = sync(cli, state)[1]
    assert changes(document)["main/sessions/" + partial.name] == ("new", "waiting")


def test_agent_filter_unknown_agent_and_linked_folders(cli, state, tmp_path):
    """Symbolic links are not followed (an agent folder, a sessions folder): nothing outside is read, and the
    ``work`` sessions are not read a second time under ``linked``."""
    agents = state / "agents"
    (agents / "linked").symlink_to(agents / "work", target_is_directory=True)
    (agents / "moved").mkdir()
    (agents / "moved" / "sessions").symlink_to(tmp_path, target_is_directory=True)
    code, document = sync(cli, state, "--agent", "main")
    assert code == 0 and document["agents"] == ["main"] and "symbolic link" not in document["skipped"]
    assert set(changes(document)) == {MAIN_DONE, MAIN_GROWING}
    result = cli("sync", "openclaw", "--state-dir", str(state), "--agent", "ops", "--json")
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"] == {
        "code": "unknown_agent", "message": f"no OpenClaw agent 'ops' in {agents}; found: main, moved, work"}
    linked = cli("sync", "openclaw", "--state-dir", str(state), "--agent", "linked", "--json").json()["error"]
    assert linked["message"] == (f"no OpenClaw agent 'linked' in {agents} (it is a symbolic link, which sync does "
                                 "not follow); found: main, moved, work")
    code, document = sync(cli, state)
    assert document["agents"] == ["main", "moved", "work"] and document["skipped"]["symbolic link"] == 2
    assert set(changes(document)) == {WORK_DONE, WORK_CORRUPT}


def test_state_dir_from_the_environment_and_a_missing_one(cli, state, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))
    result = cli("sync", "openclaw", "--agent", "main", "--json")
    assert result.exit_code == 0 and result.json()["state_dir"] == str(state)
    missing = cli("sync", "openclaw", "--state-dir", str(tmp_path / "nowhere"), "--json")
    assert missing.exit_code == 2 and missing.json()["error"]["code"] == "not_found"


def test_distill_flag_distills_what_was_ingested(cli, state):
    code, document = sync(cli, state, "--agent", "main", "--distill")
    assert code == 0
    assert {outcome["session_id"] for outcome in document["distill"]["sessions"]} == {
        "1a0c7f52-6d1e-4b8a-9f3c-0e2d4b6a8c10", GROWING_ID}


def test_an_overlapping_run_does_nothing_and_says_so(cli, home, state):
    layout = Layout(home)
    layout.sync_lock("openclaw").parent.mkdir(parents=True, exist_ok=True)
    with StoreLock(layout.sync_lock("openclaw"), wait_seconds=0):
        result = cli("sync", "openclaw", "--state-dir", str(state))
    assert result.exit_code == 0 and result.stdout.startswith("another `alaya sync openclaw` is running")
    assert not layout.sync_state("openclaw").exists()


def test_unreadable_bookkeeping_starts_afresh_without_duplicates(cli, home, state):
    sync(cli, state)
    Layout(home).sync_state("openclaw").write_text("{not json")
    code, document = sync(cli, state)
    assert code == 2, "the corrupt transcript is read again and refused again"
    assert {status for _, status in changes(document).values()} == {"unchanged", "refused"}
    assert cli("status", "--json").json()["l3"]["sessions"] == 3


def test_an_unchanged_run_in_a_fresh_process_stays_light(cli, home, state):
    """What cron pays every few minutes: no engine, no owner server, no heavy import."""
    sync(cli, state)
    code = (f"import sys\nfrom alaya_cli import main\nsys.argv = ['alaya', '--home', {str(home)!r}, 'sync', "
            f"'openclaw', '--state-dir', {str(state)!r}]\ntry:\n    main.main()\nexcept SystemExit as done:\n"
            "    assert done.code == 0, done.code\nimport json\nprint(json.dumps(sorted(sys.modules)))")
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True,
                           env={**os.environ, "ALAYA_NO_SERVER": ""})
    loaded = set(json.loads(child.stdout.strip().splitlines()[-1]))
    heavy = {"lancedb", "numpy", "pyarrow", "ladybug", "kuzu", "mcp", "alaya_engine.engine",
             "alaya_engine.server.client"}
    assert not loaded & heavy, loaded & heavy
    assert not Layout(home).socket.exists(), "no owner server was started"
