"""The explore screen shows exactly the recall documents ``alaya recall --json`` prints and walks them like an agent."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from fake_backend import demo_backend, record_documents, recorded, shape
from textual.widgets import Input, Static

import alaya_engine
from alaya_engine.demo import FIRST_QUERY
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import AlayaApp
from alaya_tui.formatting import BAR_WIDTH, closeness, h_bar
from alaya_tui.query import QuerySyntaxError, format_query, parse_query
from alaya_tui.screens.explore import ExploreScreen
from alaya_tui.widgets.breadcrumbs import Breadcrumbs
from alaya_tui.widgets.explorable_table import ExplorableTable, leaves_from
from alaya_tui.widgets.results_table import NARROW_BAR, ResultsTable, type_label
from alaya_tui.widgets.verdict_line import VerdictLine

QUERY = FIRST_QUERY
SIZE = (160, 45)


def without_timings(document: dict) -> dict:
    return {key: value for key, value in document.items() if key != "timings_ms"}


def shown_rows(screen: ExploreScreen) -> list[tuple[str, list[str]]]:
    """Each results row as (card id, the cells as plain text)."""
    table = screen.query_one("#results", ResultsTable)
    return [(row.key.value, [str(cell) for cell in table.get_row(row.key)]) for row in table.ordered_rows]


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


async def ask(app, pilot, line: str) -> None:
    """Type a line into the query bar, as a person would, and press Enter."""
    app.screen.query_one("#query", Input).focus()
    app.screen.query_one("#query", Input).value = ""
    await pilot.press(*line, "enter")
    await settle(app, pilot)


def assert_shows(screen: ExploreScreen, expected: dict) -> None:
    """The widgets hold the document's cards in order, with h and rel_sim rounded as the CLI prints them."""
    rows = shown_rows(screen)
    table = screen.query_one("#results", ResultsTable)
    keys = [column.key.value for column in table.ordered_columns]
    assert [card_id for card_id, _ in rows] == [node["card_id"] for node in expected["nodes"]]
    # A column that would say nothing is left out: no relation led to any card, one tier for all, ...
    nodes = expected["nodes"]
    assert ("matched_rel" in keys) == any(node["matched_rel"] for node in nodes)
    assert ("rel_similarity" in keys) == any(node["rel_similarity"] is not None for node in nodes)
    assert ("tier" in keys) == (len({node["tier"] for node in nodes}) > 1 or len(nodes) == 1)
    for (card_id, cells), node in zip(rows, nodes):
        cell = dict(zip(keys, cells))
        h = node["h_distance"]
        assert cell["h"] in (f"{h:.2f} {h_bar(h, width)}" for width in (NARROW_BAR, BAR_WIDTH))
        assert cell.get("type", f" {type_label(node)} ").strip() == type_label(node)
        assert cell.get("tier", node["tier"]) == node["tier"]
        assert cell.get("matched_rel", "search") == (node["matched_rel"] or "search")
        assert cell.get("rel_similarity", "—") == ("—" if node["rel_similarity"] is None
                                                   else f"{node['rel_similarity']:.2f}")
    explorable = screen.query_one("#explorable", ExplorableTable)
    selected = screen.query_one("#results", ResultsTable).selected
    assert [[str(cell) for cell in explorable.get_row(row.key)] for row in explorable.ordered_rows] == [
        [item["rel"], str(item["count"]), f"{item['rel_sim_to_query']:.2f}",
         leaves_from(item, selected["card_id"] if selected else None)] for item in expected["explorable"]]
    verdict = screen.query_one("#verdict", VerdictLine)
    if expected["h_distance_avg"] is not None:
        assert verdict.average == f"{expected['h_distance_avg']:.2f}"
        assert expected["verdict"] in str(verdict.content)


async def test_explore_is_the_home_screen_and_shows_what_recall_json_prints(demo_home, demo_cli):
    printed = demo_cli("recall", "--json", QUERY).json()
    backend = LocalBackend(demo_home)
    expected = backend.call("recall", {"request": {"text": QUERY}})
    assert without_timings(expected) == without_timings(printed)
    assert expected["nodes"] and expected["explorable"]
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        assert isinstance(app.screen, ExploreScreen)
        await ask(app, pilot, QUERY)
        screen = app.screen
        assert screen.request == {"text": QUERY}
        assert without_timings(screen.result) == without_timings(expected)
        assert_shows(screen, expected)
        # The h cells and bars take the colour class of their closeness (green < 0.3, yellow < 0.5, red).
        table = screen.query_one("#results", ResultsTable)
        for node in expected["nodes"]:
            cell = table.get_row(node["card_id"])[2]
            assert cell.style == table.get_component_rich_style(f"results--{closeness(node['h_distance'])}",
                                                               partial=True)
        assert app.focused is table


