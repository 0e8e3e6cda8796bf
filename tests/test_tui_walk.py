"""The graph and the heat, walkable: Enter on a node of the neighbourhood moves the centre there, Enter on a tier
lists its cards, moving onto a day of the timeline filters its cards; and the picture's layout never overlaps."""

from __future__ import annotations

from fake_backend import demo_backend, recorded
from tui_store import settle

from alaya_tui.app import AlayaApp
from alaya_tui.graph_layout import DOWN, LEFT, RIGHT, UP, lay_out
from alaya_tui.graph_routes import route_other_edges
from alaya_tui.screens.browse import BrowseScreen, BrowseTable
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.neighbourhood import NeighbourhoodScreen
from alaya_tui.screens.session import SessionScreen
from alaya_tui.screens.tiers import TiersScreen
from alaya_tui.screens.timeline import ALL, TimelineCards, TimelineScreen
from alaya_tui.widgets.neighbourhood_view import NeighbourhoodView

SIZE = (120, 36)


async def test_enter_on_a_node_moves_the_centre_there_and_escape_moves_back(tmp_path):
    node = recorded()["recall"]["nodes"][0]
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend, card_id=node["card_id"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("g")  # from the card screen
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, NeighbourhoodScreen) and screen.card_id == node["card_id"]
        view = screen.query_one("#neighbourhood", NeighbourhoodView)
        assert view.selected.node["card_id"] == node["card_id"]  # the cursor starts on the centre
        await pilot.press("right")
        target = view.selected.node["card_id"]
        assert view.selected.column == 1 and target != node["card_id"]
        await pilot.press("enter")
        await settle(app, pilot)
        assert screen.card_id == target and backend.called("neighbourhood")[-1]["card_id"] == target
        assert view.picture.placed[0].node["card_id"] == target and screen.document["focus"] == target
        await pilot.press("escape")  # back to the previous centre
        await settle(app, pilot)
        assert screen.card_id == node["card_id"] and app.screen is screen
        await pilot.press("c")  # the card under the cursor (the centre)
        await settle(app, pilot)
        assert isinstance(app.screen, CardScreen) and app.screen.card_id == node["card_id"]


async def test_enter_on_a_tier_lists_its_cards(tmp_path):
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("3")
        await settle(app, pilot)
        assert isinstance(app.screen, TiersScreen) and app.focused.id == "tier-chart"
        await pilot.press("enter")  # the first row: HOT
        await settle(app, pilot)
        assert isinstance(app.screen, BrowseScreen) and backend.called("browse") == [{"tier": "HOT"}]
        table = app.screen.query_one("#browse", BrowseTable)
        hot = recorded()["browse"]["tier=HOT"]["cards"]
        assert table.row_count == len(hot) > 0
        assert [table.card_id(str(row)) for row in range(table.row_count)] == [card["card_id"] for card in hot]
        await pilot.press("escape")
        assert isinstance(app.screen, TiersScreen)


async def test_moving_onto_a_day_filters_the_timeline_cards(tmp_path):
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("5")
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen) and screen.period == ALL
        days = recorded()["timeline"]["day"]["periods"]
        cards = screen.query_one("#timeline-cards", TimelineCards)
        assert cards.row_count == sum(1 + len(session["cards"]) for day in days for session in day["sessions"])
        await pilot.press("down")  # the newest day: its session gave no card, and is listed all the same
        assert [(card, session["id"]) for card, session in cards.shown] == [(None, days[0]["sessions"][0]["id"])]
        await pilot.press("down")  # the second day: its session, then the cards it gave
        day = days[1]
        assert screen.period == day["period"] and day["cards"] > 0
        assert [(card and card["card_id"], session["id"]) for card, session in cards.shown] == [
            entry for session in day["sessions"]
            for entry in [(None, session["id"]), *((card["card_id"], session["id"]) for card in session["cards"])]]
        await pilot.press("enter", "enter")  # to the sessions and cards, then the session's transcript
        await settle(app, pilot)
        assert isinstance(app.screen, SessionScreen) and app.screen.session_id == day["sessions"][0]["id"]
        await pilot.press("escape", "down", "enter")  # its first card
        await settle(app, pilot)
        assert isinstance(app.screen, CardScreen) and app.screen.card_id == day["sessions"][0]["cards"][0]["card_id"]
        await pilot.press("escape")
        await pilot.press("w")
        await settle(app, pilot)
        assert backend.called("timeline")[-1] == {"by": "week"} and screen.period == ALL


