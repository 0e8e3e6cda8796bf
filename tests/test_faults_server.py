"""The owner server under faults: a failed start-up, a stopped server, idle and deleted sockets, a lost home,
a flood of clients, a read-only home, hostile requests. Real server processes, real files, real faults; every
wait has a deadline, and every server a test started is killed when it ends (continued first if stopped)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_server import alive, server_env, wait_for

from alaya_engine.foundations.paths import Layout

pytestmark = pytest.mark.slow


def run(home: Path, *args: str | bytes, timeout: float = 90, env: dict | None = None,
        input: str | None = None) -> subprocess.CompletedProcess:
    """``alaya --home HOME ARGS`` through the owner server; ``.elapsed`` is how long it took."""
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), *args], input=input,
                            capture_output=True, text=True, timeout=timeout, env=env or server_env())
    result.elapsed = time.monotonic() - started
    return result


def owner(home: Path) -> int | None:
    """The pid holding the store's lock, if any (read here, not through the code under test)."""
    try:
        fd = os.open(home / "alaya.lock", os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return json.loads(os.pread(fd, 4096, 0) or b"{}").get("pid")
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def resume(pid: int) -> None:
    """SIGCONT a process a test stopped (it may be gone by now)."""
    try:
        os.kill(pid, signal.SIGCONT)
    except ProcessLookupError:
        pass


def kill_owner(home: Path) -> None:
    """Kill the store's server, if one runs, and remove the socket it leaves behind (long test homes keep theirs
    in the shared /tmp/alaya-<uid>)."""
    pid = owner(home)
    if pid and alive(pid):
        resume(pid)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        wait_for(lambda: not alive(pid), 30)
    Layout(home).socket.unlink(missing_ok=True)


def set_config(home: Path, section: str, **values) -> None:
    config = json.loads((home / "config.json").read_text())
    config[section].update(values)
    (home / "config.json").write_text(json.dumps(config))


def one_line_error(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    return lines[0]


def exchange(home: Path, line: bytes, timeout: float = 30) -> list[dict]:
    """Send raw bytes to the server's socket and read every message of the reply (strict JSON: no NaN)."""
    def no_constants(name: str):
        raise ValueError(f"{name} is not JSON")

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(timeout)
        connection.connect(str(Layout(home).socket))
        connection.sendall(line)
        received = b""
        while chunk := connection.recv(1 << 16):
            received += chunk
    return [json.loads(part, parse_constant=no_constants) for part in received.splitlines() if part]


def request_line(method: str | list, params: dict, **extra) -> bytes:
    from alaya_engine import __version__

    return (json.dumps({"v": 1, "id": 1, "method": method, "params": params, "client_version": __version__,
                        **extra}) + "\n").encode()


@pytest.fixture
def store(demo_home):
    """A demo store whose server, whatever state a test left it in, is killed at the end."""
    demo_home.chmod(0o700)
    yield demo_home
    kill_owner(demo_home)


def started(home: Path) -> int:
    result = run(home, "status", "--json")
    assert result.returncode == 0, result.stderr
    pid = owner(home)
    assert pid and alive(pid)
    return pid


# 1. A server whose start-up fails exits at once, releasing lock and socket, and the client names the cause.

def _truncate_card_vectors(home: Path) -> None:
    """Cut every data file of the table in half: which of them the current version reads depends on the writes
    before (cool-down moves COLD cards' vectors to another table), and a fixed length is no cut once a file is
    shorter."""
    for data in (home / "lancedb" / "card_vectors.lance" / "data").glob("*.lance"):
        os.truncate(data, data.stat().st_size // 2)


def _embedding_endpoint(home: Path, base_url: str, key_env: str) -> None:
    """Point the store at an OpenAI-compatible endpoint (the store's manifest says it was built with it)."""
    set_config(home, "embedding", provider="openai", base_url=base_url, model="fault-test", dimensions=512,
               api_key_env=key_env)
    manifest = json.loads((home / "store.json").read_text())
    manifest["embedding"]["name"] = "openai:fault-test"
    (home / "store.json").write_text(json.dumps(manifest))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("fault", ["damaged_vectors", "api_key_unset", "endpoint_down"])
def test_a_server_that_cannot_start_exits_and_the_client_names_the_cause(store, fault):
    env = server_env()
    if fault == "damaged_vectors":
        _truncate_card_vectors(store)
        expected, code = ("LanceDB table card_vectors is damaged", "run alaya rebuild --l1"), 1
    elif fault == "api_key_unset":
        env.pop("ALAYA_FAULT_KEY", None)
        _embedding_endpoint(store, "http://127.0.0.1:9/v1", "ALAYA_FAULT_KEY")
        expected, code = ("ALAYA_FAULT_KEY is not set",), 2
    else:
        url = f"http://127.0.0.1:{_closed_port()}/v1"
        env["ALAYA_FAULT_KEY"] = "sk-fault-test"
        _embedding_endpoint(store, url, "ALAYA_FAULT_KEY")
        set_config(store, "embedding", max_retries=1)  # the default five retries wait ~15 s; the message is the same
        expected, code = (f"embedding endpoint {url}", "after 2 attempts", "Connection refused"), 1
    result = run(store, "recall", "--json", "gateway restart", timeout=60, env=env)
    assert result.returncode == code, result.stderr
    line = one_line_error(result)
    assert all(part in line for part in expected), line
    assert "cannot start" in json.loads(result.stdout)["error"]["message"]
    assert owner(store) is None, "the failed server still holds the store"
    assert not Layout(store).socket.exists()
    assert result.elapsed < 30, f"the client waited {result.elapsed:.1f} s"
    again = run(store, "server", "status", timeout=30, env=env)
    assert again.returncode == 0 and "no server running" in again.stdout


# 2. Clients give up on a stopped server after the configured time, and say how to recover.

def test_a_stopped_server_makes_every_client_give_up_and_restart_recovers(store):
    set_config(store, "server", connect_timeout=1.0, request_timeout=2.0)
    pid = started(store)
    os.kill(pid, signal.SIGSTOP)
    try:
        for args in (("recall", "--json", "gateway restart"), ("status",), ("link", "a", "b", "--rel", "X")):
            result = run(store, *args, timeout=60)
            line = one_line_error(result)
            assert result.returncode == 1, (args, result.stderr)
            assert "sent nothing for 2 s" in line and "alaya server restart" in line, line
            assert result.elapsed < 12, f"{args} waited {result.elapsed:.1f} s"
        restart = run(store, "server", "restart", timeout=60)
    finally:
        resume(pid)
    assert restart.returncode == 0, restart.stderr
    assert not alive(pid) and owner(store) not in (None, pid)
    assert run(store, "recall", "--json", "gateway restart").returncode == 0


def test_a_long_job_that_the_server_keeps_working_on_is_not_inactive(store):
    """Heartbeats: a request far longer than ``request_timeout`` (a full re-distillation) runs to its end."""
    set_config(store, "server", request_timeout=2.0)
    started(store)
    result = run(store, "distill", "--force", "--json", timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["sessions_distilled"] > 10, result.stdout
    if result.elapsed <= 2.0:
        pytest.skip(f"the job took {result.elapsed:.1f} s here, too short to prove anything")


# 3. One idle connection does not block shutdown, and stop tells the truth.

def test_an_idle_connection_does_not_hold_up_stop(store):
    pid = started(store)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as idle:
        idle.settimeout(30)
        idle.connect(str(Layout(store).socket))
        idle.sendall(b'{"v": 1, "id": 1, "method": "sta')
        stop = run(store, "server", "stop", timeout=60)
        assert stop.returncode == 0, stop.stderr
        assert stop.stdout.startswith("✓ server stopped") and not alive(pid) and owner(store) is None
        assert stop.elapsed < 10, f"stop took {stop.elapsed:.1f} s"
        reply = idle.recv(1 << 16)
    assert not reply or json.loads(reply)["error"]["code"] == "server_stopping"


# 4. A deleted socket, a deleted or replaced home: no orphan.

def test_a_server_whose_socket_is_deleted_exits_and_releases_the_store(store):
    pid = started(store)
    Layout(store).socket.unlink()
    assert wait_for(lambda: not alive(pid) and owner(store) is None, 10), "the orphan still holds the store"
    assert run(store, "recall", "--json", "gateway restart").returncode == 0


def test_status_and_stop_find_a_server_that_no_longer_answers_on_its_socket(store):
    pid = started(store)
    os.kill(pid, signal.SIGSTOP)
    try:
        Layout(store).socket.unlink()
        status = run(store, "server", "status", timeout=60)
        assert status.returncode == 1 and f"pid {pid}" in one_line_error(status) and "server stop" in status.stderr
        stop = run(store, "server", "stop", timeout=60)
    finally:
        resume(pid)
    assert stop.returncode == 0 and f"pid {pid}" in stop.stdout, stop.stderr
    assert not alive(pid) and owner(store) is None


@pytest.mark.parametrize("loss", ["deleted", "replaced"])
def test_a_server_whose_home_is_deleted_or_replaced_exits(store, loss):
    pid = started(store)
    if loss == "deleted":
        shutil.rmtree(store)
    else:
        moved = store.with_name("moved-away")
        store.rename(moved)
        shutil.copytree(moved, store, ignore=shutil.ignore_patterns("alaya.sock"))
    assert wait_for(lambda: not alive(pid), 10), "an orphan server outlived its home"


# 5. A flood of clients: every one answered or refused cleanly, the server alive, the counts exact.

def test_300_concurrent_clients_are_all_answered_or_refused_and_the_server_survives(store):
    """Through the real client (which asks a busy server again for up to ``connect_timeout``)."""
    from alaya_engine.foundations.errors import AlayaError
    from alaya_engine.server.client import ServerClient

    pid = started(store)
    before = json.loads(run(store, "server", "status", "--json").stdout)["requests_served"]
    outcomes: list[str] = []
    barrier = threading.Barrier(300, timeout=60)

    def client(number: int) -> None:
        try:
            connection = ServerClient(store)
            barrier.wait()
            outcome = "answered" if connection.call("recall", {"request": {"text": f"docker oom {number}"}})[
                "nodes"] else "empty"
        except AlayaError as error:
            outcome = error.code
        except Exception as error:  # counted, and reported below
            outcome = f"failed: {type(error).__name__}: {error}"
        outcomes.append(outcome)

    threads = [threading.Thread(target=client, args=(number,)) for number in range(300)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    counts = {outcome: outcomes.count(outcome) for outcome in set(outcomes)}
    assert len(outcomes) == 300 and set(counts) <= {"answered", "server_busy"}, counts
    assert alive(pid) and owner(store) == pid
    after = json.loads(run(store, "server", "status", "--json").stdout)["requests_served"]
    assert after - before - 1 == counts["answered"], (before, after, counts)
    assert "BLAS" not in (store / "logs" / "server.log").read_text(errors="replace")


# 7. A read-only home: one line, exit 1, never a traceback or "internal".

@pytest.fixture
def read_only(store):
    """The store's folder mounted read-only over itself (as root in a container: skip where not permitted)."""
    mounted = subprocess.run(["mount", "--bind", str(store), str(store)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        if subprocess.run(["mount", "-o", "remount,ro,bind", str(store)], capture_output=True).returncode != 0:
            pytest.skip("cannot remount read-only here")
        yield store
    finally:
        subprocess.run(["umount", "-l", str(store)], capture_output=True)


def test_a_read_only_home_gives_one_line_and_exit_1(read_only):
    for args in (("recall", "--json", "gateway restart"), ("status",), ("status", "--json")):
        result = run(read_only, *args, timeout=60)
        assert result.returncode == 1, (args, result.stdout, result.stderr)
        line = one_line_error(result)
        assert "read-only" in line.lower() or "permission" in line.lower(), line
        if "--json" in args:
            assert json.loads(result.stdout)["error"]["code"] != "internal"


# Smaller: long homes, a broken config, hostile requests.

def test_a_home_with_a_long_path_is_served_through_a_short_private_socket(store, tmp_path):
    deep = tmp_path / ("d" * 60) / ("e" * 60) / "home"
    deep.parent.mkdir(parents=True)
    shutil.move(store, deep)
    try:
        result = run(deep, "recall", "--json", "gateway restart")
        assert result.returncode == 0, result.stderr
        path = Layout(deep).socket
        assert len(str(path)) < 100 and path.parent.stat().st_mode & 0o777 == 0o700
        assert json.loads((deep / "server.pid").read_text())["socket"] == str(path)
    finally:
        kill_owner(deep)


def test_an_invalid_config_exits_2_with_the_cause_through_the_server_and_without(store):
    (store / "config.json").write_text("{not json")
    for extra in ((), ("--no-server",)):
        result = run(store, *extra, "recall", "--json", "gateway restart", timeout=60)
        assert result.returncode == 2, (extra, result.stderr)
        assert "config.json is not valid JSON" in one_line_error(result) and "within" not in result.stderr
        assert result.elapsed < 20


HOSTILE_REQUESTS = {
    "nan_id": (b'{"v": 1, "id": NaN, "method": "server.status"}\n', "result"),
    "paths_string": (request_line("ingest", {"paths": "/etc/passwd"}), "bad_request"),
    "bad_base64": (request_line("ingest", {"paths": ["-"], "stdin_b64": "not base64 at all!"}), "bad_request"),
    "sessions_number": (request_line("distill", {"sessions": 5}), "bad_request"),
    "deep_nesting": (b'{"v": 1, "id": 1, "method": "status", "params": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n",
                     "bad_request"),
    "not_utf8": (b"\xff\xfe not utf-8\n", "bad_request"),
    "method_list": (request_line(["status"], {}), "bad_request"),
}


def test_hostile_requests_get_a_clean_json_answer_quickly(store):
    """Each gets one strict-JSON reply (no NaN echoed) in seconds, never ``internal`` or a closed connection, and
    the server goes on serving."""
    pid = started(store)
    for name, (line, expected) in HOSTILE_REQUESTS.items():
        began = time.monotonic()
        reply = exchange(store, line)[-1]
        assert time.monotonic() - began < 10, name
        assert reply["result" if expected == "result" else "error"], (name, reply)
        assert expected == "result" or reply["error"]["code"] == expected, (name, reply)
        assert reply["id"] in (1, None), (name, reply)
    assert run(store, "recall", "--json", "gateway restart").returncode == 0 and owner(store) == pid


# From the newcomer issue (#22): the busy message's remedy, memory figures.

def test_a_store_held_by_the_server_names_it_and_says_how_to_stop_it(store):
    started(store)
    set_config(store, "lock", wait_seconds=0.2)
    blocked = run(store, "--no-server", "status")
    assert blocked.returncode == 1
    line = one_line_error(blocked)
    assert "alaya serve (owner server" in line and "server stop" in line and "lock.wait_seconds" not in line


def test_server_status_never_shows_a_peak_below_the_current_memory(store):
    started(store)
    status = json.loads(run(store, "server", "status", "--json").stdout)
    assert status["peak_rss_mb"] >= status["rss_mb"] > 0


def test_ingest_from_stdin_through_the_server_still_works(store, tmp_path):
    """The stricter parameter checks keep the real client's requests (base64 stdin, a list of paths) working."""
    from conftest import write_session

    session = write_session(tmp_path, "session-faults-0001").read_text()
    result = run(store, "ingest", "-", "--json", input=session)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["files"][0]["status"] == "ingested"


def test_mcp_answers_malformed_lines_with_json_rpc_errors(store):
    """A line that is not JSON gets -32700 and JSON that is not a message -32600; the session goes on."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                  "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                             "clientInfo": {"name": "faults", "version": "1"}}}
    lines = "not json\n" + '{"a": 1}\n' + json.dumps(initialize) + "\n"
    result = subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(store), "mcp"], input=lines,
                            capture_output=True, text=True, timeout=60, env=server_env(ALAYA_NO_SERVER="1"))
    replies = [json.loads(line) for line in result.stdout.splitlines()]
    assert [reply.get("error", {}).get("code") for reply in replies] == [-32700, -32600, None], replies
    assert replies[2]["id"] == 1 and replies[2]["result"]["serverInfo"]["name"] == "alaya"


@pytest.mark.parametrize("fresh", [False, True], ids=["again", "fresh"])
def test_demo_runs_again_while_its_server_is_up(store, fresh):
    """The demo's own server is stopped first (it starts again on demand); ``--fresh`` never deletes a store
    under a live server."""
    pid = started(store)
    result = run(store, "demo", "--demo-home", str(store), "--no-tui", "--json", *(["--fresh"] if fresh else []),
                 timeout=180)
    assert result.returncode == 0, result.stderr
    assert not alive(pid) and json.loads(result.stdout)["status"]["l2"]["cards"] > 0
    assert run(store, "recall", "--json", "gateway restart").returncode == 0


def test_the_clients_default_timeouts_are_the_configs():
    from alaya_engine.foundations.config import DEFAULTS
    from alaya_engine.server import protocol

    assert (protocol.CONNECT_TIMEOUT, protocol.REQUEST_TIMEOUT) == (DEFAULTS["server"]["connect_timeout"],
                                                                    DEFAULTS["server"]["request_timeout"])
    assert protocol.DEFAULT_MAX_SESSION_BYTES == DEFAULTS["ingest"]["max_file_mb"] * 1_000_000


# The hostile-input properties (tests/test_hostile_*.py run them in-process) through a live server as well.

@pytest.fixture
def live_client(store):
    from alaya_engine.server.client import ServerClient

    pid = started(store)
    yield ServerClient(store)
    assert alive(pid) and owner(store) == pid, "a hostile request took the server down"


def test_any_recall_request_through_the_server_is_an_answer_or_a_clean_refusal(live_client):
    from hypothesis import HealthCheck, given, settings
    from test_hostile_recall_config import recall_requests

    from alaya_engine.foundations.errors import AlayaError

    @settings(max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(recall_requests)
    def check(document):
        try:
            assert "nodes" in live_client.call("recall", {"request": document})
        except AlayaError as error:
            assert error.code in ("bad_query", "bad_relation", "unknown_card", "unknown_relation"), error.message
            assert error.exit_code == 2 and "\n" not in error.message

    check()
    for args in (("recall", "--json", b"a\xffb"), ("recall", b"a\xffb")):  # an argument that is not UTF-8
        result = run(live_client.home, *args)
        assert result.returncode == 2 and "not valid UTF-8" in one_line_error(result), result.stderr


def test_any_session_document_through_the_server_is_stored_or_refused_in_one_line(live_client):
    import base64

    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from test_hostile_sessions import encode, seed_documents

    @settings(max_examples=40, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed_documents, st.booleans())
    def check(document, ascii_only):
        data = base64.b64encode(encode(document, ascii_only)).decode("ascii")
        (outcome,) = live_client.call("ingest", {"paths": ["-"], "stdin_b64": data})["files"]
        assert outcome["status"] in ("ingested", "unchanged", "replaced", "refused"), outcome
        assert outcome["status"] != "refused" or (outcome["error"] and "\n" not in outcome["error"]), outcome

    check()
