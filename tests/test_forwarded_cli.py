"""The forwarded command line under faults: real client processes with an environment of their own, a client that
stops reading, a closed stdin, a deleted working folder, Ctrl-C, two ``--home``. Each test drives ``alaya`` as a
person or an agent would, against a real owner server (killed when the test ends)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import FIXTURES
from test_faults_server import kill_owner, one_line_error, owner, resume, set_config
from test_server import server_env, wait_for

from alaya_engine.foundations.paths import Layout

pytestmark = pytest.mark.slow

HOUR_AGO = time.time() - 3600
RUNTIMES = {"codex": ("codex_home", ".codex"), "claude-code": ("claude_home", ".claude"),
            "openclaw": ("openclaw_state", ".openclaw")}
"""Each sync's fixture folder and where it lives under a user's home by default."""


def alaya(*args: str, env: dict, cwd: Path, input: bytes | None = None, timeout: float = 120
          ) -> subprocess.CompletedProcess:
    started = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "alaya_cli", *args], input=input, capture_output=True,
                            timeout=timeout, env=env, cwd=cwd)
    result.elapsed = time.monotonic() - started
    result.stdout, result.stderr = result.stdout.decode(), result.stderr.decode()
    result.out, result.err = result.stdout, result.stderr
    return result


def person(tmp_path: Path, name: str, **extra: str) -> tuple[dict, Path]:
    """An environment with a home folder and a working folder of its own (and nothing of the test's)."""
    user, work = tmp_path / name / "user", tmp_path / name / "work"
    work.mkdir(parents=True)
    user.mkdir(exist_ok=True)
    env = {key: value for key, value in server_env().items() if key not in ("ALAYA_HOME", "HOME")}
    return {**env, "HOME": str(user), **extra}, work


@pytest.fixture
def stores(demo_template, template_home, tmp_path):
    """Store A (a demo memory) at ``tmp_path/A``, its twin for ``--no-server`` at ``tmp_path/twin/A``, and two
    decoys only the server's own environment points at (its ``ALAYA_HOME`` and its ``~/.alaya``)."""
    homes = {"A": tmp_path / "A", "twin": tmp_path / "twin" / "A", "decoy": tmp_path / "decoy",
             "server_default": tmp_path / "server" / "user" / ".alaya"}
    for name, target in homes.items():
        shutil.copytree(demo_template if name in ("A", "twin") else template_home, target)
    yield homes
    kill_owner(homes["A"])


def runtime_folders(user: Path) -> None:
    """The three agent runtimes' transcripts, ended an hour ago, where they live by default under ``user``."""
    for fixture, folder in RUNTIMES.values():
        shutil.copytree(FIXTURES / fixture, user / folder)
        for path in (user / folder).rglob("*"):
            os.utime(path, (HOUR_AGO, HOUR_AGO))


SESSION = json.dumps({"id": "from-stdin", "timestamp": 1764547200000, "turns": [
    {"role": "user", "content": "Our nginx returns 502 after every deploy. Why?"},
    {"role": "assistant", "content": "The cause is proxy_read_timeout: the upstream restarts slower than 60 s."}]})


def test_a_forwarded_command_uses_the_clients_environment_and_folders_never_the_servers(stores, tmp_path):
    server, server_cwd = person(tmp_path, "server", ALAYA_HOME=str(stores["decoy"]))
    started = alaya("--home", str(stores["A"]), "status", env=server, cwd=server_cwd)
    assert started.returncode == 0 and owner(stores["A"]), started.err
    client, client_cwd = person(tmp_path, "client")
    twin, twin_cwd = person(tmp_path / "twin", "client")
    runtime_folders(Path(client["HOME"]))
    runtime_folders(Path(twin["HOME"]))

    def both(*args: str, by_env: bool = False, input: bytes | None = None) -> tuple[dict, dict]:
        """The command through the server (a relative --home, or only $ALAYA_HOME), and in-process on the twin."""
        if by_env:
            served = alaya(*args, "--json", env={**client, "ALAYA_HOME": str(stores["A"])}, cwd=client_cwd,
                           input=input)
        else:
            served = alaya("--home", "../../A", *args, "--json", env=client, cwd=client_cwd, input=input)
        here = alaya("--home", "../../A", "--no-server", *args, "--json", env=twin, cwd=twin_cwd, input=input)
        assert served.returncode == here.returncode, (served.err, here.err)
        assert served.returncode == 0 or args[0] == "sync", served.err  # the fixtures hold a corrupt transcript
        return json.loads(served.out), json.loads(here.out)

    for runtime in RUNTIMES:
        served, here = both("sync", runtime, by_env=runtime == "claude-code")
        assert served["ingested"] == here["ingested"] > 0, runtime
        assert served["transcripts_dir"].startswith(client["HOME"]), served["transcripts_dir"]
        assert (stores["A"] / "sync" / f"{runtime}.json").is_file()
        again = alaya("--home", str(stores["A"]), "sync", runtime, "--json", env=client, cwd=client_cwd)
        assert json.loads(again.out)["ingested"] == 0 and json.loads(again.out)["unchanged"] > 0

    served, here = both("ingest", "-", by_env=True, input=SESSION.encode())
    assert served["ingested"] == here["ingested"] == 1
    served, here = both("backup", "--out", "snapshot.tar.gz")
    assert (client_cwd / "snapshot.tar.gz").is_file() and (twin_cwd / "snapshot.tar.gz").is_file()
    served, here = both("export", "--out", "vault")
    assert (client_cwd / "vault" / "graph.graphml").is_file()
    served, here = both("status")
    assert served["home"] == str(stores["A"]) and here["home"] == str(stores["twin"])
    assert served["l3"]["sessions"] == here["l3"]["sessions"] and served["l2"]["cards"] == here["l2"]["cards"]

    ingest = alaya("--home", "../../A", "ingest", "-", env={**client, "HOME": str(tmp_path)}, cwd=client_cwd,
                   input=SESSION.replace("from-stdin", "shown-with-tilde").encode())
    assert "Saved to ~/A/raw/" in ingest.out, ingest.out  # the client's HOME is ~, not the server's
    recall = alaya("--home", "../../A", "recall", "how long do backups stay", env=client, cwd=client_cwd)
    assert f"Next step: alaya --home {stores['A']} recall" in recall.out, recall.out  # not close: read further

    for decoy in (stores["decoy"], stores["server_default"]):
        assert not (decoy / "sync").exists() or not any((decoy / "sync").iterdir())
    assert not any(server_cwd.iterdir()) and not (tmp_path / "server" / "user" / ".codex").exists()


def huge_session(folder: Path) -> Path:
    """A session whose trace prints ~2 MB: more than a pipe and both sockets' buffers hold."""
    words = "kilo lima mike november oscar papa quebec romeo sierra tango".split()
    turns = [{"role": ("user", "assistant")[i % 2], "content": " ".join(words[(i + j) % 10] for j in range(100_000))}
             for i in range(4)]
    path = folder / "huge.json"
    path.write_text(json.dumps({"id": "huge", "timestamp": 1764547200000, "turns": turns}))
    return path


def long_job(folder: Path, count: int = 30) -> Path:
    """Sessions whose ingest and distill keep the server busy for several heartbeats."""
    folder.mkdir()
    for n in range(count):
        turns = [{"role": "user", "content": f"Service svc-{n} failed after deploy {n}: the cause was a missing "
                                             f"environment variable FEATURE_{n} in the unit file on host h{n}."},
                 {"role": "assistant", "content": f"I decided to add FEATURE_{n} to the template and to check "
                                                  f"every unit with a lint step before deploy {n + 1}."}] * 6
        (folder / f"s{n}.json").write_text(json.dumps({"id": f"job-{n}", "timestamp": 1764547200000 + n,
                                                       "turns": turns}))
    return folder


def test_a_client_that_stops_reading_costs_only_its_own_request(demo_home, tmp_path):
    home = demo_home
    env = server_env()
    run = lambda *args, **kw: alaya("--home", str(home), *args, env=env, cwd=tmp_path, **kw)  # noqa: E731
    try:
        assert run("ingest", str(huge_session(tmp_path))).returncode == 0
        set_config(home, "server", request_timeout=2)
        stalled = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(home), "trace",
                                    "huge:turns:0-2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        try:
            time.sleep(3)  # it has filled its pipe and both socket buffers: the server cannot send it more
            assert stalled.poll() is None
            job = run("ingest", str(long_job(tmp_path / "job")), "--distill")
            assert job.returncode == 0, job.err
            assert "sent nothing" not in job.err
            stop = run("server", "stop")
            assert stop.returncode == 0 and stop.elapsed < 15, (stop.elapsed, stop.err)
            _, err = stalled.communicate(timeout=30)  # reads what the server still had sent, then the end
            assert stalled.returncode == 1 and "closed the connection mid-request" in err.decode(), err
            assert "Traceback" not in err.decode()
        finally:
            stalled.kill()
        log = (home / "logs" / "alaya.log").read_text()
        assert "read nothing of its output for 2 s: its connection is closed" in log
        assert "Traceback" not in log
    finally:
        kill_owner(home)


@pytest.fixture(scope="module")
def served(demo_template, tmp_path_factory):
    """One demo store with its server up, shared by the quick checks below (each leaves it as it found it)."""
    home = tmp_path_factory.mktemp("served") / "home"
    shutil.copytree(demo_template, home)
    assert alaya("--home", str(home), "status", env=server_env(), cwd=home).returncode == 0
    yield home
    kill_owner(home)


def shell(command: str, home: Path, cwd: Path) -> subprocess.CompletedProcess:
    """``command`` in sh, with ``$ALAYA`` the command line that runs ``alaya --home HOME``."""
    env = {**server_env(), "ALAYA": f"{sys.executable} -m alaya_cli --home {home}"}
    result = subprocess.run(["sh", "-c", command], capture_output=True, text=True, timeout=120, env=env, cwd=cwd)
    result.out, result.err = result.stdout, result.stderr
    return result


def test_a_closed_stdout_ends_the_command_quietly_through_the_server_and_without(served, home):
    for args in ((str(served), "recall", "gateway restart"), (str(home), "--no-server", "status")):
        reader_gone = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", *args], stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, env=server_env())
        reader_gone.stdout.close()  # before the client has written anything: `alaya … | head -0`
        _, err = reader_gone.communicate(timeout=120)
        assert (reader_gone.returncode, err) == (0, b""), (args, err)


def on_a_terminal(args: list[str]) -> str:
    """What ``alaya ARGS`` prints to a terminal (its stdout a pseudo-terminal, stderr and stdin pipes)."""
    import pty

    controller, terminal = pty.openpty()
    try:
        child = subprocess.Popen([sys.executable, "-m", "alaya_cli", *args], stdout=terminal, stderr=subprocess.PIPE,
                                 stdin=subprocess.DEVNULL, env=server_env())
        os.close(terminal)
        printed = bytearray()
        while True:
            try:
                chunk = os.read(controller, 65536)
            except OSError:  # the terminal's other side closed: the child is done writing
                break
            if not chunk:
                break
            printed += chunk
        assert child.wait(timeout=120) == 0, child.stderr.read()
    finally:
        os.close(controller)
    return printed.decode().replace("\r\n", "\n")


def test_json_is_indented_on_a_terminal_and_one_line_into_a_pipe_through_the_server_and_without(served, demo_home):
    """A person reads it; an agent pipes it into its context, where every indenting space is tokens."""
    home = demo_home
    for args in ([str(served)], [str(home), "--no-server"]):
        command = ["--home", *args, "recall", "gateway restart", "--json"]
        piped = alaya(*command, env=server_env(), cwd=home)
        shown = on_a_terminal(command)
        assert piped.returncode == 0 and piped.stdout.count("\n") == 1 and piped.stdout.endswith("}\n"), args
        assert shown.startswith('{\n  "nodes": [') and shown.count("\n") > 20, (args, shown[:200])
        documents = [json.loads(text) for text in (shown, piped.stdout)]
        assert documents[0].keys() == documents[1].keys() and documents[0]["nodes"], args
        ranked = [[node["card_id"] for node in document["nodes"]] for document in documents]
        assert ranked[0] == ranked[1], args


def test_a_deleted_working_folder_is_one_line_not_a_traceback(served, tmp_path):
    gone = tmp_path / "gone"
    in_gone = lambda args: shell(f'mkdir "{gone}" && cd "{gone}" && rmdir "{gone}" && exec $ALAYA {args}',  # noqa: E731
                                 served, tmp_path)
    status = in_gone("status --json")
    assert status.returncode == 0 and json.loads(status.out)["home"] == str(served), status.err
    for args in ("export --out vault", "--home relative/store status"):
        refused = in_gone(args)
        assert refused.returncode == 2 and "working folder was deleted" in one_line_error(refused), refused.err


def test_a_closed_stdin_is_empty_input_not_a_traceback(served, tmp_path):
    recall = shell("exec $ALAYA recall --json <&-", served, tmp_path)
    assert recall.returncode == 2 and json.loads(recall.out)["error"]["code"] == "bad_query"
    one_line_error(recall)
    ingest = shell("exec $ALAYA ingest - <&-", served, tmp_path)
    assert ingest.returncode == 2 and "empty" in one_line_error(ingest)


def session_files(home: Path) -> int:
    return len(list(Layout(home).sessions.rglob("*.json")))


def sessions_stored(home: Path) -> int:
    status = alaya("--home", str(home), "status", "--json", env=server_env(), cwd=home)
    return json.loads(status.out)["l3"]["sessions"]


def default_ctrl_c() -> None:
    """Ctrl+C as a shell gives it to a command: a child inherits an ignored SIGINT, and a test process may ignore
    it (it did in full runs of the suite, where the client then never saw the signal)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_of_a_forwarded_write_leaves_it_to_finish_in_the_server(served, tmp_path):
    before, files = sessions_stored(served), session_files(served)
    job = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "ingest",
                            str(long_job(tmp_path / "job")), "--distill"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, env=server_env(), text=True, preexec_fn=default_ctrl_c)
    # the server is at it: the job's first L3 files are there
    assert wait_for(lambda: session_files(served) > files, 60)
    job.send_signal(signal.SIGINT)
    _, err = job.communicate(timeout=30)
    assert job.returncode == 130 and err.startswith("interrupted: if the server had started this command, it "
                                                    "finishes it"), err
    assert "Traceback" not in err
    assert wait_for(lambda: sessions_stored(served) == before + 30, 120)


def test_a_request_whose_client_gave_up_is_not_run_later(served, tmp_path):
    set_config(served, "server", request_timeout=2)
    pid = owner(served)
    session = tmp_path / "late.json"
    session.write_text(SESSION.replace("from-stdin", "given-up"))
    before = sessions_stored(served)
    os.kill(pid, signal.SIGSTOP)
    try:
        late = alaya("--home", str(served), "ingest", str(session), env=server_env(), cwd=tmp_path)
    finally:
        resume(pid)
        set_config(served, "server", request_timeout=30)
    assert late.returncode == 1 and "sent nothing for 2 s" in one_line_error(late)
    log = Layout(served).home / "logs" / "alaya.log"
    assert wait_for(lambda: "dropped: its client hung up before it ran" in log.read_text(), 30)
    assert sessions_stored(served) == before


def test_two_homes_the_last_wins_through_the_server_and_without(served, home, tmp_path):
    try:
        through = alaya("--home", str(served), "status", "--home", str(home), "--json", env=server_env(), cwd=tmp_path)
        assert json.loads(through.out)["home"] == str(home)  # not the first one's, though its server runs
    finally:
        kill_owner(home)
    here = alaya("--home", str(served), "--no-server", "status", "--home", str(home), "--json", env=server_env(),
                 cwd=tmp_path)
    assert json.loads(here.out)["home"] == str(home)


def test_no_command_prints_the_usage_and_exits_0_on_both_paths(served, tmp_path):
    for args in ((), ("--no-server",)):
        usage = alaya("--home", str(served), *args, env=server_env(), cwd=tmp_path)
        assert usage.returncode == 0 and usage.out.startswith("Usage: alaya"), (args, usage.err)


def test_a_server_at_its_connection_cap_is_asked_again_by_the_thin_client(served, tmp_path):
    from alaya_engine.server.dispatch import MAX_CONNECTIONS

    idle = []
    try:
        for _ in range(MAX_CONNECTIONS):
            connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            connection.connect(str(Layout(served).socket))
            idle.append(connection)
        time.sleep(0.5)  # the server has accepted them all
        client = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(served), "status", "--json"],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=server_env(), text=True)
        time.sleep(1.0)
        assert client.poll() is None  # still asking (it used to give up at once with server_busy)
    finally:
        for connection in idle:
            connection.close()
    out, err = client.communicate(timeout=60)
    assert client.returncode == 0 and json.loads(out)["home"] == str(served), err


def test_a_request_over_the_servers_limit_is_refused_before_it_is_sent(served):
    from alaya_engine.foundations.errors import AlayaError
    from alaya_engine.server.client import ServerClient

    client = ServerClient(served)
    with pytest.raises(AlayaError) as refused:
        client.call("recall", {"request": {"text": "x" * (client.settings.max_request + 1)}})
    assert refused.value.code == "request_too_large" and refused.value.exit_code == 2
    assert f"up to {client.settings.max_request / 2 ** 20:.0f} MiB" in refused.value.message
    assert client.call("server.status")["pid"] == owner(served)  # and the server never saw it


def test_a_command_while_the_server_stops_is_told_it_is_stopping(demo_home, tmp_path):
    home = demo_home
    env = server_env()
    try:
        set_config(home, "lock", wait_seconds=1)
        before = sessions_stored(home)
        pid = owner(home)
        job = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(home), "ingest",
                                str(long_job(tmp_path / "job", 200))], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, env=env)
        assert wait_for(lambda: sessions_stored(home) > before, 60)  # the server is at it
        stop = subprocess.Popen([sys.executable, "-m", "alaya_cli", "--home", str(home), "server", "stop"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        assert wait_for(lambda: not Layout(home).socket.exists(), 30)  # it stopped listening: it is stopping
        os.kill(pid, signal.SIGSTOP)  # and stays so, whatever this machine's speed, while a command comes in
        try:
            assert job.poll() is None and stop.poll() is None
            late = alaya("--home", str(home), "status", env=env, cwd=tmp_path)
        finally:
            resume(pid)
        line = one_line_error(late)
        assert "is stopping: it has been finishing the jobs it had started for" in line, line
        assert "without --no-server" not in line
    finally:
        kill_owner(home)
        for process in (job, stop):
            process.kill()
            process.wait(30)


def test_a_server_that_cannot_start_on_a_full_disk_says_so(template_home, small_disk, tmp_path):
    from conftest import fill

    home = small_disk / "home"
    shutil.copytree(template_home, home)
    fill(small_disk, 0)
    try:
        result = alaya("--home", str(home), "status", env=server_env(), cwd=tmp_path)
        assert result.returncode == 1 and "disk full at" in one_line_error(result), result.err
    finally:
        kill_owner(home)


def test_commands_parsed_at_once_in_the_server_never_trip_over_each_other(monkeypatch):
    """Typer sets and deletes an environment variable around each parameter it converts; the server parses
    forwarded commands in several threads at once, where two deletions of one variable raised ``KeyError`` (seen
    as "unexpected KeyError: 'PYDANTIC_DISABLE_PLUGINS'" from a recall beside another)."""
    import threading

    from alaya_cli.serving import PLUGINS_SWITCH, keep_typer_thread_safe

    adapters = pytest.importorskip("typer._adapters")
    if not hasattr(adapters, "disabled_pydantic_plugins"):
        pytest.skip("this Typer does not switch the variable")
    monkeypatch.delenv(PLUGINS_SWITCH, raising=False)
    keep_typer_thread_safe()
    failures: list[BaseException] = []

    def convert_many() -> None:
        for _ in range(50_000):
            try:
                with adapters.disabled_pydantic_plugins():
                    pass
            except KeyError as error:
                failures.append(error)

    threads = [threading.Thread(target=convert_many) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
