"""The tiers screen shows what ``alaya status --json`` and ``alaya schema --relations --json`` report, and follows
the store when the app changes it."""

from __future__ import annotations

from importlib.metadata import version

import pytest
from conftest import cli_for
from fake_backend import demo_backend
from tui_store import SIZE, review_fixtures, settle

from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import AlayaApp
from alaya_tui.screens.tiers import TiersScreen
from alaya_tui.widgets.bar_chart import BarChart
from alaya_tui.widgets.relation_usage import relation_rows

review_template, review_home = review_fixtures()
SNAPSHOT_TEXTUAL = "8.2.8"


def chart(screen: TiersScreen, name: str) -> list[tuple[str, int, float]]:
    return [(row.label, row.count, row.share) for row in screen.query_one(f"#{name}", BarChart).rows]


async def open_tiers(app, pilot) -> TiersScreen:
    await pilot.press("escape", "3")  # leave the query bar of the home screen, then Tiers
    await settle(app, pilot)
    assert isinstance(app.screen, TiersScreen)
    return app.screen


async def test_tiers_show_the_status_and_schema_documents_and_reload_when_the_app_changes_the_store(review_home):
    cli = cli_for(review_home)
    status = cli("status", "--json").json()
    relations = cli("schema", "--relations", "--json").json()["relations"]
    backend = LocalBackend(review_home)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tiers(app, pilot)
        tiers = chart(screen, "tier-chart")
        temperature = chart(screen, "temperature-chart")
        types = chart(screen, "type-chart")
        assert screen.relations == relations

        before = screen.report
        merge = next(s for s in backend.call("review.list", {"status": "pending"})["suggestions"]
                     if s["kind"] == "merge_cards")
        backend.call("review.approve", {"ids": [merge["id"]]})
        app.store_changed_signal.publish("review")  # what the review screen does after a decision
        await settle(app, pilot)
        assert screen.report is not before and screen.report["l2"]["cards"] == 9
        assert dict((label, count) for label, count, _ in chart(screen, "tier-chart"))["HOT"] == 5

    assert [(label, count) for label, count, _ in tiers] == list(status["l1"]["by_tier"].items()) == [
        ("HOT", 6), ("WARM", 2), ("COLD", 2)]
    assert [(band["range"], band["count"], band["share"]) for band in status["temperature"]] == temperature
    assert [(label, count) for label, count, _ in types] == list(status["l2"]["cards_by_type"].items())
    assert sum(share for *_, share in types) == pytest.approx(1.0)
    shown = [(usage["name"], usage["is_core"], usage["uses"]) for usage in relation_rows(relations)]
    assert shown[:len(relations["core"])] == [(usage["name"], True, usage["uses"]) for usage in relations["core"]]
    assert ("LED_TO", False, 101) in shown and relations["custom"][0]["hint"].startswith("high freq")


@pytest.mark.skipif(version("textual") != SNAPSHOT_TEXTUAL,
                    reason=f"the tiers snapshot was recorded with textual {SNAPSHOT_TEXTUAL}")
def test_tiers_snapshot(review_home, snap_compare):
    async def open_screen(pilot) -> None:
        await open_tiers(pilot.app, pilot)

    assert snap_compare(AlayaApp(LocalBackend(review_home)), terminal_size=SIZE, run_before=open_screen)


async def test_at_80_columns_the_charts_keep_every_figure_whole(tmp_path):
    """Three charts side by side in 80 columns: the bars get shorter, labels, counts and shares stay whole."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_tiers(app, pilot)
        for chart_widget in screen.query(BarChart):
            lines = ["".join(segment.text for segment in chart_widget.render_line(y)).split()
                     for y in range(len(chart_widget.rows))]
            for row, words in zip(chart_widget.rows, lines):
                assert [words[0], words[1], words[-1]] == [row.label, f"{row.count:,}", f"{row.share:.0%}"], words
        by_tier = {row.label: row.count for row in screen.query_one("#tier-chart", BarChart).rows}
        assert all(by_tier[tier] > 0 for tier in ("HOT", "WARM", "COLD"))  # the demo has every tier