def test_the_picture_fits_and_never_overlaps_at_any_size():
    document = recorded()["neighbourhood"][recorded()["recall"]["nodes"][0]["card_id"]]
    for width, height in ((116, 28), (76, 14), (60, 5), (40, 3)):
        picture = lay_out(document, width, height)
        route_other_edges(picture, document)
        cells = set()
        for placed in picture.placed:
            assert 0 <= placed.x and placed.x + placed.width <= width and 0 <= placed.y < height
            taken = {(x, placed.y) for x in range(placed.x, placed.x + placed.width)}
            assert not taken & cells and not taken & set(picture.lines) and not taken & set(picture.arrows)
            cells |= taken
        assert all(0 <= x < width and 0 <= y < height for x, y in [*picture.lines, *picture.arrows])
        assert len(picture.placed) + picture.left_out == len(document["nodes"]) + document["left_out"]
        assert picture.hops_shown == (2 if width >= 100 else 1)
        shown = {placed.node["card_id"] for placed in picture.placed}
        pairs = {frozenset((edge["source"], edge["target"])) for edge in document["edges"]
                 if {edge["source"], edge["target"]} <= shown}
        drawn_by_columns = max(0, len(picture.placed) - 1)
        assert len(pairs) == drawn_by_columns + len(picture.other_edges) + picture.edges_left_out


def _card(card_id: str, hop: int) -> dict:
    return {"card_id": card_id, "title": f"card {card_id}", "type": "concept", "tier": "WARM", "temperature": 0.5,
            "hop": hop}


def _line_from(picture, start: tuple[int, int]) -> set[tuple[int, int]]:
    """The cells joined to ``start`` by the line bits of the picture's cells."""
    steps = {UP: (0, -1), DOWN: (0, 1), LEFT: (-1, 0), RIGHT: (1, 0)}
    seen, todo = {start}, [start]
    while todo:
        x, y = todo.pop()
        for bit, (dx, dy) in steps.items():
            near = (x + dx, y + dy)
            if picture.lines.get((x, y), (0, ""))[0] & bit and near in picture.lines and near not in seen:
                seen.add(near)
                todo.append(near)
    return seen


def test_edges_between_neighbours_are_drawn_from_one_card_to_the_other():
    """Two neighbours linked to each other, and a second-hop card linked to two first-hop ones: the columns draw one
    edge per card, the other edges are routed through free cells, the arrowhead beside the card they point to."""
    nodes = [_card("f", 0), _card("a", 1), _card("b", 1), _card("c", 1), _card("d", 1), _card("x", 2)]
    edges = [{"source": "f", "target": near, "relation": "CAUSED_BY"} for near in "abcd"]
    edges += [{"source": "a", "target": "c", "relation": "DEPENDS_ON"},  # both on the right
              {"source": "b", "target": "c", "relation": "CONTRADICTS"},  # from the left to the right
              {"source": "a", "target": "x", "relation": "SIMILAR_TO"}, {"source": "x", "target": "b",
                                                                         "relation": "LED_TO"}]
    document = {"focus": "f", "hops": 2, "nodes": nodes, "edges": edges, "left_out": 0}
    for width, height in ((120, 30), (80, 20)):
        picture = lay_out(document, width, height)
        route_other_edges(picture, document)
        where = {placed.node["card_id"]: placed for placed in picture.placed}
        drawn = [(edge["source"], edge["target"]) for edge in picture.other_edges]
        expected = [("a", "c"), ("b", "c")] + ([("x", "b")] if "x" in where else [])
        assert drawn == expected and picture.edges_left_out == 0
        for source, target in drawn:
            relation = next(edge["relation"] for edge in edges if (edge["source"], edge["target"]) == (source, target))
            arrow = next((x, y) for (x, y), (_, shown) in picture.arrows.items() if shown == relation)
            card = where[target]
            beside = {(card.x - 1, card.y), (card.x + card.width, card.y)} | {
                (x, card.y + dy) for x in range(card.x, card.x + card.width) for dy in (-1, 1)}
            assert arrow in beside  # the head at the card the edge points to
            start = where[source]
            line = set().union(*(_line_from(picture, (arrow[0] + dx, arrow[1] + dy))
                                 for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0))
                                 if (arrow[0] + dx, arrow[1] + dy) in picture.lines))
            assert any(y in (start.y - 1, start.y, start.y + 1) and start.x - 1 <= x <= start.x + start.width
                       for x, y in line)  # and the line reaches the card it leaves from
