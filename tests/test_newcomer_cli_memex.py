"""memex cards for a newcomer: ``trace`` shows the file a card came from (there is no session to show), and
``import-memex`` given one file says to give the vault folder."""

from __future__ import annotations

import os
import shutil

from conftest import FIXTURES

from alaya_engine.foundations.domain import card_id_for

CARD = card_id_for("memex", "docker-memory-limit")


def test_trace_of_a_memex_card_shows_its_file_and_modification_time(cli, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / "memex_vault", vault)
    note = vault / "docker-memory-limit.md"
    os.utime(note, (1764547200, 1764547200))  # 2025-12-01 00:00 UTC
    assert cli("import-memex", str(vault)).exit_code == 0
    document = cli("trace", CARD, "--json").json()
    assert document["sessions"] == [] and document["context_turns"] == []
    assert document["source_file"] == {"path": str(note), "modified_at": "2025-12-01T00:00:00Z"}
    human = cli("trace", CARD).stdout
    assert "=== Source File (memex) ===" in human and f"{note} (modified 2025-12-01 00:00 UTC)" in human
    assert "Source Sessions" not in human and "no context turns" not in human
    note.unlink()
    assert f"{note} (no longer there)" in cli("trace", CARD).stdout


def test_a_distilled_card_has_no_source_file(demo_cli):
    card = next(node["card_id"] for node in demo_cli("recall", "gateway restart", "--json").json()["nodes"]
                if node["kind"] == "card")
    document = demo_cli("trace", card, "--json").json()
    assert document["source_file"] is None and document["sessions"]


def test_import_memex_of_one_file_asks_for_the_vault_folder(cli, tmp_path):
    note = FIXTURES / "memex_vault" / "docker-memory-limit.md"
    result = cli("import-memex", str(note))
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.count("\n") == 1 and "give the vault folder" in result.stderr
    assert str(note.parent) in result.stderr
    assert cli("import-memex", str(note), "--json").json()["error"]["code"] == "bad_request"
