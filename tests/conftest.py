"""Shared fixtures: real stores (LadybugDB/Kuzu + LanceDB) in temporary homes.

Initialising a store embeds the core relations with the real model, which
costs seconds; one template home is built per test session and copied for
each test that needs a fresh store.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from typer.testing import CliRunner

from alaya_cli.app import app
from alaya_engine.engine import Engine

FIXTURES = Path(__file__).parent / "fixtures"

if os.environ.pop("PYTHONDONTWRITEBYTECODE", None):
    # Where the environment asks Python not to cache bytecode, every test process and each of the many commands
    # and servers the tests start would compile the project's modules (and pytest re-rewrite the test modules)
    # from source, again and again. An installed Alaya has its bytecode; the tests run with theirs cached too.
    # Set here, before the xdist workers start: they and every child inherit it.
    import sys

    sys.dont_write_bytecode = False


@pytest.fixture(autouse=True, scope="session")
def in_process_by_default():
    """Commands run in-process unless a test is about the owner server (those unset this themselves)."""
    previous = os.environ.get("ALAYA_NO_SERVER")
    os.environ["ALAYA_NO_SERVER"] = "1"
    yield
    if previous is None:
        os.environ.pop("ALAYA_NO_SERVER", None)
    else:
        os.environ["ALAYA_NO_SERVER"] = previous


def built_once(tmp_path_factory, name: str, build) -> Path:
    """A store ``build(home)`` makes once per test run and the xdist workers share (read-only; tests copy it):
    the first worker to ask builds it under a lock, the others wait for it. A demo store takes 15-45 s to build,
    and each worker used to build its own two."""
    import fcntl

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent
    folder, home = root / name, root / name / "home"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "built").exists():
            shutil.rmtree(folder, ignore_errors=True)
            build(home)
            (folder / "built").touch()
    return home


@pytest.fixture(scope="session")
def template_home(tmp_path_factory) -> Path:
    return built_once(tmp_path_factory, "template", Engine.init)


DEMO_NOW = 1776502800000
"""2026-04-18 09:00 UTC, the day after the newest shipped session: the demo built then keeps the shipped dates and
ids, and is the same store on every run (for snapshots)."""


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory) -> Path:
    """The demo store as ``alaya demo`` builds it today: sessions dated over the seven weeks before now, distilled
    offline and introspected (find a shipped session under its moved id with :func:`demo_session_id`)."""
    from alaya_engine.demo import build_demo

    return built_once(tmp_path_factory, "demo", build_demo)


@pytest.fixture(scope="session")
def pinned_demo_template(tmp_path_factory) -> Path:
    """The demo built as of :data:`DEMO_NOW`: shipped ids and dates, the same tiers and suggestions every run."""
    from alaya_engine.demo import build_demo

    return built_once(tmp_path_factory, "pinned-demo", lambda home: build_demo(home, now=DEMO_NOW))


def demo_session_id(home: Path, shipped_id: str) -> str:
    """The id a shipped session has in the demo store at ``home`` (its date moved with the demo's timeline)."""
    from alaya_engine.demo.timeline import SHIFT_FILE, shifted_text

    return shifted_text(shipped_id, json.loads((home / SHIFT_FILE).read_text(encoding="utf-8"))["shift_days"])


@pytest.fixture
def demo_home(demo_template, tmp_path) -> Path:
    target = tmp_path / "demo-home"
    shutil.copytree(demo_template, target)
    return target


@pytest.fixture
def home(template_home, tmp_path) -> Path:
    """A fresh, initialised store of its own."""
    target = tmp_path / "home"
    shutil.copytree(template_home, target)
    return target


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str

    def json(self):
        return json.loads(self.stdout)


def cli_for(home: Path):
    """Run ``alaya --home <home> ...`` in-process and capture both streams separately."""
    runner = CliRunner()

    def run(*args: str, input: bytes | str | None = None, use_home: Path | None = None) -> CliResult:
        result = runner.invoke(app, ["--home", str(use_home or home), *args], input=input)
        return CliResult(result.exit_code, result.stdout, result.stderr)

    return run


@pytest.fixture
def cli(home):
    return cli_for(home)


@pytest.fixture
def demo_cli(demo_home):
    return cli_for(demo_home)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # A client that timed out and hung up is expected in these tests.


@contextmanager
def local_http_server(handler: type[BaseHTTPRequestHandler]) -> Iterator[str]:
    """A real HTTP server on 127.0.0.1 (a free port) for the duration; yields its ``/v1`` base URL."""
    server = QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def llm():
    """An OpenAI-compatible endpoint on 127.0.0.1 answering from a queue the test fills and recording every request
    (``test_llm_distiller.FakeLLM``)."""
    from test_llm_distiller import FakeLLM, make_handler

    state = FakeLLM()
    with local_http_server(make_handler(state)) as url:
        state.url = url
        yield state


def write_session(folder: Path, session_id: str = "session-20260331-062900", **overrides) -> Path:
    """A small valid seed-format session file."""
    document = {
        "id": session_id,
        "timestamp": 1774938540000,
        "channel": "telegram",
        "agent": "main",
        "turns": [
            {"role": "user", "content": "为什么没收到通知？", "timestamp": 1774938540000},
            {"role": "assistant", "content": "我来检查 Gateway 配置：plugins.allow 里漏了 telegram。",
             "timestamp": 1774938545000, "tool_calls": [{"name": "exec", "arguments": {"command": "cat gw.json"}}]},
            {"role": "tool", "tool_name": "exec", "content": "{\"plugins\": {\"allow\": []}}",
             "timestamp": 1774938546000},
        ],
        "metadata": {"duration_ms": 6000, "model": "claude-sonnet-4.5", "tokens": 120},
    }
    document.update(overrides)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id.replace('/', '_')}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path



