"""What the explorer opens on: the newest sessions, the HOT cards and the suggestions waiting for review.

A person opening their memory wants to see it before they know what to ask; a blank query bar showed nothing.
Filled from the engine's ``overview`` document; Enter on a card opens it, on a session opens its transcript.
"""

from __future__ import annotations

from datetime import datetime

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import DataTable, Static

from ..formatting import number, shorten

MIN_TITLE_WIDTH = 12


def first_line(text: str) -> str:
    """The first line that says something (a session's opening words often start with a blank line)."""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def short_time(iso: str) -> str:
    """``2026-11-23T10:15:00Z`` as ``11-23 10:15``: enough to tell recent sessions apart."""
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).strftime("%m-%d %H:%M")
    except ValueError:
        return iso


def pending_text(count: int) -> str:
    if not count:
        return "Nothing waiting for review"
    return f"{count} {'suggestion' if count == 1 else 'suggestions'} waiting for review · 4 opens Review"


class HomeTable(DataTable):
    """A list of the home screen whose first column (a title) takes the width the others leave; Enter selects a
    row (the screen opens what it names)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]

    def __init__(self, columns: tuple[str, ...], *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.headings = columns
        self.rows_shown: list[tuple[str, str, tuple[Text, ...]]] = []
        """(key, title, the other cells) per row."""
        self._drawn_width = 0

    def show(self, rows: list[tuple[str, str, tuple[Text, ...]]]) -> None:
        self.rows_shown = rows
        self._redraw()

    def _redraw(self) -> None:
        self._drawn_width = self.size.width
        others = [max([cell_len(heading)] + [cell_len(cells[i].plain) for _key, _title, cells in self.rows_shown])
                  for i, heading in enumerate(self.headings[1:])]
        padding = 2 * self.cell_padding * len(self.headings) + 2
        width = max(MIN_TITLE_WIDTH, self.size.width - sum(others) - padding)
        self.clear(columns=True)
        self.add_column(self.headings[0], width=width)
        for heading in self.headings[1:]:
            self.add_column(heading)
        for key, title, cells in self.rows_shown:
            self.add_row(Text(shorten(title, width)), *cells, key=key)

    def on_resize(self) -> None:
        if self.rows_shown and self.size.width != self._drawn_width:
            self._redraw()

    @property
    def selected_key(self) -> str | None:
        if not 0 <= self.cursor_row < len(self.rows_shown):
            return None
        return self.rows_shown[self.cursor_row][0]


class HomeView(Vertical):
    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static("loading…", id="home-pending", markup=False)
        with Horizontal(id="home-lists"):
            yield HomeTable(("Title", "Type", "Temp"), id="home-cards")
            yield HomeTable(("What it was about", "When", "Cards"), id="home-sessions")

    def on_mount(self) -> None:
        self.query_one("#home-cards", HomeTable).border_title = "HOT cards"
        self.query_one("#home-sessions", HomeTable).border_title = "Recent sessions"

    def show(self, document: dict) -> None:
        self.document = document
        self.query_one("#home-pending", Static).update(pending_text(document["pending_review"]))
        cards, sessions = self.query_one("#home-cards", HomeTable), self.query_one("#home-sessions", HomeTable)
        cards.show([(card["card_id"], card["title"],
                     (Text(card["type"]), Text(number(card["temperature"]), justify="right")))
                    for card in document["hot_cards"]])
        sessions.show([(session["id"], first_line(session["summary"]) or session["id"],
                        (Text(short_time(session["timestamp"])), Text(str(session["cards"]), justify="right")))
                       for session in document["sessions"]])
        cards.border_title = f"HOT cards · {len(document['hot_cards'])}"
        sessions.border_title = f"Recent sessions · {len(document['sessions'])}"
