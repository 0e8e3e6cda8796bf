"""``alaya demo``: the README's first command, offline, from the sessions shipped in the package; the memory it
builds shows the whole product (every tier, a spread of temperatures, genuine review suggestions, a path to
follow from the first query)."""

from __future__ import annotations

import json
import re
from datetime import date

from conftest import DEMO_NOW
from typer.testing import CliRunner

from alaya_cli.app import app
from alaya_engine.demo import FIRST_QUERY, build_demo, sample_sessions_dir
from alaya_engine.demo.timeline import DAY_MS, SHIFT_FILE, shift_days, shifted_text
from alaya_engine.server.backend import LocalBackend


def run_demo(*args: str):
    result = CliRunner().invoke(app, ["demo", *args])
    assert result.exit_code == 0, result.stderr
    return result


def test_sample_sessions_cover_both_languages_and_both_formats():
    files = sorted(sample_sessions_dir().iterdir())
    assert 12 <= len(files) <= 20
    assert sum(path.suffix == ".jsonl" for path in files) >= 2
    text = "".join(path.read_text(encoding="utf-8") for path in files)
    assert re.search(r"[\u4e00-\u9fff]{20}", text) and "because" in text


def test_demo_builds_a_memory_and_is_idempotent(tmp_path):
    home = tmp_path / "demo"
    document = json.loads(run_demo("--demo-home", str(home), "--json").stdout)
    files = len(list(sample_sessions_dir().iterdir()))
    assert document["ingest"]["ingested"] == files and document["ingest"]["refused"] == 0
    assert document["status"]["l3"]["sessions"] == files == document["status"]["l2"]["sessions"]
    channels = {outcome["channel"] for outcome in document["ingest"]["files"]}
    assert "openclaw" in channels and "telegram" in channels
    again = json.loads(run_demo("--demo-home", str(home), "--json").stdout)
    assert again["init"]["created"] is False and again["ingest"]["unchanged"] == files
    fresh = json.loads(run_demo("--demo-home", str(home), "--fresh", "--json").stdout)
    assert fresh["init"]["created"] is True and fresh["ingest"]["ingested"] == files


def test_demo_human_output_shows_status(tmp_path, monkeypatch):
    monkeypatch.setenv("ALAYA_DEMO_HOME", str(tmp_path / "env-demo"))
    output = run_demo().stdout
    files = len(list(sample_sessions_dir().iterdir()))
    assert "Alaya is ready!" in output and f"Sessions: {files} ingested" in output and "L2 Graph DB" in output
    assert (tmp_path / "env-demo" / "store.json").exists()


def test_demo_has_hot_warm_and_cold_cards_and_a_spread_of_temperatures(demo_home):
    status = LocalBackend(demo_home).call("status", None)
    assert all(count > 0 for count in status["l1"]["by_tier"].values()), status["l1"]["by_tier"]
    assert sum(bucket["count"] > 0 for bucket in status["temperature"]) >= 3, status["temperature"]


def test_demo_review_suggestions_pair_cards_of_different_sessions(demo_home):
    backend = LocalBackend(demo_home)
    genuine = []
    for suggestion in backend.call("review.list", {"status": "pending"})["suggestions"]:
        if suggestion["kind"] in ("merge_cards", "similar_to"):
            cards = [backend.call("card", {"card_id": card_id})["card"] for card_id in suggestion["subjects"]]
            if set(cards[0]["source_sessions"]).isdisjoint(cards[1]["source_sessions"]):
                genuine.append(suggestion)
    assert len(genuine) >= 2


def test_the_first_query_leads_on_along_an_explorable_relation(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": FIRST_QUERY}})
    assert first["nodes"] and first["explorable"]
    shown = {node["card_id"] for node in first["nodes"]}
    for item in first["explorable"]:
        step = backend.call("recall", {"request": {"from_nodes": item["from_nodes"], "relations": [item["rel"]],
                                                   "depth": 1}})
        assert {node["card_id"] for node in step["nodes"]} - shown, item["rel"]  # cards the query did not show


def test_the_timeline_ends_the_day_before_the_demo_is_built_and_stays_put(tmp_path):
    later = DEMO_NOW + 30 * DAY_MS
    home = tmp_path / "demo"
    report = build_demo(home, now=later)
    assert json.loads((home / SHIFT_FILE).read_text())["shift_days"] == 30
    assert report.status.to_json()["l3"]["newest"] == "2026-05-17"
    assert all(count > 0 for count in report.status.to_json()["l1"]["by_tier"].values())
    files = sorted(sample_sessions_dir().iterdir())
    assert shift_days(home, files, later + 3 * DAY_MS, new_store=False) == 30  # built again another day
    (home / SHIFT_FILE).unlink()  # a demo store built before its sessions were moved in time keeps the shipped dates
    assert shift_days(home, files, later, new_store=False) == 0


def test_every_date_of_a_session_file_moves_by_whole_days():
    text = ('{"id": "session-20260309-013000", "timestamp": 1773019800000, "turns": [{"content": '
            '"since Sat 2026-03-07 14:02:31 UTC", "timestamp": "2026-03-09T01:30:05.000Z"}]}')
    moved = json.loads(shifted_text(text, 7))
    assert moved["id"] == "session-20260316-013000" and moved["timestamp"] == 1773019800000 + 7 * DAY_MS
    assert moved["turns"][0] == {"content": "since Sat 2026-03-14 14:02:31 UTC",
                                 "timestamp": "2026-03-16T01:30:05.000Z"}
    assert date(2026, 3, 14).weekday() == date(2026, 3, 7).weekday()
    assert shifted_text(text, 0) == text


def test_demo_is_built_where_home_says_when_that_is_new_or_a_demo_and_never_into_a_store_of_ones_own(tmp_path):
    home = tmp_path / "named"
    document = json.loads(run_demo_with("--home", str(home), "demo", "--json").stdout)
    assert document["home"] == str(home) and document["init"]["created"] is True
    again = json.loads(run_demo_with("--home", str(home), "demo", "--json").stdout)
    assert again["home"] == str(home) and again["init"]["created"] is False
    own = tmp_path / "own"
    assert CliRunner().invoke(app, ["--home", str(own), "init", "--json"]).exit_code == 0
    refused = CliRunner().invoke(app, ["--home", str(own), "demo", "--json"])
    assert refused.exit_code == 2 and json.loads(refused.stdout)["error"]["code"] == "not_a_demo_store"
    assert "--demo-home" in refused.stderr
    assert json.loads(run_demo_with("--home", str(own), "status", "--json").stdout)["l3"]["sessions"] == 0


def run_demo_with(*args: str):
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.stderr
    return result
