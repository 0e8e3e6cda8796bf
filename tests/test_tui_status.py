"""The explorer's status screen shows exactly what ``alaya status --json`` reports."""

from __future__ import annotations

from conftest import write_session
from fake_backend import demo_backend, recorded
from rich.cells import cell_len
from textual.widgets import Static

from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import MODE_SCREENS, AlayaApp
from alaya_tui.screens.status import StatusScreen
from alaya_tui.widgets.layer_panel import LayerPanel


async def test_status_screen_matches_the_cli_json(home, tmp_path, cli):
    cli("ingest", str(write_session(tmp_path, "s-1")), str(write_session(tmp_path, "s-2")))
    expected = cli("status", "--json").json()
    app = AlayaApp(LocalBackend(home))
    async with app.run_test() as pilot:
        await pilot.press("escape", "s")  # leave the query bar of the home screen, then Status
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, StatusScreen)
        l3 = dict(app.screen.query_one("#l3", LayerPanel).rows)
        l2 = dict(app.screen.query_one("#l2", LayerPanel).rows)
        l1 = dict(app.screen.query_one("#l1", LayerPanel).rows)
    assert l3["Sessions"] == str(expected["l3"]["sessions"]) == "2"
    assert l3["Oldest"] == expected["l3"]["oldest"]
    assert l2["Sessions"] == str(expected["l2"]["sessions"]) and l2["Engine"] == expected["l2"]["engine"]
    assert l1["Relation vectors"] == str(expected["l1"]["relations"]) == "9"


async def test_refresh_picks_up_new_sessions(tmp_path):
    backend = demo_backend(tmp_path)
    status = recorded()["status"]
    app = AlayaApp(backend)
    async with app.run_test() as pilot:
        while not app.built_modes >= set(MODE_SCREENS):  # every screen built ahead, each asking once
            await pilot.pause()
        await pilot.press("escape", "s")  # leave the query bar of the home screen, then Status
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert dict(app.screen.query_one("#l3", LayerPanel).rows)["Sessions"] == str(status["l3"]["sessions"])
        backend.answer("status", {**status, "l3": {**status["l3"], "sessions": status["l3"]["sessions"] + 1}})
        asked = len(backend.called("status"))  # the screens built ahead (Status, Tiers) asked too
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert dict(app.screen.query_one("#l3", LayerPanel).rows)["Sessions"] == str(status["l3"]["sessions"] + 1)
    assert backend.called("status")[asked:] == [{}]


async def test_the_full_model_name_shows_at_80_columns(tmp_path):
    expected = recorded()["status"]["l1"]["embedding"]
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "s")
        await app.workers.wait_for_complete()
        await pilot.pause()
        line = app.screen.query_one("#status-model", Static)
        text = str(line.content)
        assert expected["name"] in text and str(expected["dimension"]) in text
        assert line.content_region.width >= cell_len(text)  # on one line, not cut