def write_problem_session(folder: Path, session_id: str, number: int, timestamp: int) -> Path:
    """A copy of one of the shipped demo sessions under a new id and time: content the offline distiller
    turns into cards (card ids depend on the session id, so every copy yields cards of its own)."""
    from alaya_engine.demo import sample_sessions_dir

    templates = sorted(path for path in sample_sessions_dir().glob("session-*.json")
                       if "small talk" not in path.read_text(encoding="utf-8").lower())
    document = json.loads(templates[number % len(templates)].read_text(encoding="utf-8"))
    document.update({"id": session_id, "timestamp": timestamp})
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session_id}.json"
    path.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    return path


@pytest.fixture
def small_disk(tmp_path) -> Iterator[Path]:
    """A 48 MB tmpfs mounted for one test, to fill for real ENOSPC (skipped where mounting is not permitted)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=48m,mode=0700", "tmpfs", str(mount)],
                             capture_output=True, text=True)
    if mounted.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def fill(disk: Path, leave_kb: int) -> Path:
    """Take all free space on ``disk`` but ``leave_kb`` KB; returns the filler file (delete it to free space)."""
    filler = disk / "filler"
    stats = os.statvfs(disk)
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.posix_fallocate(descriptor, 0, max(1, stats.f_bavail * stats.f_frsize - leave_kb * 1024))
    finally:
        os.close(descriptor)
    return filler


@pytest.fixture(scope="session")
def prepared(demo_template, tmp_path_factory):
    """The crash trials' starting store (see ``crash_trials.py``), shared by the crash-trial files of a worker."""
    from crash_trials import prepare

    return prepare(demo_template, tmp_path_factory.mktemp("crash"))


LONGEST_FILES = ("test_faults_server.py", "test_crash_safety_more.py", "test_crash_safety.py")
"""The longest files, 65-105 s of one worker each (measured): started first of all."""


def pytest_collection_modifyitems(items):
    """The longest files, then files with slow tests, then the rest: the two xdist workers start on long files
    and finish on short ones, instead of one worker running a long file alone at the end. (xdist keeps this order
    only with ``--no-loadscope-reorder``, set in pyproject.toml: by default it sorts files by their number of
    tests, which put the one-test files, a 40 s load test among them, last.)"""
    slow_files = {item.path for item in items if item.get_closest_marker("slow")}
    position = {id(item): index for index, item in enumerate(items)}

    def rank(item) -> tuple:
        longest = LONGEST_FILES.index(item.path.name) if item.path.name in LONGEST_FILES else len(LONGEST_FILES)
        return longest, item.path not in slow_files, position[id(item)]

    items.sort(key=rank)


@pytest.fixture
def bare(tmp_path) -> Path:
    """A bare git repository: the remote that stores of a test share their memory through."""
    repository = tmp_path / "memory.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(repository)], check=True, timeout=30)
    return repository


def machine(template_home: Path, tmp_path: Path, name: str, bare: Path):
    """A store of its own with the shared remote added (one machine of a team), and its command line."""
    home = tmp_path / name
    shutil.copytree(template_home, home)
    cli = cli_for(home)
    assert cli("remote", "add", "origin", str(bare)).exit_code == 0
    return home, cli
