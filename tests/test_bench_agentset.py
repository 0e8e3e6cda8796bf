"""The agentset rows (``distill_coverage`` on agentset, ``agentset_quality``): their metrics on hand-made cases, then
the rows' own code on the first two sessions of the shared set in a real store (skipped without the data)."""

from __future__ import annotations

import os

import pytest

from bench.agentset_coverage import coverage_rows
from bench.agentset_quality import MODES, current_first, retrieval_rows
from bench.agentset_store import build
from bench.item_coverage import CardText, covers, matches, measure, said
from bench.quality import agentset
from bench.quality.agentset import Item, Update
from bench.quality.records import MissingData, Question
from bench.quality.scoring import Scored
from bench.quality.units import Unit
from bench.specifics import kept, specifics

TURN_TEXT = {("s", 1): "Moved the reconciliation job to 02:00 UTC on pg-main-04, away from the EU morning.",
             ("s", 2): "ok thanks", ("s", 5): "Unrelated: lunch at noon."}
ITEM = Item("s-k1", "s", frozenset({("s", 1)}), "decision",
            "Since 3 Feb 2026 the billing reconciliation job runs at 02:00 UTC on pg-main-04.")


def test_specifics_are_numbers_times_identifiers_and_names_not_a_sentence_start():
    assert specifics("Escalation rule: if cl_waiting exceeds 50 for 5 minutes, page Marco. Then call Chen at 07:45 "
                     "UTC about SQLAlchemy and src/db.py.") == [
        "cl_waiting", "50", "5", "Marco", "Chen", "07:45", "UTC", "SQLAlchemy", "src/db.py"]
    assert specifics("林舒的父亲在杭州仁和医院看病，从 3 月 16 日起改用 WeasyPrint。") == [
        "3", "16", "WeasyPrint", "林舒", "杭州", "仁和"]


def test_a_text_keeps_a_specific_as_a_whole_word_whatever_its_case_and_width():
    text = "PG-MAIN-02:6432 since 2026, ０７:45 utc, 杭州市"
    assert kept(["pg-main-02", "6432", "07:45", "UTC", "杭州"], text) == 5
    assert kept(["20", "main", "16"], text) == 1
    assert kept(["9", "3", "27", "7"], "from 2026-03-09 to the 27th") == 3


def test_only_the_specifics_the_items_turns_say_are_asked_of_a_card():
    assert said(ITEM, TURN_TEXT) == ("02:00", "UTC", "pg-main-04")


def test_a_card_from_the_items_turn_that_drops_its_time_does_not_cover_it_one_that_keeps_it_does():
    wanted = said(ITEM, TURN_TEXT)
    dropped = CardText("c-dropped", frozenset({("s", 1), ("s", 2)}), "Reconciliation moved\nIt now runs at night.")
    halved = CardText("c-halved", frozenset({("s", 1)}), "Reconciliation moved\nIt runs on pg-main-04 at 02:00.")
    keeps = CardText("c-keeps", frozenset({("s", 1)}), "Reconciliation at 02:00 utc\nIt runs on pg-main-04 now.")
    elsewhere = CardText("c-elsewhere", frozenset({("s", 5)}), "Reconciliation at 02:00 UTC on pg-main-04")
    assert [covers(card, ITEM, wanted) for card in (dropped, halved, keeps, elsewhere)] == [False, False, True, False]
    assert [matches(card, ITEM, wanted) for card in (dropped, halved, keeps, elsewhere)] == [False, True, True, False]
    coverage = measure([ITEM], [dropped, halved, keeps, elsewhere], TURN_TEXT)
    [judged] = coverage.judged
    assert judged.covering == ("c-keeps",) and judged.best_kept == 3 and judged.covered_whole
    assert not judged.covered_with_stated  # the statement's "3 Feb 2026" was never said
    assert coverage.unmatched == ["c-dropped", "c-elsewhere"] and coverage.untouched == ["c-elsewhere"]