async def test_a_relation_is_followed_from_the_selected_card_and_back_forward_restore(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": QUERY}})
    rows = [node["card_id"] for node in first["nodes"]]
    rel_position, item, row = next((position, item, rows.index(card_id))
                                   for position, item in enumerate(first["explorable"])
                                   for card_id in item["from_nodes"] if rows.index(card_id) > 0)
    relation, start = item["rel"], rows[row]
    navigation = {"from_nodes": [start], "relations": [relation], "depth": 1, "text": QUERY}  # the goal travels
    title = first["nodes"][row]["title"]
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await ask(app, pilot, QUERY)
        screen = app.screen
        await pilot.press(*["down"] * row)  # the results have the focus
        explorable = screen.query_one("#explorable", ExplorableTable)
        assert str(explorable.get_row(relation)[3]) == "this"
        await pilot.press("tab")
        assert app.focused is explorable
        await pilot.press(*["down"] * rel_position, "enter")
        await settle(app, pilot)
        assert screen.request == navigation
        expected = backend.call("recall", {"request": navigation})
        assert expected["goal"] == QUERY
        assert [n["card_id"] for n in screen.result["nodes"]] == [n["card_id"] for n in expected["nodes"]]
        assert_shows(screen, expected)
        crumbs = screen.query_one("#breadcrumbs", Breadcrumbs)
        assert crumbs.labels == ["Home", QUERY, f"{relation} from {title}"] and crumbs.current == 2
        assert screen.query_one("#query", Input).value == format_query(navigation)

        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert screen.request == {"text": QUERY}
        assert_shows(screen, first)
        assert screen.query_one("#results", ResultsTable).cursor_row == row  # the selection comes back too
        assert crumbs.current == 1

        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert screen.request == navigation
        assert_shows(screen, expected)
        assert crumbs.current == 2
        await pilot.press("alt+left")
        await pilot.pause()
        assert screen.request == {"text": QUERY}


async def test_a_relation_the_selected_card_lacks_is_shown_as_such_and_followed_from_the_listed_cards(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": QUERY}})
    rows = [node["card_id"] for node in first["nodes"]]
    rel_position, item, row = next((position, item, number) for position, item in enumerate(first["explorable"])
                                   for number, card_id in enumerate(rows) if card_id not in item["from_nodes"])
    relation, starts = item["rel"], item["from_nodes"]
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await ask(app, pilot, QUERY)
        screen = app.screen
        await pilot.press(*["down"] * row)
        explorable = screen.query_one("#explorable", ExplorableTable)
        assert str(explorable.get_row(relation)[3]) == "—"
        await pilot.press("tab", *["down"] * rel_position, "enter")
        await settle(app, pilot)
        assert screen.request == {"from_nodes": starts, "relations": [relation], "depth": 1, "text": QUERY}
        assert screen.result["nodes"], "a relation listed as explorable is never a dead end"
        label = screen.query_one("#breadcrumbs", Breadcrumbs).labels[-1]
        assert label.startswith(f"{relation} from ") and label.endswith("(not from the selected card)")


async def test_structured_query_syntax_reaches_the_engine_as_a_request(demo_home):
    backend = LocalBackend(demo_home)
    line = "concepts: gateway restart, telegram | rel: CAUSED_BY | depth: 2"
    request = {"concepts": ["gateway restart", "telegram"], "relations": ["CAUSED_BY"], "depth": 2}
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await ask(app, pilot, line)
        assert app.screen.request == request
        expected = backend.call("recall", {"request": request})
        assert app.screen.result["query"] == expected["query"]
        assert_shows(app.screen, expected)


async def test_errors_are_shown_and_never_crash_the_app(tmp_path):
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        message = screen.query_one("#explore-message", Static)
        await ask(app, pilot, "depth: two | c: gateway")
        assert "whole number" in str(message.content) and message.has_class("-error")
        assert backend.called("recall") == []  # a line that does not parse never reaches the engine
        backend.fail("recall", AlayaError("unknown_card", "no card 'card-nope' in this store"))
        await ask(app, pilot, "from: card-nope | rel: CAUSED_BY")
        assert "no card 'card-nope'" in str(message.content) and message.has_class("-error")
        backend.fail("recall", AlayaError("unknown_relation", "unknown relation 'NOT_A_REL'"))
        await ask(app, pilot, "c: gateway | rel: NOT_A_REL")
        assert "unknown relation" in str(message.content)
        assert screen.history == [] and screen.request is None
        backend.answer("recall", recorded()["recall"])
        await ask(app, pilot, QUERY)  # still alive and working
        assert screen.result["nodes"] and not message.has_class("-error")
    assert [params["request"] for params in backend.called("recall")] == [
        {"from_nodes": ["card-nope"], "relations": ["CAUSED_BY"]},
        {"concepts": ["gateway"], "relations": ["NOT_A_REL"]}, {"text": QUERY}]


def test_query_syntax_round_trips():
    assert parse_query("  gateway restart telegram ") == {"text": "gateway restart telegram"}
    assert parse_query("error: timeout on start") == {"text": "error: timeout on start"}  # not a key: free text
    assert parse_query("c: a, b | rel: CAUSED_BY, DEPENDS_ON | d: 2 | types: gotcha | max: 5 | top: 7") == {
        "concepts": ["a", "b"], "relations": ["CAUSED_BY", "DEPENDS_ON"], "depth": 2, "types": ["gotcha"],
        "max_results": 5, "top_k": 7}
    assert parse_query("gateway restart | rel: CAUSED_BY") == {"text": "gateway restart", "relations": ["CAUSED_BY"]}
    assert parse_query("") == {}
    with pytest.raises(QuerySyntaxError):
        parse_query("depth: deep | c: x")
    for request in ({"text": "plain words"}, {"from_nodes": ["card-1"], "relations": ["CAUSED_BY"], "depth": 1},
                    {"text": "gateway", "relations": ["CAUSED_BY"]},
                    {"concepts": ["a", "b"], "depth": 2, "types": ["gotcha", "pattern"]}):
        assert parse_query(format_query(request)) == request


async def test_at_80_by_24_five_results_show_and_the_hint_leads_to_explorable(tmp_path):
    """The smallest usual terminal: the results keep five rows, and the hint says how to follow a relation."""
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await ask(app, pilot, FIRST_QUERY)
        screen = app.screen
        table = screen.query_one("#results", ResultsTable)
        assert len(table.nodes) >= 5
        assert table.scrollable_content_region.height - table.header_height >= 5
        # A window's title is cut in its first line, so the time that tells it apart stays.
        titles = {node["card_id"]: node["title"] for node in table.nodes if node["kind"] == "session_turns"}
        shown = {card_id: cells[1] for card_id, cells in shown_rows(screen) if card_id in titles}
        assert shown and all("…" in shown[card_id] and shown[card_id].endswith(" · " + title.rpartition(" · ")[2])
                             for card_id, title in titles.items())
        message = str(screen.query_one("#explore-message", Static).content)
        assert "Tab → Explorable" in message and "Enter follows a relation" in message
        assert screen.query_one("#explore-message", Static).size.height == 1
        await pilot.press("tab")
        explorable = screen.query_one("#explorable", ExplorableTable)
        assert app.focused is explorable and explorable.size.height >= 2
        item, selected = explorable.selected, table.selected["card_id"]
        starts = [selected] if selected in item["from_nodes"] else item["from_nodes"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.request == {"from_nodes": starts, "relations": [item["rel"]], "depth": 1, "text": FIRST_QUERY}
        assert screen.result["nodes"]


def test_the_fake_backends_recall_documents_match_the_schema():
    schema = json.loads((Path(alaya_engine.__file__).parent / "schemas" / "recall.schema.json").read_text())
    jsonschema.validate(recorded()["recall"], schema)


def test_the_fake_backends_documents_have_the_shape_a_store_answers_with(demo_home):
    """The canned documents were recorded once; a store asked the same today answers with the same fields."""
    canned, live = recorded(), record_documents(demo_home, QUERY)
    for method in ("card", "trace", "review.show", "session.turns", "neighbourhood", "card.heat"):  # keyed by ids
        canned[method], live[method] = list(canned[method].values()), list(live[method].values())
    canned.pop("files"), live.pop("files")
    assert {method: shape(document) for method, document in live.items()} == {
        method: shape(document) for method, document in canned.items()}
