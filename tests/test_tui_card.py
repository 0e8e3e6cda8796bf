"""The card screen: the ``card`` document's edges grouped by relation, jumps along them, and the trace pane."""

from __future__ import annotations

import json
from pathlib import Path

from fake_backend import demo_backend, recorded
from rich.cells import cell_len
from textual.widgets import Input, Markdown, Static

from alaya_engine.memex.importer import memex_card_id
from alaya_engine.server.backend import LocalBackend
from alaya_tui.app import AlayaApp
from alaya_tui.card_markdown import card_markdown
from alaya_tui.screens.card import CardScreen
from alaya_tui.screens.explore import ExploreScreen
from alaya_tui.widgets.edge_tree import EdgeTree
from alaya_tui.widgets.trace_view import TraceView, TurnView

QUERY = "gateway restart telegram"
SIZE = (160, 45)


async def settle(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def open_from_results(app, pilot, row: int) -> CardScreen:
    """Recall ``QUERY`` in the query bar, move to ``row`` and press Enter, keyboard only."""
    await pilot.press("slash", *QUERY, "enter")
    await settle(app, pilot)
    await pilot.press(*["down"] * row, "enter")
    await settle(app, pilot)
    assert isinstance(app.screen, CardScreen)
    return app.screen


def grouped_ids(document: dict) -> dict[str, dict[str, list[str]]]:
    groups: dict[str, dict[str, list[str]]] = {}
    for direction in ("outgoing", "incoming"):
        groups[direction] = {}
        for edge in document[direction]:
            groups[direction].setdefault(edge["relation"], []).append(edge["card_id"])
    return {direction: {rel: sorted(ids) for rel, ids in by_rel.items()} for direction, by_rel in groups.items()}


def tree_ids(tree: EdgeTree) -> dict[str, dict[str, list[str]]]:
    """What the tree itself shows: direction branches → relation branches → leaves carrying card ids."""
    shown = {}
    for branch, direction in zip(tree.root.children, ("outgoing", "incoming")):
        assert str(branch.label).split(" (")[0].endswith(direction.capitalize())
        shown[direction] = {str(rel.label).split(" (")[0]: sorted(leaf.data["card_id"] for leaf in rel.children)
                            for rel in branch.children}
    return shown


async def test_card_screen_groups_edges_by_relation_and_jumps_along_them(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": QUERY}})
    documents = [backend.call("card", {"card_id": node["card_id"]}) for node in first["nodes"]]
    row = next(i for i, doc in enumerate(documents) if doc["outgoing"] and doc["incoming"])
    expected = documents[row]
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_results(app, pilot, row)
        card = expected["card"]
        assert screen.card_id == card["id"]
        assert screen.document["outgoing"] == expected["outgoing"]
        assert screen.document["incoming"] == expected["incoming"]
        assert str(screen.query_one("#card-title", Static).content) == card["title"]
        assert str(screen.query_one("#card-type", Static).content) == card["type"]
        assert str(screen.query_one("#card-tier", Static).content) == card["tier"]
        meta = str(screen.query_one("#card-meta", Static).content)
        assert f"temperature {card['temperature']:.2f}" in meta and f"accessed {card['access_count']}×" in meta
        assert all(session in meta for session in card["source_sessions"])
        assert all(f"#{tag}" in str(screen.query_one("#card-tags", Static).content) for tag in card["tags"])
        assert screen.query_one("#card-content", Markdown).source == card_markdown(card["title"], card["content"])

        groups = {direction: {rel: sorted(e["card_id"] for e in edges) for rel, edges in by_rel.items()}
                  for direction, by_rel in screen.edge_groups.items()}
        tree = screen.query_one("#edges", EdgeTree)
        assert groups == grouped_ids(expected) == tree_ids(tree)
        assert app.focused is tree

        # Move down to the first edge and jump along it with Enter.
        for _ in range(10):
            if tree.cursor_node is not None and tree.cursor_node.data is not None:
                break
            await pilot.press("down")
        edge = tree.cursor_node.data
        await pilot.press("enter")
        await settle(app, pilot)
        other = app.screen
        assert isinstance(other, CardScreen) and other is not screen
        assert other.card_id == edge["card_id"]
        assert other.document["card"]["title"] == edge["title"]
        assert other.edge_groups  # the other card's own edges

        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ExploreScreen)


async def test_trace_pane_shows_the_whole_session_and_highlights_exactly_the_context_turns(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": QUERY}})
    card_id = first["nodes"][0]["card_id"]
    expected = backend.call("trace", {"card_id": card_id})
    indices = sorted(turn["index"] for turn in expected["context_turns"])
    assert indices and len(expected["sessions"]) == 1
    session_turns = json.loads(Path(expected["sessions"][0]["path"]).read_text(encoding="utf-8"))["turns"]
    assert len(session_turns) > len(indices)
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_from_results(app, pilot, 0)
        trace = screen.query_one("#trace", TraceView)
        assert not trace.display
        await pilot.press("t")
        await settle(app, pilot)
        assert trace.display and app.focused is trace
        assert screen.trace_document == expected
        turns = list(trace.query(TurnView))
        assert [turn.turn_index for turn in turns] == list(range(len(session_turns)))
        assert sorted(turn.turn_index for turn in trace.query(".turn.-context")) == indices == trace.highlighted
        for turn in turns:
            assert turn.has_class("-context") == (turn.turn_index in indices)
            assert turn.turn["content"] == session_turns[turn.turn_index]["content"]
        await pilot.press("n", "p")  # jumping between cited turns does not disturb anything
        await pilot.press("t")
        await pilot.pause()
        assert not trace.display and app.focused is screen.query_one("#edges", EdgeTree)
        await pilot.press("t", "escape")  # Escape first hides the trace ...
        await pilot.pause()
        assert isinstance(app.screen, CardScreen) and not trace.display
        await pilot.press("escape")  # ... then goes back
        await pilot.pause()
        assert isinstance(app.screen, ExploreScreen)
        assert app.screen.query_one("#query", Input).value == QUERY


async def test_t_on_a_result_opens_its_card_with_the_trace_shown(demo_home):
    backend = LocalBackend(demo_home)
    first = backend.call("recall", {"request": {"text": QUERY}})
    row, node = next((row, node) for row, node in enumerate(first["nodes"]) if row and node["kind"] == "card")
    expected = backend.call("trace", {"card_id": node["card_id"]})
    app = AlayaApp(backend)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("slash", *QUERY, "enter")
        await settle(app, pilot)
        await pilot.press(*["down"] * row, "t")  # the card and its trace load together
        await settle(app, pilot)
        screen = app.screen
        assert isinstance(screen, CardScreen) and screen.card_id == node["card_id"]
        assert screen.document["card"]["id"] == node["card_id"]
        trace = screen.query_one("#trace", TraceView)
        assert trace.display and trace.highlighted == sorted(turn["index"] for turn in expected["context_turns"])
        assert not screen.query_one("#card-message", Static).has_class("-error")


async def test_an_unknown_card_is_reported_on_screen(tmp_path):
    app = AlayaApp(demo_backend(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(CardScreen(app.backend, "card-nope"))
        await settle(app, pilot)
        message = app.screen.query_one("#card-message", Static)
        assert "no card 'card-nope'" in str(message.content) and message.has_class("-error")
        await pilot.press("t")
        await settle(app, pilot)
        assert "no card 'card-nope'" in str(message.content)
        await pilot.press("escape", "escape")
        await pilot.pause()
        assert isinstance(app.screen, ExploreScreen)
    asked = [params for method in ("card", "trace") for params in app.backend.called(method)
             if params["card_id"] == "card-nope"]  # other cards are asked by the screens built ahead (Review)
    assert asked == [{"card_id": "card-nope"}] * 2


def test_card_markdown_links_wikilinks_and_drops_a_repeated_title():
    content = ("# Checklist before restarting\n\n1. See [[docker-memory-limit]] and "
               "[[ops/gateway-restart|the incident]].\n2. The graph: ![[oom-graph.png]]\n\n"
               "`[[not-a-link]]` stays code.")
    assert card_markdown("Checklist before restarting", content) == (
        "1. See [docker-memory-limit](wikilink:docker-memory-limit) and "
        "[the incident](wikilink:ops/gateway-restart)."
        "\n2. The graph: 📎 `oom-graph.png`\n\n`[[not-a-link]]` stays code.")
    assert card_markdown("Another title", "# Checklist\nbody") == "# Checklist\nbody"  # a heading of its own stays


async def test_a_memex_card_shows_wikilinks_as_links_that_open_the_linked_card(home, cli):
    vault = Path(__file__).parent / "fixtures" / "memex_vault"
    assert cli("import-memex", str(vault), "--json").exit_code == 0
    app = AlayaApp(LocalBackend(home))
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(CardScreen(app.backend, memex_card_id("no-front-matter")))
        await settle(app, pilot)
        screen = app.screen
        content = screen.query_one("#card-content", Markdown)
        assert str(screen.query_one("#card-title", Static).content) == "Checklist before restarting the gateway"
        assert content.source.startswith("1. Diff") and "[[" not in content.source
        assert "[docker-memory-limit](wikilink:docker-memory-limit)" in content.source
        content.post_message(Markdown.LinkClicked(content, "wikilink:docker-memory-limit"))
        await settle(app, pilot)
        assert isinstance(app.screen, CardScreen) and app.screen.card_id == memex_card_id("docker-memory-limit")
        assert app.screen.document["card"]["title"] == "Docker containers need an explicit memory limit"
        await pilot.press("escape")
        await pilot.pause()
        content.post_message(Markdown.LinkClicked(content, "wikilink:nowhere"))
        await settle(app, pilot)
        assert app.screen is screen and "names no card" in str(screen.query_one("#card-message", Static).content)


async def test_trace_mode_keeps_content_and_edges_readable_at_80_by_24(tmp_path):
    backend = demo_backend(tmp_path)
    node = recorded()["recall"]["nodes"][0]
    app = AlayaApp(backend)
    async with app.run_test(size=(80, 24)) as pilot:
        await app.push_screen(CardScreen(backend, node["card_id"], show_trace=True))
        await settle(app, pilot)
        screen = app.screen
        for pane in ("#card-content-scroll", "#edges", "#trace"):
            assert screen.query_one(pane).scrollable_content_region.height >= 4, pane
        assert screen.query_one("#trace", TraceView).highlighted


async def test_the_heat_line_says_all_of_itself_at_80_and_120_columns(tmp_path):
    """The words beside the sparkline wrap under themselves when the line is short, rather than being cut."""
    card_id = next(card_id for card_id, heat in recorded()["card.heat"].items() if heat["since"])
    for size in ((80, 24), (120, 36)):
        backend = demo_backend(tmp_path)
        app = AlayaApp(backend)
        async with app.run_test(size=size) as pilot:
            await app.push_screen(CardScreen(backend, card_id))
            await settle(app, pilot)
            words = app.screen.query_one("#card-heat-text", Static)
            assert "recall since" in str(words.content)
            assert words.size.height * words.size.width >= cell_len(str(words.content)), size
            assert app.screen.query_one("#card-heat").size.height >= words.size.height, size


async def test_edge_titles_take_the_width_of_the_pane(tmp_path):
    """Whole titles where the pane has room (they were cut at 44 cells in any pane), cut to fit where it has not,
    following a resize."""
    backend = demo_backend(tmp_path)
    app = AlayaApp(backend)
    async with app.run_test(size=(120, 36)) as pilot:
        await app.push_screen(CardScreen(backend, "card-e344f586e8732007"))  # titles of up to 70 cells
        await settle(app, pilot)
        tree = app.screen.query_one("#edges", EdgeTree)
        leaves = [leaf for branch in tree.root.children for relation in branch.children for leaf in relation.children]
        for size, whole in (((120, 36), True), ((80, 24), False)):
            await pilot.resize_terminal(*size)
            await settle(app, pilot)
            room = tree.scrollable_content_region.width - 2 * tree.guide_depth
            assert leaves and all(cell_len(leaf.label.plain) < room for leaf in leaves), size
            cut = [leaf for leaf in leaves if not leaf.label.plain.startswith(leaf.data["title"])]
            assert not cut if whole else cut, size
