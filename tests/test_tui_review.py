"""The review screen: pending suggestions with their evidence, decisions that change the engine at once, and
introspect with progress and an honest cancel (between steps)."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from fake_backend import demo_backend, recorded
from rich.cells import cell_len
from textual.widgets import SelectionList
from tui_store import SIZE, review_fixtures, settle

from alaya_engine.introspect.run import INTROSPECT_STEPS
from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import AlayaApp
from alaya_tui.introspect_job import STEP_PURPOSES, run_introspect
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.dialogs import DEFAULT_STEPS, ConfirmDialog, IntrospectDialog
from alaya_tui.screens.review import ReviewScreen
from alaya_tui.screens.tiers import TiersScreen
from alaya_tui.widgets.suggestion_evidence import SuggestionEvidence
from alaya_tui.widgets.suggestion_table import SuggestionTable

review_template, review_home = review_fixtures()
SNAPSHOT_TEXTUAL = "8.2.8"
ROWS = ["merge_cards", "similar_to", "similar_to", "merge_relations", "promote_relation", "split_relation"]
"""The fixture's pending suggestions in the order the list shows them."""


async def open_review(app, pilot, row: int = 0) -> ReviewScreen:
    await pilot.press("escape", "4")  # leave the query bar of the home screen, then Review
    await settle(app, pilot)
    await pilot.press(*["j"] * row)
    await settle(app, pilot)
    screen = app.screen
    assert isinstance(screen, ReviewScreen)
    assert screen.query_one("#evidence", SuggestionEvidence).suggestion["kind"] == ROWS[row]
    return screen


def pending(backend) -> dict[str, dict]:
    return {s["id"]: s for s in backend.call("review.list", {"status": "pending"})["suggestions"]}


def shown_ids(screen: ReviewScreen) -> list[str]:
    return [row.key.value for row in screen.query_one("#suggestions", SuggestionTable).ordered_rows]


async def test_the_list_is_the_pending_queue_and_the_evidence_compares_both_cards(review_home):
    backend = LocalBackend(review_home)
    queue = pending(backend)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        assert sorted(shown_ids(screen)) == sorted(queue)
        assert [s["kind"] for s in screen.query_one("#suggestions", SuggestionTable).suggestions] == ROWS
        table = screen.query_one("#suggestions", SuggestionTable)
        assert "Gateway restart drops queued Telegram messages ↔ Telegram" in str(table.get_row_at(0)[1])
        evidence = screen.query_one("#evidence", SuggestionEvidence)
        assert [side.name for side in evidence.sides] == ["card-restart", "card-restart-dup"]
        assert [side.heading for side in evidence.sides] == [
            backend.call("card", {"card_id": card_id})["card"]["title"]
            for card_id in ("card-restart", "card-restart-dup")]
        assert "importance 0.90" in evidence.sides[0].meta and "importance 0.40" in evidence.sides[1].meta
        assert "created 2026-03-31" in evidence.sides[0].meta
        # what differs, word by word, and what the merged card will be (the hotter tier stays)
        first, second = (str(panel.query_one(".subject-diff").content) for panel in evidence.query(".subject"))
        assert "acknowledges updates before the gateway has persisted them" in first and "never arrive" in second
        effect = str(evidence.query_one("#evidence-effect").content)
        assert "Merged: card-restart absorbs card-restart-dup · HOT · temperature 0.95 · importance 0.90" in effect
        await pilot.press("j", "j", "j")  # the relation merge: both relations, their uses, what approving does
        await settle(app, pilot)
        assert evidence.suggestion["kind"] == "merge_relations"
        assert [side.name for side in evidence.sides] == ["INFLUENCED_BY", "INSPIRED_BY"]
        assert "renamed to INFLUENCED_BY" in evidence.sides[1].meta


