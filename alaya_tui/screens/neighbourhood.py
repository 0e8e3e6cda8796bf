"""The neighbourhood screen: a card and the cards one and two hops away, as a picture you walk (``neighbourhood``).

Enter on a card moves the centre there (the engine is asked again); Escape moves back to the previous centre,
then closes the screen. ``c`` opens the card under the cursor on the card screen.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..formatting import number
from ..loading import loaded
from ..widgets.breadcrumbs import Breadcrumbs
from ..widgets.neighbourhood_view import NeighbourhoodView, relation_colour
from .trail import card_trail

NEIGHBOURHOOD_HELP = """\
# Neighbourhood

The card in the middle, the cards linked to it on both sides (the hottest first) and, when the terminal is wide
enough, the cards linked to those further out. The edges among the cards shown are drawn too (two neighbours
linked to each other, say), around the columns; a line crossing another does so at a right angle (`┼`). Each edge
is coloured by its relation (the legend under the picture) and its arrow points the way the edge goes. ● HOT,
◐ WARM, ○ COLD. Cards that do not fit are counted, and so are edges no free path was left for.

## Keys

| key | what it does |
|---|---|
| arrows, `j` / `k` | move between cards (left / right: to the next column) |
| `Enter` | move the centre to the card under the cursor |
| `c` | open the card under the cursor |
| `Escape` | back to the previous centre, then back to the screen before |
"""
LIMIT = 40
"""Nodes asked for: more than any terminal shows, so a wide one is filled."""


class NeighbourhoodScreen(Screen):
    HELP = NEIGHBOURHOOD_HELP
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("c", "open_card", "Open card"),
    ]

    def __init__(self, backend: Backend, card_id: str):
        super().__init__()
        self.backend = backend
        self.centres: list[str] = [card_id]
        """The cards that were the centre, the current one last (Escape walks back)."""
        self.document: dict | None = None

    @property
    def card_id(self) -> str:
        return self.centres[-1]

    def compose(self) -> ComposeResult:
        yield Header()
        yield Breadcrumbs(id="card-trail")
        yield NeighbourhoodView(id="neighbourhood")
        yield Static("", id="neighbourhood-selected", markup=False)
        yield Static("", id="neighbourhood-legend")
        yield Static("loading…", id="neighbourhood-message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        view = self.query_one("#neighbourhood", NeighbourhoodView)
        view.border_title = "Neighbourhood"
        view.focus()
        self._show_trail()
        self.load()

    @property
    def trail_label(self) -> str:
        return f"around {self._title(self.card_id)}"

    def _title(self, card_id: str) -> str:
        nodes = {node["card_id"]: node["title"] for node in (self.document or {}).get("nodes", [])}
        return nodes.get(card_id, "…")

    def _show_trail(self) -> None:
        labels = card_trail(self.app)
        self.query_one("#card-trail", Breadcrumbs).show(labels, len(labels) - 1)

    def load(self) -> None:
        self.query_one("#neighbourhood", NeighbourhoodView).loading = True
        self._load(self.card_id)

    @work(thread=True, exclusive=True, group="neighbourhood", exit_on_error=False)
    def _load(self, card_id: str) -> None:
        document = call_or_report(self, "neighbourhood", {"card_id": card_id, "limit": LIMIT}, self._failed)
        if document is not None:
            self.app.call_from_thread(self._show, document)

    def _show(self, document: dict) -> None:
        self.document = document
        view = self.query_one("#neighbourhood", NeighbourhoodView)
        loaded(view)
        view.show(document)
        focus = document["nodes"][0]
        view.border_title = f"Neighbourhood of {focus['title']}"
        self.sub_title = focus["title"]
        self._show_trail()
        relations = sorted({edge["relation"] for edge in document["edges"]})
        legend = Text("  ")
        for relation in relations:
            legend.append("━━ ", style=relation_colour(relation))
            legend.append(f"{relation}   ")
        self.query_one("#neighbourhood-legend", Static).update(legend if relations else "no edges")
        self._summarise()

    def _summarise(self) -> None:
        view = self.query_one("#neighbourhood", NeighbourhoodView)
        picture, document = view.picture, self.document
        if picture is None or document is None:
            return
        shown = len(picture.placed)
        hidden = picture.left_out
        hops = "1 hop" if picture.hops_shown == 1 else "2 hops"
        more = f" · {hidden} more need a larger terminal" if hidden else ""
        if picture.edges_left_out:
            more += f" · {picture.edges_left_out} {'link' if picture.edges_left_out == 1 else 'links'} not drawn"
        self.show_message(f"{shown} cards, {hops}{more} · Enter moves the centre here")

    @on(NeighbourhoodView.Highlighted)
    def _highlighted(self, event: NeighbourhoodView.Highlighted) -> None:
        placed = event.placed
        line = ""
        if placed is not None:
            node = placed.node
            how = "centre" if placed.column == 0 else f"{'→' if placed.outgoing else '←'} {placed.relation}"
            line = (f"{how} · {node['title']} · {node['type']} · {node['tier']} · "
                    f"temperature {number(node.get('temperature'))}")
        self.query_one("#neighbourhood-selected", Static).update(line)
        self._summarise()

    @on(NeighbourhoodView.Chosen)
    def _chosen(self, event: NeighbourhoodView.Chosen) -> None:
        if event.card_id == self.card_id:
            self.action_open_card()
            return
        self.centres.append(event.card_id)
        self.load()

    def action_open_card(self) -> None:
        placed = self.query_one("#neighbourhood", NeighbourhoodView).selected
        if placed is not None:
            self.app.push_card(placed.node["card_id"])

    def action_back(self) -> None:
        if len(self.centres) > 1:
            self.centres.pop()
            self.load()
        elif len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def _failed(self, message: str) -> None:
        loaded(self.query_one("#neighbourhood", NeighbourhoodView))
        self.show_message(message, error=True)

    def show_message(self, text: str, error: bool = False) -> None:
        message = self.query_one("#neighbourhood-message", Static)
        message.set_class(error, "-error")
        message.update(text)
