"""The timeline screen: sessions by day or week and the cards they gave, with each card's temperature now
(``timeline``).

The periods list on the left; the cards on the right are those of the period under the cursor (the first row,
*All*, shows every period's). ``w`` switches between days and weeks; Enter on a card opens it.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..formatting import number, shorten
from ..widgets.home_view import short_time
from .unseen import lay_out_unseen

TIMELINE_HELP = """\
# Timeline

Your sessions by day (or week, `w`), newest first, and the cards each one gave with their temperature now:
what your agents learned when, and whether it is still live. Move through the periods on the left; the cards on
the right are those of the period under the cursor (*All*: every period shown).

## Keys

| key | what it does |
|---|---|
| `j` / `k`, arrows | move; the cards follow the period under the cursor |
| `Tab` | periods ↔ cards |
| `Enter` on a card | open it |
| `w` | days ↔ weeks |
| `r` | reload |
| `Escape` | back to the screen before |
"""
ALL = "all"
OTHER_COLUMNS = 18
"""Cells the card table's other columns and their padding take (temperature, tier), the session's time aside."""
WHEN_COLUMN = 13
WHEN_FROM = 64
"""The card table's width from which each card's session time is shown too (at 80 columns the title needs it)."""


def period_rows(document: dict) -> list[tuple[str, str, int, int]]:
    """(key, label, sessions, cards) per row of the periods list, *All* first."""
    periods = document["periods"]
    rows = [(ALL, "All", sum(len(p["sessions"]) for p in periods), sum(p["cards"] for p in periods))]
    return rows + [(p["period"], p["period"], len(p["sessions"]), p["cards"]) for p in periods]


def period_cards(document: dict, key: str) -> list[tuple[dict, dict]]:
    """(card, session) for every card of the period ``key`` (every period for :data:`ALL`), newest session first."""
    return [(card, session) for period in document["periods"] if key in (ALL, period["period"])
            for session in period["sessions"] for card in session["cards"]]


class PeriodTable(DataTable):
    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)

    def show(self, document: dict) -> None:
        self.clear(columns=True)
        self.add_column("Week of" if document["by"] == "week" else "Day", key="when")
        self.add_column("Sessions", key="sessions")
        self.add_column("Cards", key="cards")
        for key, label, sessions, cards in period_rows(document):
            self.add_row(label, Text(str(sessions), justify="right"), Text(str(cards), justify="right"), key=key)


class TimelineCards(DataTable):
    BINDINGS = [Binding("enter", "select_cursor", "Open card")]
    COMPONENT_CLASSES = {"timeline-cards--hot", "timeline-cards--warm", "timeline-cards--cold"}

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.shown: list[tuple[dict, dict]] = []
        self._drawn_width = 0
        self._waiting = False

    def on_resize(self) -> None:
        if self._waiting or (self.shown and self.size.width != self._drawn_width):
            self.show(self.shown)

    def show(self, cards: list[tuple[dict, dict]]) -> None:
        self.shown = cards
        self._waiting = not self.size.width
        if self._waiting:
            return  # not laid out yet (a screen built ahead, unseen): drawn by ``on_resize`` once it has a width
        self._drawn_width = self.size.width
        row = self.cursor_row
        self.clear(columns=True)
        with_when = self.size.width >= WHEN_FROM
        width = max(12, self.size.width - OTHER_COLUMNS - (WHEN_COLUMN if with_when else 0))
        self.add_column("Card", key="title", width=width)
        self.add_column("Temp", key="temperature")
        self.add_column("Tier", key="tier")
        if with_when:
            self.add_column("Session", key="when")
        for index, (card, session) in enumerate(cards):
            tier = card["tier"] or ""
            style = self.get_component_rich_style(f"timeline-cards--{tier.lower()}", partial=True) \
                if tier in ("HOT", "WARM", "COLD") else ""
            cells = [Text(shorten(card["title"], width)), Text(number(card["temperature"]), justify="right"),
                     Text(tier, style=style)]
            self.add_row(*cells, *([short_time(session["timestamp"])] if with_when else []),
                         key=str(index))  # a card of two sessions is listed twice
        self.move_cursor(row=min(row, max(0, len(cards) - 1)))

    def card_id(self, key: str) -> str:
        return self.shown[int(key)][0]["card_id"]


class TimelineScreen(Screen):
    HELP = TIMELINE_HELP
    BINDINGS = [
        Binding("w", "toggle_period", "Days/weeks"),
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "app.back_mode", "Back", show=False),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        self.by = "day"
        self.document: dict | None = None
        self.sub_title = "Timeline"

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("loading…", id="timeline-summary", markup=False)
        with Horizontal(id="timeline-body"):
            yield PeriodTable(id="periods")
            yield TimelineCards(id="timeline-cards")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#periods", PeriodTable).border_title = "Days"
        self.query_one("#timeline-cards", TimelineCards).border_title = "Cards"
        self.query_one("#periods", PeriodTable).focus()
        self.app.store_changed_signal.subscribe(self, lambda _change: self.action_refresh())
        self.action_refresh()

    def action_refresh(self) -> None:
        self.query_one("#timeline-body").loading = True
        self.load(self.by)

    def action_toggle_period(self) -> None:
        self.by = "week" if self.by == "day" else "day"
        self.action_refresh()

    @work(thread=True, exclusive=True, group="timeline", exit_on_error=False)
    def load(self, by: str) -> None:
        document = call_or_report(self, "timeline", {"by": by}, self._failed)
        if document is not None:
            self.app.call_from_thread(self._show, document)

    def _show(self, document: dict) -> None:
        self.document = document
        self.query_one("#timeline-body").loading = False
        periods = self.query_one("#periods", PeriodTable)
        periods.show(document)
        periods.border_title = "Weeks" if document["by"] == "week" else "Days"
        shown, total = document["sessions_shown"], document["sessions_total"]
        newest = "" if shown == total else f" (the newest {shown:,} of {total:,})"
        other = "week" if document["by"] == "day" else "day"
        self.query_one("#timeline-summary", Static).update(
            f"{total:,} sessions{newest} by {document['by']} · w by {other} · Enter opens a card")
        self.select_period(ALL)
        lay_out_unseen(self)

    @property
    def period(self) -> str:
        """The key of the period under the cursor (:data:`ALL` for the first row)."""
        periods = self.query_one("#periods", PeriodTable)
        if not periods.row_count:
            return ALL
        return str(periods.coordinate_to_cell_key(periods.cursor_coordinate).row_key.value)

    def select_period(self, key: str) -> None:
        """Filter the cards to one period (what moving the cursor onto it does)."""
        if self.document is None:
            return
        cards = period_cards(self.document, key)
        table = self.query_one("#timeline-cards", TimelineCards)
        table.show(cards)
        label = "every period" if key == ALL else key
        table.border_title = f"Cards · {label} · {len(cards)}"

    @on(DataTable.RowHighlighted, "#periods")
    def _period_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.select_period(str(event.row_key.value))

    @on(DataTable.RowSelected, "#periods")
    def _period_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.query_one("#timeline-cards", TimelineCards).focus()

    @on(DataTable.RowSelected, "#timeline-cards")
    def _open_card(self, event: DataTable.RowSelected) -> None:
        event.stop()
        table = self.query_one("#timeline-cards", TimelineCards)
        self.app.push_card(table.card_id(str(event.row_key.value)))

    def _failed(self, message: str) -> None:
        self.query_one("#timeline-body").loading = False
        self.query_one("#timeline-summary", Static).update(message)
        self.notify(message, severity="error")
