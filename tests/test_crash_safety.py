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

    ALAYA_CRASH_TRIALS=104 pytest tests/test_crash_safety.py

Two more kinds of fault get the same checks: the owner *server* SIGKILLed while
it runs ``ingest --distill`` or ``introspect`` for a client
(``ALAYA_SERVER_CRASH_TRIALS``, one per command in CI), and a full disk at a
random moment of an ingest — the store is copied onto a small tmpfs whose free
space is cut to a seeded random amount below what the ingest writes
(``ALAYA_ENOSPC_TRIALS``, one in CI): the command must then fail as one line,
and once space is freed, re-running it (after the repair verify names) must give
the reference store. ``ALAYA_CRASH_SEED`` picks another reproducible sequence of
kill times and fill levels.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import FIXTURES, fill, write_problem_session

from alaya_engine.engine import Engine
from alaya_engine.paths import disk_usage

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("ALAYA_CRASH_SEED", "20261130"))
COMMANDS = ("ingest", "distill", "introspect", "cooldown", "approve_merge", "link", "import_memex", "rebuild")
TRIALS = max(len(COMMANDS), int(os.environ.get("ALAYA_CRASH_TRIALS", str(len(COMMANDS)))))
SERVER_COMMANDS = ("ingest_distill", "introspect")
SERVER_TRIALS = max(len(SERVER_COMMANDS), int(os.environ.get("ALAYA_SERVER_CRASH_TRIALS", "2")))
ENOSPC_TRIALS = int(os.environ.get("ALAYA_ENOSPC_TRIALS", "1"))


@dataclass
class Prepared:
    home: Path
    incoming: Path
    arguments: dict[str, list[str]]
    reference: dict[str, dict]
    duration: dict[str, float]
    ingest_bytes: int
    """How much an uninterrupted ingest adds to the store: the range a full disk is drawn from."""


def alaya(home: Path, *args: str, server: bool = False) -> list[str]:
    return [sys.executable, "-m", "alaya_engine.cli", *([] if server else ["--no-server"]), "--home", str(home),
            *args]


def server_env() -> dict:
    return {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}


