"""The timeline screen: sessions by day or week and the cards they gave, with each card's temperature now
(``timeline``).

The periods list on the left; on the right the sessions of the period under the cursor (the first row, *All*, shows
every period's), each followed by the cards it gave, so a session that gave none is seen too. ``w`` switches between
days and weeks; Enter on a card opens it, on a session its transcript.
"""

from __future__ import annotations

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from alaya_engine.foundations.human import plural
from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..formatting import number, shorten
from ..loading import loaded
from ..widgets.home_view import first_line, short_time
from .session import SessionScreen
from .unseen import lay_out_unseen

TIMELINE_HELP = """\
# Timeline

Your sessions by day (or week, `w`), newest first, and the cards each one gave with their temperature now:
what your agents learned when, and whether it is still live. Move through the periods on the left; on the right,
the sessions of the period under the cursor (*All*: every period shown), each with its time and first words,
followed by the cards it gave.

## Keys

| key | what it does |
|---|---|
| `j` / `k`, arrows | move; the cards follow the period under the cursor |
| `Tab` | periods ↔ cards |
| `Enter` on a card / a session | open the card / the session's transcript |
| `w` | days ↔ weeks |
| `r` | reload |
| `Escape` | back to the screen before |
"""
ALL = "all"
OTHER_COLUMNS = 18
"""Cells the card table's other columns and their padding take (temperature, tier)."""
CARD_INDENT = "  "
"""Before a card's title: under the session that gave it."""


def period_rows(document: dict) -> list[tuple[str, str, int, int]]:
    """(key, label, sessions, cards) per row of the periods list, *All* first."""
    periods = document["periods"]
    rows = [(ALL, "All", sum(len(p["sessions"]) for p in periods), sum(p["cards"] for p in periods))]
    return rows + [(p["period"], p["period"], len(p["sessions"]), p["cards"]) for p in periods]


def period_entries(document: dict, key: str) -> list[tuple[dict | None, dict]]:
    """(card, session) for the period ``key`` (every period for :data:`ALL`), newest session first: each session's
    own row (``None`` for the card), then one row per card it gave."""
    return [(card, session) for period in document["periods"] if key in (ALL, period["period"])
            for session in period["sessions"] for card in (None, *session["cards"])]


def session_label(session: dict) -> str:
    """``11-30 07:30 · payouts are stuck since 07:10…``: when, and the session's first words."""
    return f"{short_time(session['timestamp'])} · {first_line(session['summary']) or session['id']}"


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
    BINDINGS = [Binding("enter", "select_cursor", "Open")]
    COMPONENT_CLASSES = {"timeline-cards--hot", "timeline-cards--warm", "timeline-cards--cold",
                         "timeline-cards--session"}

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.shown: list[tuple[dict | None, dict]] = []
        """(card, session) per row; ``None`` for a session's own row."""
        self._drawn_width = 0
        self._waiting = False

    def on_resize(self) -> None:
        if self._waiting or (self.shown and self.size.width != self._drawn_width):
            self.show(self.shown)

    def show(self, entries: list[tuple[dict | None, dict]]) -> None:
        self.shown = entries
        self._waiting = not self.size.width
        if self._waiting:
            return  # not laid out yet (a screen built ahead, unseen): drawn by ``on_resize`` once it has a width
        self._drawn_width = self.size.width
        row = self.cursor_row
        self.clear(columns=True)
        width = max(12, self.size.width - OTHER_COLUMNS)
        self.add_column("Session / card", key="title", width=width)
        self.add_column("Temp", key="temperature")
        self.add_column("Tier", key="tier")
        heading = self.get_component_rich_style("timeline-cards--session", partial=True)
        for index, (card, session) in enumerate(entries):  # a card of two sessions is listed under each
            if card is None:
                self.add_row(Text(shorten(session_label(session), width), style=heading), "", "", key=str(index))
                continue
            tier = card["tier"] or ""
            style = self.get_component_rich_style(f"timeline-cards--{tier.lower()}", partial=True) \
                if tier in ("HOT", "WARM", "COLD") else ""
            self.add_row(Text(CARD_INDENT + shorten(card["title"], width - len(CARD_INDENT))),
                         Text(number(card["temperature"]), justify="right"), Text(tier, style=style), key=str(index))
        self.move_cursor(row=min(row, max(0, len(entries) - 1)))


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
        loaded(self.query_one("#timeline-body"))
        periods = self.query_one("#periods", PeriodTable)
        periods.show(document)
        periods.border_title = "Weeks" if document["by"] == "week" else "Days"
        shown, total = document["sessions_shown"], document["sessions_total"]
        newest = "" if shown == total else f" (the newest {shown:,} of {total:,})"
        other = "week" if document["by"] == "day" else "day"
        self.query_one("#timeline-summary", Static).update(
            f"{total:,} sessions{newest} by {document['by']} · w by {other} · Enter opens a card or a session")
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
        entries = period_entries(self.document, key)
        table = self.query_one("#timeline-cards", TimelineCards)
        table.show(entries)
        label = "every period" if key == ALL else key
        cards = sum(card is not None for card, _session in entries)
        table.border_title = f"{label} · {plural(len(entries) - cards, 'session')} · {plural(cards, 'card')}"

    @on(DataTable.RowHighlighted, "#periods")
    def _period_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self.select_period(str(event.row_key.value))

    @on(DataTable.RowSelected, "#periods")
    def _period_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.query_one("#timeline-cards", TimelineCards).focus()

    @on(DataTable.RowSelected, "#timeline-cards")
    def _open(self, event: DataTable.RowSelected) -> None:
        """A card on the card screen; a session as its transcript, the cards it gave beside it."""
        event.stop()
        card, session = self.query_one("#timeline-cards", TimelineCards).shown[int(str(event.row_key.value))]
        if card is None:
            self.app.push_screen(SessionScreen(self.backend, session["id"]))
        else:
            self.app.push_card(card["card_id"])

    def _failed(self, message: str) -> None:
        loaded(self.query_one("#timeline-body"))
        self.query_one("#timeline-summary", Static).update(message)
        self.notify(message, severity="error")
