"""The forwarded command line under faults: real client processes with an environment of their own, a client that
stops reading, a closed stdin, a deleted working folder, Ctrl-C, two ``--home``. Each test drives ``alaya`` as a
person or an agent would, against a real owner server (killed when the test ends)."""

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
from test_faults_server import kill_owner, owner, set_config
from test_server import server_env

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
    result.out, result.err = result.stdout.decode(), result.stderr.decode()
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

    recall = alaya("--home", "../../A", "recall", "gateway restart telegram", env=client, cwd=client_cwd)
    assert f"Next step: alaya --home {stores['A']} recall" in recall.out, recall.out

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
