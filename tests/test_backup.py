"""backup and restore FILE: consistent while another process writes; restore never clobbers a home silently."""

from __future__ import annotations

import gzip
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest
from conftest import cli_for, write_session

SECRET = "sk-test-0123456789abcdef-never-in-a-backup"


def members(archive: Path) -> set[str]:
    with tarfile.open(archive, "r:gz") as tar:
        return {member.name for member in tar.getmembers()}


def test_backup_and_restore_round_trip(demo_home, demo_cli, tmp_path):
    archive = tmp_path / "snap.tar.gz"
    result = demo_cli("backup", "--out", str(archive), "--json")
    assert result.exit_code == 0, result.stderr
    report = result.json()
    assert report["path"] == str(archive) and report["files"] > 100 and report["snapshot_s"] < report["total_s"]
    names = members(archive)
    assert {"store.json", "config.json"} <= names and any(name.startswith("graph/") for name in names)
    assert (any(name.startswith("lancedb/") for name in names)
            and any(name.startswith("raw/sessions/") for name in names))
    assert not any(name.startswith(("logs/", "cache/", "backup/")) or name in ("alaya.lock", "alaya.sock", "server.pid")
                   for name in names)

    restored = tmp_path / "restored"
    result = cli_for(restored)("restore", str(archive), "--json")
    assert result.exit_code == 0, result.stderr
    assert result.json()["verify"]["ok"] and result.json()["replaced"] is None
    query = ("recall", "gateway restart telegram", "--json")
    assert cli_for(restored)(*query).json()["nodes"] == demo_cli(*query).json()["nodes"]


def test_restore_refuses_a_non_empty_home_without_force_and_keeps_the_old_one_with_it(demo_home, demo_cli, tmp_path):
    archive = tmp_path / "snap.tar.gz"
    assert demo_cli("backup", "--out", str(archive)).exit_code == 0
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    refused = cli_for(other)("restore", str(archive))
    assert refused.exit_code == 2 and "--force" in refused.stderr and (other / "notes.txt").exists()
    assert not (other / "store.json").exists()

    forced = cli_for(other)("restore", str(archive), "--force", "--json")
    assert forced.exit_code == 0, forced.stderr
    kept = Path(forced.json()["replaced"])
    assert (kept / "notes.txt").read_text() == "mine" and (other / "store.json").exists()


def test_backup_refuses_to_overwrite_and_restore_rejects_what_is_not_a_backup(demo_cli, tmp_path):
    existing = tmp_path / "taken.tar.gz"
    existing.write_bytes(b"x")
    assert demo_cli("backup", "--out", str(existing)).exit_code == 2

    target = cli_for(tmp_path / "fresh")
    garbage = tmp_path / "garbage.tar.gz"
    garbage.write_bytes(b"this is not gzip")
    foreign = tmp_path / "foreign.tar.gz"
    with tarfile.open(foreign, "w:gz") as tar:
        tar.add(__file__, arcname="something.py")
    escaping = tmp_path / "escaping.tar.gz"
    with tarfile.open(escaping, "w:gz") as tar:
        for name in ("store.json", "config.json", "raw/../../escaped.txt"):
            data = b"{}"
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    for archive, code in ((garbage, 2), (foreign, 2), (tmp_path / "missing.tar.gz", 2), (escaping, 1)):
        result = target("restore", str(archive))
        assert result.exit_code == code, (archive, result.stderr)
        assert result.stderr.startswith("error:") and "Traceback" not in result.stderr
    assert not (tmp_path / "escaped.txt").exists() and not (tmp_path / "fresh").exists()


def test_no_api_key_reaches_a_backup(home, cli, tmp_path, monkeypatch):
    monkeypatch.setenv("ALAYA_TEST_EMBED_KEY", SECRET)
    config_file = home / "config.json"
    config = json.loads(config_file.read_text())
    config["distill"].update({"llm_provider": "openai", "api_key_env": "ALAYA_TEST_EMBED_KEY",
                              "base_url": "http://127.0.0.1:9/v1", "model": "m"})
    config_file.write_text(json.dumps(config))
    cli("ingest", str(write_session(tmp_path / "in")))
    cli("distill")  # fails against the closed port, logging what it tried
    archive = tmp_path / "snap.tar.gz"
    assert cli("backup", "--out", str(archive)).exit_code == 0
    with gzip.open(archive) as unpacked:
        assert SECRET.encode() not in unpacked.read()


def server_env() -> dict:
    return {key: value for key, value in os.environ.items() if key != "ALAYA_NO_SERVER"}


@pytest.mark.slow
def test_a_backup_taken_while_another_process_ingests_restores_clean(demo_home, tmp_path):
    """Through the owner server, the snapshot is one step between the ingester's steps."""
    incoming = tmp_path / "incoming"
    for number in range(40):
        write_session(incoming, f"session-20260401-{number:06d}", timestamp=1775000000000 + number * 60_000,
                      turns=[{"role": "user", "content": f"question {number} about pgbouncer pool size"},
                             {"role": "assistant", "content": f"answer {number}: raise default_pool_size"}])
    alaya = [sys.executable, "-m", "alaya_cli", "--home", str(demo_home)]
    try:
        ingest = subprocess.Popen([*alaya, "ingest", str(incoming), "--distill", "--json"], env=server_env(),
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        archives = []
        while ingest.poll() is None and len(archives) < 3:
            archive = tmp_path / f"during-{len(archives)}.tar.gz"
            taken = subprocess.run([*alaya, "backup", "--out", str(archive)], env=server_env(), capture_output=True,
                                   text=True, timeout=300)
            assert taken.returncode == 0, taken.stderr
            archives.append(archive)
        out, err = ingest.communicate(timeout=300)
        assert ingest.returncode == 0, err
    finally:
        subprocess.run([*alaya, "server", "stop"], env=server_env(), capture_output=True, timeout=60)
    assert archives
    for number, archive in enumerate(archives):
        result = cli_for(tmp_path / f"restored-{number}")("restore", str(archive), "--json")
        assert result.exit_code == 0 and result.json()["verify"]["problems"] == [], result.stdout[-2000:]
