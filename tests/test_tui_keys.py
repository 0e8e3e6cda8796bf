"""The keys a person reaches for first: single letters work wherever no text is edited, ``/`` or ``:`` enter the
query, Escape leaves the input and otherwise goes back, on every screen; the trail names each step."""

from __future__ import annotations

from fake_backend import demo_backend, recorded
from textual import events
from textual.widgets import DataTable, Input, Static
from tui_store import settle

from alaya_engine.demo import FIRST_QUERY
from alaya_tui.app import MODE_SCREENS, AlayaApp
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.explore import TYPING_PAUSE, ExploreScreen
from alaya_tui.screens.help import HelpScreen
from alaya_tui.screens.session import SessionScreen
from alaya_tui.screens.status import StatusScreen
from alaya_tui.widgets.breadcrumbs import Breadcrumbs, crumb_texts
from alaya_tui.widgets.home_view import HomeView
from alaya_tui.widgets.trace_view import TraceView

SIZE = (120, 36)


async def test_the_first_screen_is_home_and_its_single_keys_work(tmp_path):
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, ExploreScreen) and not isinstance(app.focused, Input)
        overview = recorded()["overview"]
        home = screen.query_one("#home", HomeView)
        assert home.display and home.document == overview
        assert [row.key.value for row in home.query_one("#home-cards").ordered_rows] == [
            card["card_id"] for card in overview["hot_cards"]]
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape", "2")
        await settle(app, pilot)
        assert isinstance(app.screen, StatusScreen)
        await pilot.press("escape")  # back to the screen before
        await settle(app, pilot)
        assert app.screen is screen
        await pilot.press("q")
        await pilot.pause()
    assert app.return_code == 0 and not app.is_running


async def test_slash_and_colon_enter_the_query_and_escape_leaves_it(tmp_path):
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        query = app.screen.query_one("#query", Input)
        await pilot.press("slash", "q", "question_mark", "2")  # typed, not keys, while the query is edited
        assert app.focused is query and query.value == "q?2" and isinstance(app.screen, ExploreScreen)
        await pilot.press("escape")
        assert app.focused is not query and query.value == "q?2"
        await pilot.press("colon")
        assert app.focused is query
        query.value = ""
        await pilot.press(*FIRST_QUERY, "enter")
        await settle(app, pilot)
        assert backend.called("recall") == [{"request": {"text": FIRST_QUERY}}]
        await pilot.press("slash", "enter")  # the same query again: no second step
        await settle(app, pilot)
        crumbs = app.screen.query_one("#breadcrumbs", Breadcrumbs)
        assert len(backend.called("recall")) == 2 and crumbs.labels == ["Home", FIRST_QUERY]

        # After the first query, a pause in typing recalls what is typed; more typing replaces that step.
        await pilot.press("slash")
        query.value = ""
        await pilot.press(*"nginx")
        await pilot.pause(TYPING_PAUSE + 0.3)
        await settle(app, pilot)
        assert backend.called("recall")[-1] == {"request": {"text": "nginx"}} and len(backend.called("recall")) == 3
        await pilot.press("space", "5")
        await pilot.pause(TYPING_PAUSE + 0.3)
        await settle(app, pilot)
        assert backend.called("recall")[-1] == {"request": {"text": "nginx 5"}} and len(backend.called("recall")) == 4
        assert crumbs.labels == ["Home", FIRST_QUERY, "nginx 5"] and app.focused is query


async def test_escape_goes_back_from_a_hop_a_card_and_a_transcript_to_home(tmp_path):
    app = AlayaApp(demo_backend(tmp_path), query=FIRST_QUERY)  # alaya tui --query TEXT
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        screen = app.screen
        assert screen.request == {"text": FIRST_QUERY}
        await pilot.press("tab", "enter")  # follow the first explorable relation
        await settle(app, pilot)
        assert screen.position == 1 and screen.request["depth"] == 1
        hop = screen.history[1].label
        assert screen.query_one("#breadcrumbs", Breadcrumbs).labels == ["Home", FIRST_QUERY, hop]
        await pilot.press("escape")
        assert screen.position == 0 and screen.request == {"text": FIRST_QUERY}

        await pilot.press("enter")  # the first result, a card
        await settle(app, pilot)
        card = app.screen
        assert isinstance(card, CardScreen)
        title = card.document["card"]["title"]
        trail = card.query_one("#card-trail", Breadcrumbs)
        assert trail.labels == [FIRST_QUERY, title] and trail.current == 1
        await pilot.press("escape")
        assert app.screen is screen

        window = next(node for node in screen.result["nodes"] if node["kind"] == "session_turns")
        await pilot.press(*["down"] * screen.result["nodes"].index(window), "enter")
        await settle(app, pilot)
        transcript = app.screen
        assert isinstance(transcript, SessionScreen)
        first, last = window["turn_range"]
        assert transcript.query_one("#transcript", TraceView).highlighted == list(range(first, last + 1))
        assert transcript.query_one("#session-cards").row_count == len(transcript.document["cards"]) > 0
        await pilot.press("escape", "escape")
        assert app.screen is screen and screen.position == -1 and screen.query_one("#home").display