async def test_approving_a_card_merge_changes_the_engine_and_opens_the_merged_card(review_home):
    backend = LocalBackend(review_home)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot)
        merge_id = screen.query_one("#evidence", SuggestionEvidence).suggestion["id"]
        await pilot.press("a")
        await settle(app, pilot)
        card = app.screen
        assert isinstance(card, CardScreen) and card.card_id == "card-restart"
        assert ("card-config", "DEPENDS_ON") in {(e["card_id"], e["relation"]) for e in card.document["incoming"]}

        with backend.engine.hold() as graph:
            assert list(graph.cards(["card-restart", "card-restart-dup"])) == ["card-restart"]
            assert graph.query("MATCH (:Card {id: 'card-config'})-[:DEPENDS_ON]->(c:Card) RETURN c.id") == [
                ["card-restart"]]
            assert graph.query("MATCH (:Card {id: 'card-restart'})-[:CAUSED_BY]->(c:Card) RETURN c.id") == [
                ["card-allow"]]
        assert backend.call("card", {"card_id": "card-restart-dup"})["card"]["id"] == "card-restart"
        assert merge_id not in pending(backend)

        await pilot.press("escape")  # back to the list, which no longer holds the merge
        await settle(app, pilot)
        assert app.screen is screen and merge_id not in shown_ids(screen) and len(shown_ids(screen)) == 5


async def test_skip_reject_a_promotion_and_approve_all_of_a_kind(review_home):
    backend = LocalBackend(review_home)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_review(app, pilot, row=1)
        table = screen.query_one("#suggestions", SuggestionTable)
        similar = screen.query_one("#evidence", SuggestionEvidence).suggestion
        await pilot.press("n")  # skip: nothing decided, the next one selected
        await settle(app, pilot)
        assert table.cursor_row == 2 and similar["id"] in pending(backend)

        await pilot.press("k", "r")  # reject: off the list, rejected in the engine
        await settle(app, pilot)
        assert similar["id"] not in shown_ids(screen) and similar["id"] not in pending(backend)
        assert [s["id"] for s in backend.call("review.list", {"status": "rejected"})["suggestions"]] == [similar["id"]]
        await pilot.press("u")  # undo: pending again, in the engine and on the list
        await settle(app, pilot)
        assert similar["id"] in pending(backend) and similar["id"] in shown_ids(screen)
        await pilot.press("r")  # (the cursor stayed on it)
        await settle(app, pilot)
        assert similar["id"] not in pending(backend)

        promotion = next(s for s in pending(backend).values() if s["kind"] == "promote_relation")
        while table.selected["id"] != promotion["id"]:
            await pilot.press("j")
        await pilot.press("a")  # the promotion: LED_TO gets its own table
        await settle(app, pilot)
        assert promotion["id"] not in pending(backend) and promotion["id"] not in shown_ids(screen)
        assert any("LED_TO has a relation table of its own" in n.message and "\nnext: " in n.message
                   for n in app._notifications)
        while table.selected["kind"] != "similar_to":
            await pilot.press("k")

        await pilot.press("A")  # every pending SIMILAR_TO (one left), after a confirmation
        await pilot.pause()
        assert isinstance(app.screen, ConfirmDialog) and "Approve all 1 pending SIMILAR_TO" in app.screen.question
        await pilot.press("n")
        await settle(app, pilot)
        assert app.screen is screen and len(pending(backend)) == 4
        await pilot.press("A", "y")
        await settle(app, pilot)
        assert sorted(s["kind"] for s in pending(backend).values()) == [
            "merge_cards", "merge_relations", "split_relation"]
        with backend.engine.hold() as graph:
            linked = graph.query("MATCH (a:Card)-[:SIMILAR_TO]->(b:Card) RETURN a.id, b.id")
        assert ("card-launchd", "card-systemd") in {tuple(row) for row in linked}


async def choose_steps(app, pilot, wanted: set[str]) -> None:
    """In the introspect dialog, leave exactly ``wanted`` selected (keyboard only), then run."""
    await pilot.press("i")
    await pilot.pause()
    assert isinstance(app.screen, IntrospectDialog)
    for step in INTROSPECT_STEPS:
        if (step in wanted) != (step in DEFAULT_STEPS):  # forget starts unticked
            await pilot.press("space")
        await pilot.press("down")
    assert set(app.screen.query_one("#introspect-steps", SelectionList).selected) == wanted
    await pilot.press("r")