def run(home: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(alaya(home, *args), capture_output=True, text=True, timeout=600)


def signature(home: Path) -> dict:
    """What an uninterrupted run leaves: ids of everything, vectors counted per card, suggestion decisions."""
    engine = Engine.open(home)
    with engine.hold() as graph:
        cards = sorted(card.id for card in graph.all_cards())
        links = sorted(f"{link.source}>{link.relation}>{link.target}" for link in graph.all_links())
        sessions = sorted(graph.session_ids())
    vectors, _ = engine.vectors().vector_rows()
    decisions = {s["id"]: s["status"] for s in engine.review_list()["suggestions"]}
    return {"sessions": sessions, "cards": cards, "links": links, "vectors": sorted(Counter(vectors).items()),
            "decisions": decisions}


@pytest.fixture(scope="session")
def prepared(demo_template, tmp_path_factory) -> Prepared:
    """The demo store with 12 sessions waiting to be distilled, 12 more to ingest, and merge suggestions."""
    root = tmp_path_factory.mktemp("crash")
    home = root / "home"
    shutil.copytree(demo_template, home)
    config_file = home / "config.json"
    config = json.loads(config_file.read_text())
    config["introspect"]["consolidate_threshold"] = 0.6
    config_file.write_text(json.dumps(config))
    pending, incoming = root / "pending", root / "incoming"
    for folder, day in ((pending, 10), (incoming, 11)):
        for number in range(12):
            write_problem_session(folder, f"session-202604{day:02d}-{number:06d}", number,
                                  1775800000000 + number * 60_000)
    assert run(home, "ingest", str(pending)).returncode == 0
    assert run(home, "introspect", "--step", "consolidate").returncode == 0
    engine = Engine.open(home)
    merges = [s["id"] for s in engine.review_list("pending")["suggestions"] if s["kind"] == "merge_cards"][:3]
    assert merges, "the prepared store needs merge suggestions"
    first, second = sorted(engine.vectors().vector_ids())[:2]
    arguments = {
        "ingest": ["ingest", str(incoming)],
        "ingest_distill": ["ingest", "--distill", str(incoming)],
        "distill": ["distill"],
        "introspect": ["introspect"],
        "cooldown": ["introspect", "--step", "cooldown"],
        "approve_merge": ["review", "approve", *merges],
        "link": ["link", first, second, "--rel", "LED_TO", "--reason", "crash test", "--new-relation"],
        "import_memex": ["import-memex", str(FIXTURES / "memex_vault")],
        "rebuild": ["rebuild", "--all"],
    }
    reference, duration, grown = {}, {}, {}
    for command, args in arguments.items():
        copy = root / f"reference-{command}"
        shutil.copytree(home, copy)
        before = disk_usage(copy)
        started = time.perf_counter()
        finished = run(copy, *args)
        duration[command] = time.perf_counter() - started
        grown[command] = disk_usage(copy) - before
        assert finished.returncode == 0, (command, finished.stderr)
        reference[command] = signature(copy)
        shutil.rmtree(copy)
    return Prepared(home, incoming, arguments, reference, duration, grown["ingest"])


def trials() -> list[tuple[int, str]]:
    return [(number, COMMANDS[number % len(COMMANDS)]) for number in range(TRIALS)]


@pytest.mark.parametrize(("number", "command"), trials(), ids=[f"{n:03d}-{c}" for n, c in trials()])
def test_a_kill_at_a_random_moment_loses_nothing(prepared, tmp_path, number, command):
    home = tmp_path / "home"
    shutil.copytree(prepared.home, home)
    delay = random.Random(SEED * 1000 + number).uniform(0.05, 1.0) * prepared.duration[command]
    victim = subprocess.Popen(alaya(home, *prepared.arguments[command]), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(delay)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=60)

    engine = Engine.open(home)
    assert engine.status().l2["cards"] > 0
    before = engine.verify().to_json()["counts"]
    repair_and_rerun(home, prepared.arguments[command], f"a kill of {command} at {delay:.2f} s (before: {before})")
    assert signature(home) == prepared.reference[command], f"kill at {delay:.2f} s left a different store"


def repair_and_rerun(home: Path, args: list[str], what: str) -> None:
    """After a fault: the repair a failing status names (a graph damaged beyond opening), then the command again,
    then ``rebuild --all`` if verify still finds something; the store must then verify clean."""
    status = run(home, "status", "--json")
    if status.returncode != 0:
        assert "rebuild --l2" in status.stderr, f"{what}: status fails without naming a repair: {status.stderr}"
        assert run(home, "rebuild", "--l2").returncode == 0
    rerun = run(home, *args)
    assert rerun.returncode == 0, f"re-running after {what}: {rerun.stderr}"
    report = Engine.open(home).verify().to_json()
    if not report["ok"]:
        repaired = run(home, "rebuild", "--all")
        assert repaired.returncode == 0, repaired.stderr
        report = Engine.open(home).verify().to_json()
    assert report["ok"], f"{what}; still: {report['counts']}"


def server_trials() -> list[tuple[int, str]]:
    return [(number, SERVER_COMMANDS[number % len(SERVER_COMMANDS)]) for number in range(SERVER_TRIALS)]


@pytest.mark.parametrize(("number", "command"), server_trials(), ids=[f"{n:03d}-{c}" for n, c in server_trials()])
def test_a_server_killed_at_a_random_moment_loses_nothing(prepared, tmp_path, number, command, record_property):
    home = tmp_path / "home"
    shutil.copytree(prepared.home, home)
    assert subprocess.run(alaya(home, "status", "--json", server=True), env=server_env(), capture_output=True,
                          timeout=120).returncode == 0
    server = json.loads((home / "server.pid").read_text())["pid"]
    delay = random.Random(SEED * 1000 + 700 + number).uniform(0.05, 1.0) * prepared.duration[command]
    client = subprocess.Popen(alaya(home, *prepared.arguments[command], server=True), env=server_env(),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    time.sleep(delay)
    os.kill(server, signal.SIGKILL)
    _, stderr = client.communicate(timeout=120)
    record_property("fault", f"server killed {delay:.2f} s into {command}: client exit {client.returncode}")
    assert "Traceback" not in stderr
    repair_and_rerun(home, prepared.arguments[command], f"a server kill at {delay:.2f} s")
    assert signature(home) == prepared.reference[command], f"server kill at {delay:.2f} s left a different store"


@pytest.mark.parametrize("number", range(ENOSPC_TRIALS))
def test_a_full_disk_at_a_random_moment_of_an_ingest_loses_nothing(prepared, small_disk, number, record_property):
    home = small_disk / "home"
    shutil.copytree(prepared.home, home)
    leave_kb = random.Random(SEED * 1000 + 900 + number).randint(0, prepared.ingest_bytes // 1024)
    filler = fill(small_disk, leave_kb)
    first = run(home, *prepared.arguments["ingest"])
    lines = first.stderr.splitlines()
    record_property("fault", f"{leave_kb} of {prepared.ingest_bytes // 1024} KB free: exit {first.returncode}")
    assert first.returncode == 0 or (first.returncode == 1 and len(lines) == 1 and "disk full at" in lines[0]), \
        f"{leave_kb} KB free: {first.stderr[-2000:]}"
    filler.unlink()
    repair_and_rerun(home, prepared.arguments["ingest"], f"a full disk with {leave_kb} KB free")
    assert signature(home) == prepared.reference["ingest"], f"{leave_kb} KB free left a different store"