async def test_a_card_id_on_the_command_line_opens_it_and_o_opens_its_source_session(tmp_path):
    node = recorded()["recall"]["nodes"][0]
    app = AlayaApp(demo_backend(tmp_path), card_id=node["card_id"])  # alaya tui CARD_ID
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert isinstance(app.screen, CardScreen) and app.screen.card_id == node["card_id"]
        await pilot.press("o")
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen)
        context = recorded()["trace"][node["card_id"]]["context_turns"]
        assert app.screen.query_one("#transcript", TraceView).highlighted == sorted(t["index"] for t in context)
        assert app.screen.query_one("#card-trail", Breadcrumbs).labels[-2] == node["title"]
        session = recorded()["session.turns"][app.screen.session_id]  # when and where it was held, on top
        header = str(app.screen.query_one(".session-header", Static).content)
        assert f"{session['timestamp']} · {session['channel']}" in header


def test_the_trail_keeps_the_current_step_and_drops_the_oldest_first():
    labels = ["Home", "gateway restart telegram", "CAUSED_BY from Gateway restart drops messages",
              "TEMPORAL_NEXT from 每次重启 gateway 之前，按顺序做", "DEPENDS_ON from plugins.allow must list telegram",
              "SIMILAR_TO from Channel plugins are opt-in"]
    shown, before, after = crumb_texts(labels, 4, 80)
    assert 4 in shown and before and shown[0] > 0
    assert crumb_texts(labels, 1, 300) == (list(range(6)), False, False)
    shown, before, after = crumb_texts(labels, 1, 60)
    assert shown[:2] == [0, 1] and after and not before  # after going back, the steps ahead give way first


async def test_every_screen_is_built_ahead_unseen_and_keys_typed_meanwhile_reach_the_query_bar(tmp_path):
    """The screens are built right after the first one shows, without showing them: a digit then only shows a
    screen that exists, and text typed at once (while they are built) all reaches the query bar."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *FIRST_QUERY)
        while not app.built_modes >= set(MODE_SCREENS):
            assert isinstance(app.screen, ExploreScreen)  # never another screen in front meanwhile
            await pilot.pause()
        assert app.screen.query_one("#query", Input).value == FIRST_QUERY
        built = {mode: app.get_screen_stack(mode)[0] for mode in MODE_SCREENS}
        assert all(isinstance(screen, MODE_SCREENS[mode]) and screen.is_mounted for mode, screen in built.items())
        await pilot.press("escape", "escape", "2")
        await settle(app, pilot)
        assert app.screen is built["status"]  # the screen built ahead, not a new one


async def test_at_80_columns_a_transcripts_cards_keep_their_type_whole(tmp_path):
    """A long card title is cut to the room the Type column leaves, never pushing that column out of sight."""
    window = next(node for node in recorded()["recall"]["nodes"] if node["kind"] == "session_turns")
    backend = demo_backend(tmp_path)
    session = recorded()["session.turns"][window["session_id"]]
    session["cards"][0]["title"] = "Upgrade the plugins first, then the gateway, and restart it only once " * 2
    backend.answer("session.turns", session)
    app = AlayaApp(backend, card_id=window["card_id"])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        cards = app.screen.query_one("#session-cards", DataTable)
        assert isinstance(app.screen, SessionScreen) and cards.row_count == len(app.screen.document["cards"]) > 0
        assert sum(column.get_render_width(cards) for column in cards.columns.values()) <= cards.content_size.width
        assert [str(cards.get_row_at(row)[1]) for row in range(cards.row_count)] == [
            card["type"] for card in app.screen.document["cards"]]


async def test_y_copies_the_selected_card_or_window_id(tmp_path):
    app = AlayaApp(demo_backend(tmp_path), query=FIRST_QUERY)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        nodes = app.screen.result["nodes"]
        window = next(position for position, node in enumerate(nodes) if node["kind"] == "session_turns")
        await pilot.press("y")
        assert app.clipboard == nodes[0]["card_id"]
        await pilot.press(*["down"] * window, "y")
        assert app.clipboard == nodes[window]["card_id"] and ":turns:" in app.clipboard


async def test_keys_typed_right_after_the_slash_reach_the_query_bar(tmp_path):
    """``/`` then a word typed (or pasted) at once, on Explore or on another screen: the word's keys arrive before
    ``/`` is handled, and none may be taken for a single-letter key (``g`` opened a neighbourhood, ``e`` Explore,
    ``s`` Status) on its way to the query bar. In the bar, ``/`` and ``:`` are text."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        query = app.screen.query_one("#query", Input)
        for start, keys, typed in (("explore", "/get", "get"), ("status", ":set", "set")):
            await app.action_show_mode(start)
            await settle(app, pilot)
            for character in keys:  # a burst: no wait between the keys
                app._driver.send_message(events.Key({"/": "slash", ":": "colon"}.get(character, character),
                                                    character))
            await settle(app, pilot)
            assert isinstance(app.screen, ExploreScreen) and app.focused is query and query.value == typed, start
            await pilot.press("slash", "colon")
            assert query.value == typed + "/:"
            query.value = ""
