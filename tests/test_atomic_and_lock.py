"""Crash-safe L3 writes and the store lock's bounded wait."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time

import pytest

from alaya_engine.foundations import atomic
from alaya_engine.foundations.atomic import atomic_write_bytes
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.lock import StoreLock


def test_interrupted_write_leaves_no_partial_file(tmp_path, monkeypatch):
    target = tmp_path / "raw" / "session.json"

    def crash(_fd):
        raise OSError("simulated power cut during fsync")

    monkeypatch.setattr(atomic.os, "fsync", crash)
    with pytest.raises(OSError):
        atomic_write_bytes(target, b'{"id": "half"}')
    assert not target.exists()
    assert list(target.parent.iterdir()) == []


def test_interrupted_replace_keeps_the_old_content(tmp_path, monkeypatch):
    target = tmp_path / "session.json"
    atomic_write_bytes(target, b"old")

    def crash(_src, _dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(atomic.os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        atomic_write_bytes(target, b"new content")
    assert target.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["session.json"]


def test_several_files_are_written_whole_with_one_flush_per_folder(tmp_path, monkeypatch):
    flushed = []
    monkeypatch.setattr(atomic, "_fsync_dir", flushed.append)
    files = {tmp_path / "a" / "1.json": b"one", tmp_path / "a" / "2.json": b"two", tmp_path / "b" / "3.json": b"3"}
    atomic.atomic_write_files(files)
    assert {path: path.read_bytes() for path in files} == files
    assert sorted(flushed) == [tmp_path / "a", tmp_path / "b"]


def test_a_killed_writer_leaves_only_a_hidden_temp_file(tmp_path):
    """SIGKILL in the middle of a large write: the target never appears half-written."""
    target = tmp_path / "big.json"
    script = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from alaya_engine.foundations import atomic
        def slow_fsync(fd):
            print("writing", flush=True)
            time.sleep(30)
        atomic.os.fsync = slow_fsync
        atomic.atomic_write_bytes(Path({str(target)!r}), b"x" * 5_000_000)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "writing"
    child.kill()
    child.wait()
    assert not target.exists()
    leftovers = [path.name for path in tmp_path.iterdir()]
    assert len(leftovers) == 1 and leftovers[0].startswith(".big.json.") and leftovers[0].endswith(".tmp")


def test_lock_is_reentrant_in_one_process(tmp_path):
    lock = StoreLock(tmp_path / "alaya.lock", wait_seconds=0.1)
    with lock, lock:
        assert lock._depth == 2
    assert lock._fd is None


def test_busy_store_names_the_holder_after_a_bounded_wait(tmp_path):
    lock_file = tmp_path / "alaya.lock"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import time
            from pathlib import Path
            from alaya_engine.foundations.lock import StoreLock
            with StoreLock(Path({str(lock_file)!r}), 1, command="alaya introspect"):
                print("held", flush=True)
                time.sleep(30)
        """)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        started = time.monotonic()
        with pytest.raises(AlayaError) as caught:
            StoreLock(lock_file, wait_seconds=0.5).acquire()
        waited = time.monotonic() - started
        assert 0.5 <= waited < 5
        assert caught.value.code == "store_locked" and caught.value.exit_code == 1
        assert f"pid {holder.pid} ('alaya introspect'" in caught.value.message
        assert "waited 0.5 s" in caught.value.message
    finally:
        holder.kill()
        holder.wait()
    with StoreLock(lock_file, wait_seconds=1):
        assert os.getpid() == json.loads(lock_file.read_text())["pid"]


def test_a_waiter_stops_waiting_once_its_give_up_says_the_wait_is_pointless(tmp_path):
    """An owner server waits for its store only while no other server answers: asked again and again while
    waiting, not only on its first try."""
    lock_file = tmp_path / "alaya.lock"
    held = StoreLock(lock_file, wait_seconds=0, command="alaya serve (owner server, pid 1)")
    held.acquire()
    try:
        waiter = StoreLock(lock_file, wait_seconds=60)
        asked = []
        waiter.give_up = lambda: (asked.append(time.monotonic()) or len(asked) >= 3)
        started = time.monotonic()
        with pytest.raises(AlayaError) as caught:
            waiter.acquire()
        assert len(asked) == 3 and time.monotonic() - started < 30
        assert caught.value.code == "store_locked" and "owner server" in caught.value.message
    finally:
        held.release()
