"""Crash safety, continued: SIGKILL of approve, link, import-memex and rebuild, and of the owner server.

What each trial proves, and how to run the full count, is in ``test_crash_safety.py``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import time

import pytest
from crash_trials import SEED, alaya, kill_trial, repair_and_rerun, server_env, server_trials, signature, trials

pytestmark = pytest.mark.slow
COMMANDS_HERE = ("approve_merge", "link", "import_memex", "rebuild")


@pytest.mark.parametrize(("number", "command"), trials(COMMANDS_HERE),
                         ids=[f"{n:03d}-{c}" for n, c in trials(COMMANDS_HERE)])
def test_a_kill_at_a_random_moment_loses_nothing(prepared, tmp_path, number, command):
    kill_trial(prepared, tmp_path / "home", number, command)


@pytest.mark.parametrize(("number", "command"), server_trials(), ids=[f"{n:03d}-{c}" for n, c in server_trials()])
def test_a_server_killed_at_a_random_moment_loses_nothing(prepared, tmp_path, number, command, record_property):
    home = tmp_path / "home"
    shutil.copytree(prepared.home, home)
    assert subprocess.run(alaya(home, "status", "--json", server=True), env=server_env(), capture_output=True,
                          timeout=120).returncode == 0
    server = json.loads((home / "server.pid").read_text())["pid"]
    delay = random.Random(SEED * 1000 + 700 + number).uniform(0.05, 1.0) * prepared.duration(command)
    client = subprocess.Popen(alaya(home, *prepared.arguments[command], server=True), env=server_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    os.kill(server, signal.SIGKILL)
    _, stderr = client.communicate(timeout=120)
    record_property("fault", f"server killed {delay:.2f} s into {command}: client exit {client.returncode}")
    assert "Traceback" not in stderr
    repair_and_rerun(home, prepared.arguments[command], f"a server kill at {delay:.2f} s")
    assert signature(home) == prepared.reference(command), f"server kill at {delay:.2f} s left a different store"
