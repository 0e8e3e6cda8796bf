"""The cards behind a figure of the tiers screen: a tier, a temperature band or a type, or a relation's edges
(``browse``). Enter opens a card (for an edge, the card it leaves from)."""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..formatting import number, shorten
from ..loading import loaded
from ..widgets.breadcrumbs import Breadcrumbs
from .trail import card_trail

BROWSE_HELP = """\
# Cards behind a figure

The cards of the tier, temperature band or type you chose on the Tiers screen, hottest first, or the edges of a
relation (the card each leaves from and the card it points to). Up to 200 are listed; the title says how many
there are.

## Keys

| key | what it does |
|---|---|
| `Enter` | open the card (for an edge, the card it leaves from) |
| `Escape` | back to the Tiers screen |
"""
FILTER_NAMES = {"tier": "tier", "band": "temperature", "type": "type", "relation": "relation"}
TITLE_ROOM = 40
"""Cells the other columns take beside a card's title."""


def filter_label(chosen: dict) -> str:
    """``tier HOT``, ``temperature 0.5-0.7``, ``type gotcha``, ``relation CAUSED_BY``."""
    (name, value), = chosen.items()
    return f"{FILTER_NAMES[name]} {value}"


class BrowseTable(DataTable):
    BINDINGS = [Binding("enter", "select_cursor", "Open card")]

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.document: dict | None = None
        self._drawn_width = 0

    def show(self, document: dict) -> None:
        self.document = document
        self._drawn_width = self.size.width
        self.clear(columns=True)
        if "edges" in document:
            width = max(12, (self.size.width - 24) // 2)
            for heading in ("From", "Relation", "To"):
                self.add_column(heading, width=width if heading != "Relation" else None)
            for index, edge in enumerate(document["edges"]):
                self.add_row(Text(shorten(edge["source_title"], width)), edge["relation"],
                             Text(shorten(edge["target_title"], width)), key=str(index))
            return
        width = max(12, self.size.width - TITLE_ROOM)
        self.add_column("Card", width=width)
        for heading in ("Type", "Tier", "Temp", "Created"):
            self.add_column(heading)
        for index, card in enumerate(document["cards"]):
            self.add_row(Text(shorten(card["title"], width)), card["type"], card["tier"],
                         Text(number(card["temperature"]), justify="right"), card["created_at"][:10], key=str(index))

    def on_resize(self) -> None:
        if self.document is not None and self.size.width != self._drawn_width:
            self.show(self.document)

    def card_id(self, key: str) -> str:
        rows = self.document.get("cards") or self.document["edges"]
        row = rows[int(key)]
        return row.get("card_id") or row["source"]


class BrowseScreen(Screen):
    HELP = BROWSE_HELP
    BINDINGS = [Binding("escape", "back", "Back")]

    def __init__(self, backend: Backend, chosen: dict):
        super().__init__()
        self.backend = backend
        self.chosen = chosen
        """One filter: ``{"tier": "HOT"}``, ``{"band": "0.5-0.7"}``, ``{"type": ...}`` or ``{"relation": ...}``."""
        self.document: dict | None = None

    @property
    def trail_label(self) -> str:
        return filter_label(self.chosen)

    def compose(self) -> ComposeResult:
        yield Header()
        yield Breadcrumbs(id="card-trail")
        yield Static("loading…", id="browse-summary", markup=False)
        yield BrowseTable(id="browse")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#browse", BrowseTable)
        table.border_title = filter_label(self.chosen)
        table.loading = True
        table.focus()
        self.sub_title = filter_label(self.chosen)
        labels = card_trail(self.app)
        self.query_one("#card-trail", Breadcrumbs).show(labels, len(labels) - 1)
        self.load()

    @work(thread=True, exclusive=True, group="browse", exit_on_error=False)
    def load(self) -> None:
        document = call_or_report(self, "browse", self.chosen, self._failed)
        if document is not None:
            self.app.call_from_thread(self._show, document)

    def _show(self, document: dict) -> None:
        self.document = document
        table = self.query_one("#browse", BrowseTable)
        loaded(table)
        table.show(document)
        listed = len(document.get("cards", document.get("edges", [])))
        what = "edges" if "edges" in document else "cards"
        more = f", the first {listed:,} listed" if listed < document["total"] else ""
        table.border_title = f"{filter_label(self.chosen)} · {document['total']:,} {what}"
        order = "" if what == "edges" else ", hottest first"
        self.query_one("#browse-summary", Static).update(
            f"{document['total']:,} {what}{more}{order} · Enter opens a card · Escape goes back")

    @on(DataTable.RowSelected, "#browse")
    def _open(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.app.push_card(self.query_one("#browse", BrowseTable).card_id(str(event.row_key.value)))

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def _failed(self, message: str) -> None:
        loaded(self.query_one("#browse", BrowseTable))
        self.query_one("#browse-summary", Static).update(message)