async def test_introspect_shows_progress_cancels_between_steps_and_the_tiers_follow(review_home):
    backend = LocalBackend(review_home)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "3")
        await settle(app, pilot)
        tiers = app.screen
        assert isinstance(tiers, TiersScreen)
        screen = await open_review(app, pilot)
        await pilot.press("r")  # one fewer pending; consolidate must not propose it again
        await settle(app, pilot)
        progress = screen.query_one("#introspect-progress")
        before = tiers.report

        backend.engine._mutex.acquire()  # the first step waits for the graph until cancel was pressed
        try:
            await choose_steps(app, pilot, {"consolidate", "cooldown"})
            await pilot.pause()
            assert screen.introspecting and progress.display
            await pilot.press("c")
            assert "cancelling: this step finishes first" in str(progress.query_one("#introspect-label").content)
        finally:
            backend.engine._mutex.release()
        await settle(app, pilot)
        assert not screen.introspecting and not progress.display
        cancelled = [n.message for n in app._notifications if n.title == "Introspect cancelled"]
        assert cancelled and "consolidate: 0 new suggestions, 5 pending" in cancelled[0]
        assert "skipped: cooldown" in cancelled[0]
        assert tiers.report is not before  # the tiers screen reloaded, though it is not the one shown
        assert tiers.report["l1"]["by_tier"] == backend.call("status")["l1"]["by_tier"]

        await choose_steps(app, pilot, {"consolidate"})
        await settle(app, pilot)
        done = [n.message for n in app._notifications if n.title == "Introspect done"]
        assert done == ["consolidate: 0 new suggestions, 5 pending"] and len(shown_ids(screen)) == 5


def test_run_introspect_runs_the_chosen_steps_in_the_engine_order(tmp_path):
    backend = demo_backend(tmp_path)
    seen = []
    run = run_introspect(backend, ["cooldown", "consolidate"], on_step=lambda i, s: seen.append(s),
                         on_progress=lambda done, total: None, should_stop=lambda: len(seen) == 1)
    assert seen == ["consolidate"] and run.cancelled and run.skipped == ["cooldown"]
    assert backend.called("introspect") == [{"steps": ["consolidate"]}]
    assert run.reports["consolidate"] == recorded()["introspect"]["steps"]["consolidate"]
    assert set(STEP_PURPOSES) == set(INTROSPECT_STEPS)


def snapshot_at(row: int):
    async def open_screen(pilot) -> None:
        await open_review(pilot.app, pilot, row)

    return open_screen


@pytest.mark.skipif(version("textual") != SNAPSHOT_TEXTUAL,
                    reason=f"the review snapshots were recorded with textual {SNAPSHOT_TEXTUAL}")
@pytest.mark.parametrize(("row", "size"), [(0, SIZE), (0, (80, 24)), (3, SIZE)],
                         ids=["card-merge", "card-merge-80x24", "relation-merge"])
def test_review_snapshot(review_home, snap_compare, row, size):
    """The card merge shows both contents compared word by word and the merged card; at 80×24 too."""
    assert snap_compare(AlayaApp(LocalBackend(review_home)), terminal_size=size, run_before=snapshot_at(row))


async def test_chinese_rows_are_cut_by_terminal_cells_at_80_columns(tmp_path):
    """A CJK character takes two cells: subjects are cut by cells, so no row runs into the Evidence column."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await pilot.press("4")
        await settle(app, pilot)
        table = app.screen.query_one("#suggestions", SuggestionTable)
        width = table.columns["subjects"].width
        cells = [table.get_cell(suggestion["id"], "subjects").plain for suggestion in table.suggestions]
        assert any(cell_len(cell) > len(cell) for cell in cells)  # Chinese titles arrived
        assert all(cell_len(cell) <= width for cell in cells)
        assert all(cell_len(cell) >= width - 1 for cell in cells if cell.endswith("…"))