def test_the_current_item_counts_first_only_when_its_unit_ranks_above_the_stale_ones():
    update = Update("q", frozenset({("new", 3)}), frozenset({("old", 7)}))
    question = Question("q", "?", ("update", "all"), update.current | update.stale)

    def ranked(*turns):
        return Scored(question, [Unit(frozenset(keys), 10) for keys in turns])

    assert current_first(ranked({("x", 0)}, {("new", 3)}, {("old", 7)}), update)
    assert current_first(ranked({("new", 3), ("new", 4)}), update)
    assert not current_first(ranked({("old", 7)}, {("new", 3)}), update)
    assert not current_first(ranked({("old", 7), ("new", 3)}), update)
    assert not current_first(ranked({("old", 7)}), update)


def test_the_rows_run_on_two_sessions_in_a_real_store(home):
    try:
        dataset = agentset.load(2)
    except MissingData as missing:
        pytest.skip(str(missing))
    built = build(home, dataset)
    rows = {row.metric: row for row in coverage_rows("distill_coverage", dataset, home, built)}
    covered = rows["agentset: items a card covers"]
    assert built["cards"] == rows["agentset: cards made"].value > 0
    assert 0 < covered.value <= 100 and covered.note.startswith(f"{round(covered.value * len(dataset.items) / 100)} "
                                                                f"of {len(dataset.items)};")
    assert {f"agentset: {kind} items covered" for kind in agentset.KINDS} <= set(rows)
    assert len(rows["agentset: per-item results (JSON detail)"].detail["rows"]) == len(dataset.items)
    quality = {row.metric: row for row in retrieval_rows(dataset, home)}
    for mode in MODES:
        assert 0 < quality[f"agentset all: recall@10 — {mode}"].value <= 1
    assert quality["agentset: per-question results (JSON detail)"].value == len(dataset.haystack.questions)


def test_the_coverage_rows_measure_an_llm_distiller_beside_the_offline_one(template_home, tmp_path, monkeypatch):
    """The LLM variant runs only when the environment names an endpoint; here a real HTTP server on 127.0.0.1
    that answers every session with one card holding the whole prompt it was sent (so every specific)."""
    import json
    import shutil
    from http.server import BaseHTTPRequestHandler

    from conftest import local_http_server

    from bench import agentset_coverage

    try:
        dataset = agentset.load(2)
    except MissingData as missing:
        pytest.skip(str(missing))

    class EchoLLM(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_POST(self):
            request = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            said = "\n".join(message["content"] for message in request["messages"] if message["role"] == "user")
            cards = {"cards": [{"title": "Everything said", "content": said, "type": "concept", "tags": ["all"],
                                "importance": 0.9, "turns": list(range(20))}], "links": []}
            body = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message": {
                "role": "assistant", "content": json.dumps(cards)}}]}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    assert agentset_coverage.llm_settings({}) is None
    with local_http_server(EchoLLM) as url:
        monkeypatch.setenv("ALAYA_BENCH_LLM_URL", url)
        monkeypatch.setenv("ALAYA_BENCH_LLM_MODEL", "echo")
        monkeypatch.setenv("ALAYA_BENCH_LLM_KEY_ENV", "ALAYA_TEST_BENCH_KEY")
        monkeypatch.setenv("ALAYA_TEST_BENCH_KEY", "sk-bench")
        settings = agentset_coverage.llm_settings(os.environ)
        home = tmp_path / "llm-home"
        shutil.copytree(template_home, home)
        built = build(home, dataset, settings)
        rows = {row.metric: row for row in coverage_rows("distill_coverage", dataset, home, built,
                                                         "agentset (LLM echo)")}
    assert built["cards"] == rows["agentset (LLM echo): cards made"].value == len(dataset.session_ids)
    assert rows["agentset (LLM echo): items a card covers"].value >= 90  # each card holds every word said
