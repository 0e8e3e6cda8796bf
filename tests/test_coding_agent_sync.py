"""``alaya sync claude-code`` and ``alaya sync codex`` on a real store and fixture runtime folders.

The fixtures (``claude_home``, ``codex_home``): two finished sessions and one with a corrupt line each; Claude
Code's also holds a sub-agent transcript beside the sessions and a session folder (skipped), Codex's a stray file
among the rollouts. Both runtimes run through the same cases, parametrised by :class:`Runtime`.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIXTURES

from alaya_engine.foundations.lock import StoreLock
from alaya_engine.foundations.paths import Layout
from alaya_engine.integrations import runtime_sync

HOUR_AGO = time.time() - 3600


@dataclass(frozen=True)
class Runtime:
    name: str
    fixture: str
    folder: str
    env: str
    done: str
    """A finished session (relative to the transcripts folder), its session id, and the other two files."""
    done_id: str
    other: str
    corrupt: str
    skipped: dict
    partial: str
    """A new transcript whose last line is still being written."""

    def appended(self, text: str) -> str:
        """A user message line in this runtime's format."""
        if self.name == "codex":
            return json.dumps({"timestamp": "2026-04-07T11:00:00.000Z", "type": "response_item", "payload": {
                "type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}})
        return json.dumps({"parentUuid": None, "isSidechain": False, "type": "user", "sessionId": self.done_id,
                           "cwd": "/home/dev/projects/billing-api", "uuid": "6f2c1e4a-0099-4099-8000-000000000099",
                           "timestamp": "2026-04-06T11:00:00.000Z", "message": {"role": "user", "content": text}})


CLAUDE = Runtime(
    "claude-code", "claude_home", "projects", "CLAUDE_CONFIG_DIR",
    "-home-dev-projects-billing-api/6f2c1e4a-8b3d-4c5e-9f1a-2b3c4d5e6f70.jsonl",
    "6f2c1e4a-8b3d-4c5e-9f1a-2b3c4d5e6f70",
    "-home-dev-projects-infra/0b7d3f19-2a6c-4e8d-b5f0-7c1e9a2d4b63.jsonl",
    "-home-dev-projects-infra/9e4a6c2b-1d3f-4a5b-8c7d-6e5f4a3b2c1d.jsonl",
    {"session folder": 1, "sub-agent transcript": 1},
    "-home-dev-projects-infra/1f0e2d3c-0000-4000-8000-000000000000.jsonl")
CODEX = Runtime(
    "codex", "codex_home", "sessions", "CODEX_HOME",
    "2026/04/07/rollout-2026-04-07T10-00-00-0199a2b3-7c4d-7e5f-8a6b-9c0d1e2f3a4b.jsonl",
    "0199a2b3-7c4d-7e5f-8a6b-9c0d1e2f3a4b",
    "2026/04/08/rollout-2026-04-08T15-00-00-0199a4c5-1e2f-7a3b-9c4d-5e6f7a8b9c0d.jsonl",
    "2026/04/08/rollout-2026-04-08T16-00-00-0199a5d6-3f4a-7b5c-8d6e-7f8a9b0c1d2e.jsonl",
    {"not a transcript": 1},
    "2026/04/09/rollout-2026-04-09T08-00-00-0199a6e7-0000-7000-8000-000000000000.jsonl")
PARTIAL_FIRST_LINE = {
    "claude-code": '{"type":"user","sessionId":"1f0e2d3c-0000-4000-8000-000000000000","uuid":"u1",'
                   '"timestamp":"2026-04-09T08:00:00.000Z","message":{"role":"user","content":"Why is"}}\n',
    "codex": '{"timestamp":"2026-04-09T08:00:00.000Z","type":"session_meta","payload":{"id":'
             '"0199a6e7-0000-7000-8000-000000000000","timestamp":"2026-04-09T08:00:00.000Z","cwd":"/srv/app"}}\n'}


@pytest.fixture(params=[CLAUDE, CODEX], ids=lambda runtime: runtime.name)
def runtime(request) -> Runtime:
    return request.param


@pytest.fixture
def root(tmp_path, runtime) -> Path:
    """A copy of the runtime's fixture folder whose files were last written an hour ago (sessions that ended)."""
    target = tmp_path / runtime.fixture
    shutil.copytree(FIXTURES / runtime.fixture, target)
    for path in target.rglob("*"):
        os.utime(path, (HOUR_AGO, HOUR_AGO))
    return target


def sync(cli, runtime: Runtime, root: Path, *args: str) -> tuple[int, dict]:
    result = cli("sync", runtime.name, "--dir", str(root), "--json", *args)
    return result.exit_code, json.loads(result.stdout)


def changes(document: dict) -> dict[str, tuple[str, str]]:
    folder = Path(document["transcripts_dir"])
    return {Path(c["path"]).relative_to(folder).as_posix(): (c["change"], c["status"]) for c in document["changes"]}


def stored(home: Path, session_id: str) -> dict:
    [path] = (home / "raw" / "sessions").glob(f"*/session-{session_id}.json")
    return json.loads(path.read_text())


def session_id(runtime: Runtime) -> str:
    return ("claude-" if runtime.name == "claude-code" else "codex-") + runtime.done_id


def test_first_sync_ingests_the_sessions_refuses_the_corrupt_one_and_skips_the_rest(cli, home, runtime, root):
    code, document = sync(cli, runtime, root)
    assert code == 2, "a refused transcript makes the run exit 2, like ingest"
    assert changes(document) == {runtime.done: ("new", "ingested"), runtime.other: ("new", "ingested"),
                                 runtime.corrupt: ("new", "refused")}
    [refused] = [c for c in document["changes"] if c["status"] == "refused"]
    assert refused["error"]["code"] == "bad_session"
    assert refused["error"]["message"].startswith("line 3: malformed JSON" if runtime is CLAUDE
                                                  else "line 4: malformed JSON")
    assert document["error"] == {"code": "bad_session", "message": f"1 of 3 transcripts refused; first "
                                                                   f"{refused['path']}: {refused['error']['message']}"}
    assert document["skipped"] == runtime.skipped
    assert document["runtime"] == runtime.name and document["agents"] == [runtime.name]
    assert document["transcripts_dir"] == str(root / runtime.folder)
    assert cli("status", "--json").json()["l3"]["sessions"] == 2
    session = stored(home, session_id(runtime))
    assert session["agent"] == runtime.name and session["channel"] in ("billing-api", "payments")
    assert Layout(home).sync_state(runtime.name).is_file()


def test_nothing_changed_means_stat_only(cli, home, runtime, root, monkeypatch):
    sync(cli, runtime, root)
    state_file = Layout(home).sync_state(runtime.name)
    written = state_file.stat().st_mtime_ns

    def tripwire(*args, **kwargs):
        raise AssertionError("an unchanged run must not read transcripts or open a backend")

    monkeypatch.setattr(runtime_sync, "read_content", tripwire)
    monkeypatch.setattr("alaya_engine.server.backend.open_backend", tripwire)
    code, document = sync(cli, runtime, root)
    assert code == 0 and document["changes"] == [] and document["unchanged"] == 3
    assert state_file.stat().st_mtime_ns == written, "nothing changed, so the bookkeeping is not rewritten"
    text = cli("sync", runtime.name, "--dir", str(root)).stdout
    assert text.startswith("nothing changed: 3 unchanged · ") and f"{root / runtime.folder} ({runtime.name})" in text


def test_a_growing_session_waits_until_it_is_quiet_then_is_replaced(cli, home, runtime, root):
    sync(cli, runtime, root)
    growing = root / runtime.folder / runtime.done
    with growing.open("a", encoding="utf-8") as handle:
        handle.write(runtime.appended("And the staging database too?") + "\n")
    code, document = sync(cli, runtime, root)
    assert code == 0 and changes(document) == {runtime.done: ("grown", "waiting")}
    assert cli("sync", runtime.name, "--dir", str(root)).stdout.startswith(
        f"… {runtime.done}: grown, active 0 min ago → ingested once quiet for 30 min")

    os.utime(growing, (HOUR_AGO + 600, HOUR_AGO + 600))
    code, document = sync(cli, runtime, root)
    assert changes(document) == {runtime.done: ("grown", "replaced")}
    assert stored(home, session_id(runtime))["turns"][-1]["content"] == "And the staging database too?"
    assert sync(cli, runtime, root)[1]["changes"] == []


def test_a_refused_file_is_retried_only_when_it_changes(cli, runtime, root):
    sync(cli, runtime, root)
    assert sync(cli, runtime, root)[1]["changes"] == []
    corrupt = root / runtime.folder / runtime.corrupt
    lines = corrupt.read_text().splitlines()
    broken = 2 if runtime is CLAUDE else 3
    corrupt.write_text("\n".join(lines[:broken] + lines[broken + 1:]) + "\n")
    os.utime(corrupt, (HOUR_AGO + 60, HOUR_AGO + 60))
    code, document = sync(cli, runtime, root)
    assert code == 0 and changes(document) == {runtime.corrupt: ("changed", "ingested")}


def test_a_new_transcript_still_being_written_waits(cli, runtime, root):
    partial = root / runtime.folder / runtime.partial
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text(PARTIAL_FIRST_LINE[runtime.name] + '{"type":"assistant","mess')
    code, document = sync(cli, runtime, root)
    assert changes(document)[runtime.partial] == ("new", "waiting")
    os.utime(partial, (HOUR_AGO, HOUR_AGO))
    code, document = sync(cli, runtime, root)
    assert changes(document)[runtime.partial] == ("new", "refused"), "quiet for long, still cut: refused, named"
    assert [c["error"]["message"] for c in document["changes"] if c["status"] == "refused"][0].startswith("line 2:")


def test_a_last_line_without_a_line_break_is_taken_when_whole_and_include_active_takes_a_cut_one(cli, runtime,
                                                                                                 tmp_path):
    """A new transcript whose last line lacks a line break waited even with ``--include-active``, which its
    ``waiting`` line offers: a whole JSON object there is a finished line, and ``--include-active`` takes a cut one."""
    root = tmp_path / runtime.fixture
    whole = root / runtime.folder / runtime.done
    whole.parent.mkdir(parents=True)
    whole.write_text((FIXTURES / runtime.fixture / runtime.folder / runtime.done).read_text().rstrip("\n"))
    partial = root / runtime.folder / runtime.partial
    partial.parent.mkdir(parents=True, exist_ok=True)
    partial.write_text(PARTIAL_FIRST_LINE[runtime.name] + '{"type":"assistant","mess')
    code, document = sync(cli, runtime, root)
    assert changes(document) == {runtime.done: ("new", "ingested"), runtime.partial: ("new", "waiting")}
    code, document = sync(cli, runtime, root, "--include-active")
    assert code == 2 and changes(document) == {runtime.partial: ("new", "refused")}
    assert document["changes"][0]["error"]["message"].startswith("line 2: malformed JSON")


@pytest.mark.parametrize("runtime", [CODEX], ids=["codex"])
def test_bookkeeping_of_the_wrong_shape_is_started_afresh_with_one_warning(cli, home, runtime, root):
    """Valid JSON with a field of the wrong type (``"size": "x"``) made every later sync an internal error."""
    sync(cli, runtime, root)
    state_file = Layout(home).sync_state(runtime.name)
    state = json.loads(state_file.read_text())
    state["files"][str(root / runtime.folder / runtime.done)]["size"] = "x"
    state_file.write_text(json.dumps(state))
    result = cli("sync", runtime.name, "--dir", str(root), "--json")
    document = result.json()
    [warning] = document["warnings"]
    assert warning.startswith(f"sync bookkeeping {state_file} is unreadable (") and "field 'size'" in warning
    assert [line for line in result.stderr.splitlines() if line.startswith("warning:")] == [f"warning: {warning}"]
    assert changes(document) == {runtime.done: ("new", "unchanged"), runtime.other: ("new", "unchanged"),
                                 runtime.corrupt: ("new", "refused")}, "every file read again, nothing stored twice"
    code, document = sync(cli, runtime, root)
    assert code == 0 and document["warnings"] == [] and document["changes"] == [], "said once, then as before"


@pytest.mark.parametrize("runtime", [CLAUDE], ids=["claude-code"])
def test_symbolic_links_are_not_followed_and_files_over_the_size_limit_are_not_read(cli, home, runtime, root,
                                                                                    tmp_path):
    """A linked project folder's transcript from outside was ingested, and a 3 GB sparse file hashed on every run
    (5-12 s) only for ingest to refuse it: links are skipped as ``import-memex`` skips them, big files by their stat.
    The file here is 64 GB (sparse): read, it would take minutes, so a generous bound cannot fail on a busy machine."""
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    stranger = outside / "0b7d3f20-2a6c-4e8d-b5f0-7c1e9a2d4b63.jsonl"
    stranger.write_text((root / runtime.folder / runtime.other).read_text().replace("0b7d3f19", "0b7d3f20"))
    projects = root / runtime.folder
    (projects / "-home-dev-projects-linked").symlink_to(outside, target_is_directory=True)
    (projects / Path(runtime.done).parent / "linked.jsonl").symlink_to(stranger)
    with open(projects / Path(runtime.other).parent / "huge.jsonl", "wb") as huge:
        huge.truncate(64 * 2**30)
    config = json.loads((home / "config.json").read_text())
    config["ingest"]["max_file_mb"] = 1
    (home / "config.json").write_text(json.dumps(config))
    code, document = sync(cli, runtime, root)
    assert set(changes(document)) == {runtime.done, runtime.other, runtime.corrupt}
    assert document["skipped"] == {**runtime.skipped, "symbolic link": 2, "over ingest.max_file_mb": 1}
    assert document["elapsed_ms"] < 30_000, "the big file is skipped by its size, not read"
    assert cli("status", "--json").json()["l3"]["sessions"] == 2
    text = cli("sync", runtime.name, "--dir", str(root)).stdout
    assert "5 skipped (1 over ingest.max_file_mb, 1 session folder, 1 sub-agent transcript, 2 symbolic link)" in text


def test_folder_from_the_environment_and_a_missing_one(cli, runtime, root, tmp_path, monkeypatch):
    monkeypatch.setenv(runtime.env, str(root))
    result = cli("sync", runtime.name, "--json")
    assert result.exit_code == 2 and result.json()["state_dir"] == str(root)
    missing = cli("sync", runtime.name, "--dir", str(tmp_path / "nowhere"), "--json")
    assert missing.exit_code == 2 and missing.json()["error"]["code"] == "not_found"
    assert runtime.env in missing.json()["error"]["message"]


def test_an_overlapping_run_does_nothing_and_says_so_while_other_runtimes_still_sync(cli, home, runtime, root):
    layout = Layout(home)
    layout.sync_lock(runtime.name).parent.mkdir(parents=True, exist_ok=True)
    with StoreLock(layout.sync_lock(runtime.name), wait_seconds=0):
        result = cli("sync", runtime.name, "--dir", str(root))
        other = CODEX if runtime is CLAUDE else CLAUDE
        other_root = root.parent / other.fixture
        shutil.copytree(FIXTURES / other.fixture, other_root)
        assert sync(cli, other, other_root)[1]["ingested"] == 2, "one lock per runtime"
    assert result.exit_code == 0 and result.stdout.startswith(f"another `alaya sync {runtime.name}` is running")
    assert not layout.sync_state(runtime.name).exists()


def test_distill_flag_distills_what_was_ingested(cli, runtime, root):
    code, document = sync(cli, runtime, root, "--distill")
    assert code == 2 and document["distill"]["sessions_failed"] == 0
    outcomes = {outcome["session_id"]: outcome for outcome in document["distill"]["sessions"]}
    assert outcomes[session_id(runtime)]["status"] == "distilled" and len(outcomes[session_id(runtime)]["cards"]) >= 2
