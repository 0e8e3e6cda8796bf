"""The secret masker on its labelled file, and what a push sends of a session that holds secrets."""

from __future__ import annotations

import json
import subprocess

from conftest import FIXTURES, machine, write_session

from alaya_engine.sync.mask import mask_text

ROWS = [json.loads(line) for line in (FIXTURES / "secrets.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_masker_hides_99_percent_of_secrets_and_masks_at_most_2_percent_of_look_alikes():
    secrets = [row for row in ROWS if row["secret"]]
    others = [row for row in ROWS if not row["secret"]]
    assert len(secrets) >= 100 and len(others) >= 100
    assert len({row["kind"] for row in secrets}) >= 12 and len({row["kind"] for row in others}) >= 10
    missed = [row["kind"] for row in secrets if row["secret"] in mask_text(row["text"])[0]]
    false = [row["text"] for row in others if mask_text(row["text"])[0] != row["text"]]
    assert len(missed) <= 0.01 * len(secrets), missed
    assert len(false) <= 0.02 * len(others), false


def test_push_masks_the_copy_it_sends_and_dry_run_names_what_without_the_secret(template_home, tmp_path, bare):
    home, cli = machine(template_home, tmp_path, "a", bare)
    key = "sk-proj-" + "Qx7" * 12
    leaked = write_session(tmp_path / "in", "leaky", turns=[
        {"role": "user", "content": f"the deploy fails, my key is {key}"},
        {"role": "assistant", "content": "Set DATABASE_URL=postgres://app:Hunter2pass@db:5432/prod and retry."}])
    assert cli("ingest", str(leaked)).exit_code == 0
    dry = cli("push", "--dry-run", "--json")
    assert dry.exit_code == 0 and key not in dry.stdout and "Hunter2pass" not in dry.stdout
    assert sorted(item["kind"] for item in dry.json()["masked"]) == ["openai_key", "url_password"]
    assert dry.json()["masked"][0]["in"] == "session leaky" and dry.json()["commit"] is None
    assert subprocess.run(["git", "-C", str(bare), "rev-parse", "-q", "--verify", "main"],
                          capture_output=True).returncode != 0  # a dry run sends nothing
    text = cli("push", "--dry-run").stdout
    assert "would mask openai_key in session leaky, turns[0].content" in text and key not in text
    assert cli("push").exit_code == 0
    sent = subprocess.run(["git", "-C", str(bare), "grep", "-h", "-e", "deploy fails", "main"],
                          capture_output=True, text=True).stdout
    assert "[MASKED:openai_key]" in sent and key not in sent
    assert key in next((home / "raw" / "sessions").rglob("session-leaky.json")).read_text()


def test_a_push_masks_again_only_the_sessions_that_changed_since_the_last(template_home, tmp_path, bare):
    home, cli = machine(template_home, tmp_path, "a", bare)
    first = write_session(tmp_path / "in", "cached-1", turns=[{"role": "user", "content": "AWS AKIAQWERTYUIOPASDFGH"}])
    assert cli("ingest", str(first), str(write_session(tmp_path / "in", "cached-2"))).exit_code == 0
    pushed = [cli("push", "--json").json() for _ in range(2)]
    assert [report["sessions_reused"] for report in pushed] == [0, 2]
    assert pushed[0]["masked"] == pushed[1]["masked"] and pushed[1]["changed_files"] == 0
    changed = write_session(tmp_path / "in", "cached-1", turns=[{"role": "user", "content": "now ghp_" + "k9" * 18}])
    assert cli("ingest", str(changed), "--replace").exit_code == 0
    again = cli("push", "--json").json()
    assert again["sessions_reused"] == 1 and [item["kind"] for item in again["masked"]] == ["github_token"]
    sent = subprocess.run(["git", "-C", str(bare), "grep", "-h", "-e", "now ", "main"], capture_output=True,
                          text=True).stdout
    assert "[MASKED:github_token]" in sent and "ghp_" not in sent
    copy = next((home / "sync" / "remotes" / "origin" / "sessions").rglob("session-cached-2.json"))
    copy.write_text(copy.read_text().replace("telegram", "telegraph"))  # a working copy file not as it was made
    assert cli("push", "--json").json()["sessions_reused"] == 1
    cache = home / "sync" / "export-cache.json"
    cache.write_text(json.dumps({**json.loads(cache.read_text()), "version": "an older masker"}))
    assert cli("push", "--json").json()["sessions_reused"] == 0
    assert json.loads(cache.read_text())["version"] != "an older masker"
