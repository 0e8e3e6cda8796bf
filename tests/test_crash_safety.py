"""Crash safety: SIGKILL a writing command at a random moment, then prove nothing is lost.

Each trial copies a prepared store, starts one command as a real process
(in-process engine, so the kill hits the writer itself), kills it after a
seeded random delay within that command's measured run time, and checks:

1. the store opens and answers ``status``;
2. ``verify`` is clean, or the problems it reports are repaired by re-running
   the interrupted command (and, if that is not enough, ``alaya rebuild``);
3. re-running the command completes, and the store then holds exactly what an
   uninterrupted run produces: the same sessions, cards, links, one vector per
   HOT/WARM card and the same suggestion decisions — nothing lost, nothing twice.

CI runs one trial per command; the full run (13 per command, 104 in all) is:

    ALAYA_CRASH_TRIALS=104 pytest tests/test_crash_safety.py tests/test_crash_safety_more.py

Two more kinds of fault get the same checks: the owner *server* SIGKILLed while
it runs ``ingest --distill`` or ``introspect`` for a client
(``ALAYA_SERVER_CRASH_TRIALS``, one per command in CI), and a full disk at a
random moment of an ingest — the store is copied onto a small tmpfs whose free
space is cut to a seeded random amount below what the ingest writes
(``ALAYA_ENOSPC_TRIALS``, one in CI): the command must then fail as one line,
and once space is freed, re-running it (after the repair verify names) must give
the reference store. ``ALAYA_CRASH_SEED`` picks another reproducible sequence of
kill times and fill levels.

This file kills ingest, distill, introspect and cool-down and fills the disk;
``test_crash_safety_more.py`` kills the other commands and the server. The
machinery is in ``crash_trials.py``.
"""

from __future__ import annotations

import random
import shutil

import pytest
from conftest import fill
from crash_trials import ENOSPC_TRIALS, SEED, kill_trial, repair_and_rerun, run, signature, trials

pytestmark = pytest.mark.slow
COMMANDS_HERE = ("ingest", "distill", "introspect", "cooldown")


@pytest.mark.parametrize(("number", "command"), trials(COMMANDS_HERE),
                         ids=[f"{n:03d}-{c}" for n, c in trials(COMMANDS_HERE)])
def test_a_kill_at_a_random_moment_loses_nothing(prepared, tmp_path, number, command):
    kill_trial(prepared, tmp_path / "home", number, command)


@pytest.mark.parametrize("number", range(ENOSPC_TRIALS))
def test_a_full_disk_at_a_random_moment_of_an_ingest_loses_nothing(prepared, small_disk, number, record_property):
    home = small_disk / "home"
    shutil.copytree(prepared.home, home)
    grown_kb = prepared.grown("ingest") // 1024
    leave_kb = random.Random(SEED * 1000 + 900 + number).randint(0, grown_kb)
    filler = fill(small_disk, leave_kb)
    first = run(home, *prepared.arguments["ingest"])
    lines = first.stderr.splitlines()
    record_property("fault", f"{leave_kb} of {grown_kb} KB free: exit {first.returncode}")
    assert first.returncode == 0 or (first.returncode == 1 and len(lines) == 1 and "disk full at" in lines[0]), \
        f"{leave_kb} KB free: {first.stderr[-2000:]}"
    filler.unlink()
    repair_and_rerun(home, prepared.arguments["ingest"], f"a full disk with {leave_kb} KB free")
    assert signature(home) == prepared.reference("ingest"), f"{leave_kb} KB free left a different store"
