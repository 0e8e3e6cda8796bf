"""Global options where people type them, and a closed stdout.

``--home``, ``--no-server`` and ``--json`` work before or after the command (the README says every command takes
them), in the full command line and in the fast path that answers ``recall --json`` before Typer is imported; and
a reader that closes the pipe early (``alaya recall --json | head -c 200``) gets no traceback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

import alaya_engine.demo
from alaya_cli.app import app

SHIPPED_SESSIONS = len(list((Path(alaya_engine.demo.__file__).parent / "sessions").glob("*.json*")))


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_home_and_json_are_accepted_on_either_side_of_the_command(demo_home):
    home = str(demo_home)
    for args in (["status", "--home", home, "--json"], ["--json", "--home", home, "status"],
                 ["--json", "status", f"--home={home}"], ["status", "--json", "--no-server", "--home", home]):
        result = invoke(*args)
        assert result.exit_code == 0, (args, result.output)
        assert json.loads(result.stdout)["l3"]["sessions"] == SHIPPED_SESSIONS, args
    recalled = invoke("--json", "recall", "nginx 502", "--home", home)
    assert recalled.exit_code == 0 and json.loads(recalled.stdout)["nodes"]
    nested = invoke("--json", "review", "list", "--home", home)
    assert nested.exit_code == 0 and "suggestions" in json.loads(nested.stdout)


def test_an_error_keeps_its_json_when_json_comes_first(demo_home):
    result = invoke("--json", "trace", "card-nope", "--home", str(demo_home))
    assert result.exit_code == 2
    assert json.loads(result.stdout)["error"]["code"] == "unknown_card"
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_arguments_after_a_double_dash_are_left_alone(demo_home):
    result = invoke("--home", str(demo_home), "recall", "--json", "--", "--home")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["query"]["concepts"] == ["--home"]


def test_the_server_reads_the_same_placements(demo_home):
    """The client forwards argv untouched; the server's parser moves ``--home`` and ``--json`` as this one does."""
    env = {**os.environ, "ALAYA_NO_SERVER": "0"}
    try:
        for args in (["recall", "gateway", "--depth", "2", "--json", "--home", str(demo_home)],
                     ["--json", f"--home={demo_home}", "recall", "gateway", "--depth", "2"]):
            result = subprocess.run([sys.executable, "-m", "alaya_cli", *args], capture_output=True, text=True,
                                    timeout=180, env=env)
            assert result.returncode == 0, result.stderr
            assert json.loads(result.stdout)["query"]["depth"] == 2
        assert (demo_home / "server.pid").exists(), "the commands ran in the owner server"
    finally:
        subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(demo_home), "server", "stop"],
                       capture_output=True, timeout=120, env=env)


def alaya_process(home, *args: str, server: bool = False) -> subprocess.Popen:
    """The installed console script, its stdout a pipe this test closes before reading anything."""
    env = {**os.environ, "ALAYA_NO_SERVER": "0" if server else "1"}
    command = shutil.which("alaya", path=os.path.dirname(sys.executable))
    assert command, "the alaya console script is installed beside this interpreter"
    return subprocess.Popen([command, "--home", str(home), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)


def assert_quiet_end(process: subprocess.Popen) -> None:
    stderr = process.stderr.read().decode()
    process.wait(timeout=120)
    assert "Traceback" not in stderr and "BrokenPipe" not in stderr and "Exception ignored" not in stderr, stderr
    assert process.returncode == 0, (process.args, process.returncode)  # the reader took what it wanted


def test_a_closed_stdout_ends_quietly(demo_home):
    """Small outputs are written at exit (where Python itself would complain), large ones while the command runs."""
    processes = [alaya_process(demo_home, "version", "--json"),
                 alaya_process(demo_home, "recall", "gateway restart telegram", "--json"),
                 alaya_process(demo_home, "recall", "gateway restart telegram")]
    for process in processes:
        process.stdout.close()  # the reader is gone before the command prints anything
    for process in processes:
        assert_quiet_end(process)


def test_a_closed_stdout_ends_quietly_on_the_fast_path(demo_home):
    """With a live owner server, ``recall --json`` is answered before Typer is even imported."""
    command = shutil.which("alaya", path=os.path.dirname(sys.executable))
    server_env = {**os.environ, "ALAYA_NO_SERVER": "0"}
    subprocess.run([command, "--home", str(demo_home), "serve"], check=True, capture_output=True, env=server_env,
                   timeout=120)
    try:
        process = alaya_process(demo_home, "recall", "gateway restart telegram", "--json", server=True)
        process.stdout.close()
        assert_quiet_end(process)
    finally:
        subprocess.run([command, "--home", str(demo_home), "server", "stop"], capture_output=True, env=server_env,
                       timeout=120)


def test_a_pipe_through_head_gets_the_first_bytes(demo_home):
    command = shutil.which("alaya", path=os.path.dirname(sys.executable))
    pipeline = subprocess.run(f"'{command}' --home '{demo_home}' recall 'nginx 502 after deploy' --json | head -c 200",
                              shell=True, capture_output=True, env={**os.environ, "ALAYA_NO_SERVER": "1"},
                              timeout=120)
    assert pipeline.stdout.startswith(b'{') and b'"nodes"' in pipeline.stdout and len(pipeline.stdout) == 200
    assert b"Traceback" not in pipeline.stderr and b"BrokenPipe" not in pipeline.stderr
