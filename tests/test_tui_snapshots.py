"""What a person sees, pinned as snapshots: the home view, Explore after the demo's first query and after following a
relation, a card with its trace, a window of raw turns as its session's transcript, a card's neighbourhood, the
timeline and the cards behind a tier, at 120×36 and at 80×24 (the smallest usual terminal).

They run on the demo built as of ``DEMO_NOW`` (shipped dates and ids, the same store every run), copied per test
so a recall's access log never leaks into the next one; the header names a fixed home instead of the temp folder.
"""

from __future__ import annotations

import shutil
from importlib.metadata import version
from pathlib import Path

import pytest
from textual.widgets._footer import FooterKey
from tui_store import settle

from alaya_engine.demo import FIRST_QUERY
from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import AlayaApp
from alaya_tui.screens.browse import BrowseScreen
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.neighbourhood import NeighbourhoodScreen
from alaya_tui.screens.session import SessionScreen
from alaya_tui.screens.timeline import TimelineScreen
from alaya_tui.widgets.trace_view import TraceView

SNAPSHOT_TEXTUAL = "8.2.8"
SIZES = pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
pytestmark = pytest.mark.skipif(version("textual") != SNAPSHOT_TEXTUAL,
                                reason=f"the snapshots were recorded with textual {SNAPSHOT_TEXTUAL}")
SHOWN_HOME = "~/.alaya-demo"


@pytest.fixture
def pinned_demo_home(pinned_demo_template, tmp_path) -> Path:
    target = tmp_path / "demo-home"
    shutil.copytree(pinned_demo_template, target)
    return target


def explorer(home: Path) -> AlayaApp:
    app = AlayaApp(LocalBackend(home))
    app.sub_title = SHOWN_HOME
    return app


async def first_query(pilot) -> None:
    await pilot.press("slash", *FIRST_QUERY, "enter")
    await settle(pilot.app, pilot)


@SIZES
def test_home(pinned_demo_home, snap_compare, size):
    async def loaded(pilot) -> None:
        await settle(pilot.app, pilot)

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=loaded)


@SIZES
def test_explore_after_the_first_query(pinned_demo_home, snap_compare, size):
    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=first_query)


@SIZES
def test_explore_after_following_a_relation(pinned_demo_home, snap_compare, size):
    async def follow(pilot) -> None:
        await first_query(pilot)
        await pilot.press("tab", "enter")  # the first explorable relation
        await settle(pilot.app, pilot)
        assert pilot.app.screen.request["depth"] == 1

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=follow)


@SIZES
def test_card_with_its_trace(pinned_demo_home, snap_compare, size):
    async def trace(pilot) -> None:
        await first_query(pilot)
        await pilot.press("t")  # the first result, its trace shown
        await settle(pilot.app, pilot)
        assert isinstance(pilot.app.screen, CardScreen) and pilot.app.screen.trace_document is not None
        view = pilot.app.screen.query_one(TraceView)
        for _ in range(100):  # the trace jumps to its first cited turn once its turns are mounted
            if view._current >= 0:
                break
            await pilot.pause(0.05)
        await pilot.pause()
        view._current = -1  # jump again now that the layout is surely done: the same place on every machine
        view.action_next_context()
        await pilot.pause()

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=trace)


def test_card_screen(pinned_demo_home, snap_compare):
    """A fixed demo card (the Telegram incident's gotcha) without its trace."""
    async def open_card(pilot) -> None:
        await pilot.app.push_screen(CardScreen(pilot.app.backend, "card-3ef7d74365696dbe"))
        await settle(pilot.app, pilot)

    assert snap_compare(explorer(pinned_demo_home), terminal_size=(120, 32), run_before=open_card)


@SIZES
def test_window_transcript(pinned_demo_home, snap_compare, size):
    async def transcript(pilot) -> None:
        await first_query(pilot)
        nodes = pilot.app.screen.result["nodes"]
        row = next(position for position, node in enumerate(nodes) if node["kind"] == "session_turns")
        await pilot.press(*["down"] * row, "enter")
        await settle(pilot.app, pilot)
        assert isinstance(pilot.app.screen, SessionScreen)
        view = pilot.app.screen.query_one(TraceView)
        await pilot.pause()
        view._current = -1  # to the first cited turn once the layout is surely done, as for the trace
        view.action_next_context()
        await pilot.pause()

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=transcript)


@SIZES
def test_neighbourhood(pinned_demo_home, snap_compare, size):
    """The config-change gotcha of the Telegram incident: neighbours on both sides, a second hop at 120 columns."""
    async def open_picture(pilot) -> None:
        await pilot.app.push_screen(NeighbourhoodScreen(pilot.app.backend, "card-7ce67a20df3b5d29"))
        await settle(pilot.app, pilot)
        await pilot.press("right")  # the cursor on a neighbour: the line under the picture names its edge
        await settle(pilot.app, pilot)  # and the footer offers to move there once it has refreshed its keys

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=open_picture)


@SIZES
def test_timeline(pinned_demo_home, snap_compare, size):
    async def second_day(pilot) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("5")
        await settle(pilot.app, pilot)
        await pilot.press("down", "down")  # the second newest day: its cards only
        assert isinstance(pilot.app.screen, TimelineScreen) and pilot.app.screen.period != "all"

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=second_day)


@SIZES
def test_tiers_drill_down(pinned_demo_home, snap_compare, size):
    async def hot_cards(pilot) -> None:
        await settle(pilot.app, pilot)
        await pilot.press("3")
        await settle(pilot.app, pilot)
        await pilot.press("enter")  # the HOT row of the tier chart
        await settle(pilot.app, pilot)
        assert isinstance(pilot.app.screen, BrowseScreen)
        for _ in range(100):  # the footer shows the focused list's keys once it has redrawn after the focus moved
            if any(key.description == "Open card" for key in pilot.app.screen.query(FooterKey)):
                break
            await pilot.pause(0.05)

    assert snap_compare(explorer(pinned_demo_home), terminal_size=size, run_before=hot_cards)
