"""Crash trials: the prepared store, the commands killed in it and the reference stores they must reach.

Shared by ``test_crash_safety_*.py`` (split in two so both CI workers run trials). The reference store of a
command — what an uninterrupted run leaves — is built the first time a trial of that command asks for it, so each
worker builds only the references of the trials it runs.
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
from pathlib import Path

from conftest import FIXTURES, write_problem_session

from alaya_engine.engine import Engine
from alaya_engine.foundations.folder_sizes import disk_usage

SEED = int(os.environ.get("ALAYA_CRASH_SEED", "20261130"))
COMMANDS = ("ingest", "distill", "introspect", "cooldown", "approve_merge", "link", "import_memex", "rebuild")
TRIALS = max(len(COMMANDS), int(os.environ.get("ALAYA_CRASH_TRIALS", str(len(COMMANDS)))))
SERVER_COMMANDS = ("ingest_distill", "introspect")
SERVER_TRIALS = max(len(SERVER_COMMANDS), int(os.environ.get("ALAYA_SERVER_CRASH_TRIALS", "2")))
ENOSPC_TRIALS = int(os.environ.get("ALAYA_ENOSPC_TRIALS", "1"))


class Prepared:
    """The demo store with 6 sessions waiting to be distilled, 6 more to ingest, and merge suggestions (twelve each
    made the trials an eighth of the suite's CPU; a kill still lands in every phase of a command)."""

    def __init__(self, root: Path, home: Path, incoming: Path, arguments: dict[str, list[str]]):
        self.root = root
        self.home = home
        self.incoming = incoming
        self.arguments = arguments
        self._references: dict[str, tuple[dict, float, int]] = {}

    def reference(self, command: str) -> dict:
        """The signature of the store an uninterrupted run of ``command`` leaves."""
        return self._run_once(command)[0]

    def duration(self, command: str) -> float:
        """How long an uninterrupted run of ``command`` took: the range a kill time is drawn from."""
        return self._run_once(command)[1]

    def grown(self, command: str) -> int:
        """How much an uninterrupted run of ``command`` adds to the store: the range a full disk is drawn from."""
        return self._run_once(command)[2]

    def _run_once(self, command: str) -> tuple[dict, float, int]:
        if command not in self._references:
            copy = self.root / f"reference-{command}"
            shutil.copytree(self.home, copy)
            before = disk_usage(copy)
            started = time.perf_counter()
            finished = run(copy, *self.arguments[command])
            duration = time.perf_counter() - started
            assert finished.returncode == 0, (command, finished.stderr)
            self._references[command] = (signature(copy), duration, disk_usage(copy) - before)
            shutil.rmtree(copy)
        return self._references[command]


def alaya(home: Path, *args: str, server: bool = False) -> list[str]:
    return [sys.executable, "-m", "alaya_cli", *([] if server else ["--no-server"]), "--home", str(home),
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


def prepare(demo_template: Path, root: Path) -> Prepared:
    """The store every crash trial starts from, built in ``root`` (the ``prepared`` fixture of conftest, so the
    crash-trial files a worker runs share one)."""
    home = root / "home"
    shutil.copytree(demo_template, home)
    config_file = home / "config.json"
    config = json.loads(config_file.read_text())
    config["introspect"]["consolidate_threshold"] = 0.6
    config_file.write_text(json.dumps(config))
    pending, incoming = root / "pending", root / "incoming"
    for folder, day in ((pending, 10), (incoming, 11)):
        for number in range(6):
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
    return Prepared(root, home, incoming, arguments)


def trials(commands: tuple[str, ...]) -> list[tuple[int, str]]:
    """The numbered kill trials of ``commands``: trial n kills ``COMMANDS[n % 8]``, whichever file runs it."""
    return [(number, COMMANDS[number % len(COMMANDS)]) for number in range(TRIALS)
            if COMMANDS[number % len(COMMANDS)] in commands]


def server_trials() -> list[tuple[int, str]]:
    return [(number, SERVER_COMMANDS[number % len(SERVER_COMMANDS)]) for number in range(SERVER_TRIALS)]


def kill_trial(prepared: Prepared, home: Path, number: int, command: str) -> None:
    """Copy the prepared store to ``home``, SIGKILL ``command`` at a seeded random moment, then prove nothing
    was lost."""
    shutil.copytree(prepared.home, home)
    delay = random.Random(SEED * 1000 + number).uniform(0.05, 1.0) * prepared.duration(command)
    victim = subprocess.Popen(alaya(home, *prepared.arguments[command]), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    time.sleep(delay)
    victim.send_signal(signal.SIGKILL)
    victim.wait(timeout=60)

    engine = Engine.open(home)
    assert engine.status().l2["cards"] > 0
    before = engine.verify().to_json()["counts"]
    repair_and_rerun(home, prepared.arguments[command], f"a kill of {command} at {delay:.2f} s (before: {before})")
    assert signature(home) == prepared.reference(command), f"kill at {delay:.2f} s left a different store"


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
