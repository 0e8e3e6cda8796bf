"""``alaya review`` reads like a queue: the pending suggestions with status, kind, evidence and titles; one
suggestion in full, with dates; and a bare ``alaya review`` (or any bare group) prints its usage."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from alaya_cli.app import app


@pytest.fixture
def reviewed(demo_cli):
    """The demo store after consolidate: card suggestions pending, one of them rejected."""
    assert demo_cli("introspect", "--step", "consolidate").exit_code == 0
    suggestions = demo_cli("review", "list", "--json").json()["suggestions"]
    assert len(suggestions) >= 2 and {s["status"] for s in suggestions} == {"pending"}
    rejected = suggestions[0]
    assert demo_cli("review", "reject", rejected["id"]).exit_code == 0
    return demo_cli, rejected, suggestions[1]


def test_the_list_shows_pending_suggestions_with_titles_and_evidence(reviewed):
    cli, rejected, pending = reviewed
    listed = cli("review", "list")
    assert listed.exit_code == 0, listed.stderr
    lines = [line for line in listed.stdout.splitlines() if line.startswith("sug-")]
    assert lines and rejected["id"] not in listed.stdout
    assert all(re.match(r"sug-\w+  pending\s+(similar_to|merge_cards|merge_relations|promote_relation|split_relation)"
                        r"\s+(similarity \d\.\d\d|\d+ uses?)", line) for line in lines), lines
    shown = cli("review", "show", pending["id"], "--json").json()
    line = next(line for line in lines if line.startswith(pending["id"]))
    assert all(f'"{card["title"]}"' in line for card in shown["cards"]) and " ↔ " in line
    every = cli("review", "list", "--all")
    assert re.search(rf"{rejected['id']}  rejected ", every.stdout)
    titles = cli("review", "list", "--json").json()["suggestions"][0]["titles"]
    assert len(titles) == 2 and all(isinstance(title, str) and title for title in titles)


def test_show_is_for_people_and_json_only_when_asked(reviewed):
    cli, rejected, pending = reviewed
    human = cli("review", "show", pending["id"])
    assert human.exit_code == 0, human.stderr
    assert not human.stdout.lstrip().startswith("{") and "created_at" not in human.stdout
    assert re.search(r"Proposed \d{4}-\d\d-\d\d \d\d:\d\d UTC", human.stdout)
    assert "Evidence: similarity" in human.stdout and f"alaya review approve {pending['id']}" in human.stdout
    decided = cli("review", "show", rejected["id"])
    assert "(rejected)" in decided.stdout and "decided 20" in decided.stdout and "Decide:" not in decided.stdout
    document = cli("review", "show", pending["id"], "--json").json()
    assert document["id"] == pending["id"] and isinstance(document["created_at"], int)


@pytest.mark.parametrize("group", [[], ["review"], ["server"], ["sync"]])
def test_a_bare_group_prints_its_usage(group):
    result = CliRunner().invoke(app, group, prog_name="alaya")
    assert result.exit_code == 0 and result.stderr == ""
    assert result.stdout.startswith(" ".join(["Usage: alaya", *group, "[OPTIONS] COMMAND"]))
    assert "Commands:" in result.stdout and len(result.stdout.splitlines()) > 5


def test_a_decision_says_what_changed_and_what_next_and_undo_reopens_only_what_changed_nothing(reviewed):
    cli, rejected, pending = reviewed
    undone = cli("review", "undo", "--json")  # the last decision: the rejection
    assert undone.exit_code == 0, undone.stderr
    assert undone.json()["undone"] == {"id": rejected["id"], "kind": rejected["kind"], "status": "pending",
                                       "was": "rejected"}
    assert cli("review", "show", rejected["id"], "--json").json()["status"] == "pending"
    approved = cli("review", "approve", pending["id"])
    assert approved.exit_code == 0, approved.stderr
    assert f"{pending['id']} {pending['kind']} approved: " in approved.stdout and "\n  next: " in approved.stdout
    refused = cli("review", "undo")
    assert refused.exit_code == 2 and refused.stderr.startswith(f"error: approving {pending['kind']} ")
    assert cli("review", "show", pending["id"], "--json").json()["status"] == "approved"


def test_a_merge_keeps_the_hotter_tier_and_temperature_and_the_newest_facts():
    from datetime import datetime

    from alaya_engine.introspect.apply import keep_and_drop, merged_card

    moment = datetime(2026, 3, 1)
    cold = {"id": "card-a", "title": "A", "content": "long content " * 5, "type": "gotcha", "tags": ["x"],
            "importance": 0.9, "source_sessions": ["s1"], "created_at": moment, "temperature": 0.2, "tier": "COLD",
            "source": "distill", "facts": []}
    hot = {**cold, "id": "card-b", "content": "short", "importance": 0.4, "tags": ["y"], "source_sessions": ["s2"],
           "temperature": 0.8, "tier": "HOT"}
    keep, drop = keep_and_drop(hot, cold)
    assert (keep["id"], drop["id"]) == ("card-a", "card-b")  # the more important card absorbs the other ...
    merged = merged_card(keep, drop, 1)
    assert (merged.tier, merged.temperature) == ("HOT", 0.8)  # ... and the result stays as hot as the hotter
    assert merged.tags == ["x", "y"] and merged.source_sessions == ["s1", "s2"]
