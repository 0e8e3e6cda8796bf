"""What the explorer opens on: the newest sessions, the HOT cards and the suggestions waiting for review.

A person opening their memory wants to see it before they know what to ask; a blank query bar showed nothing.
Filled from the engine's ``overview`` document; Enter on a card opens it, on a session opens its transcript.
"""

from __future__ import annotations

from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static

from ..formatting import number
from .title_table import TitleTable


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


class HomeView(Vertical):
    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.document: dict | None = None

    def compose(self) -> ComposeResult:
        yield Static("loading…", id="home-pending", markup=False)
        with Horizontal(id="home-lists"):
            yield TitleTable(("Title", "Type", "Temp"), id="home-cards")
            yield TitleTable(("What it was about", "When", "Cards"), id="home-sessions")

    def on_mount(self) -> None:
        self.query_one("#home-cards", TitleTable).border_title = "HOT cards"
        self.query_one("#home-sessions", TitleTable).border_title = "Recent sessions"

    def show(self, document: dict) -> None:
        self.document = document
        self.query_one("#home-pending", Static).update(pending_text(document["pending_review"]))
        cards, sessions = self.query_one("#home-cards", TitleTable), self.query_one("#home-sessions", TitleTable)
        cards.show([(card["card_id"], card["title"],
                     (Text(card["type"]), Text(number(card["temperature"]), justify="right")))
                    for card in document["hot_cards"]])
        sessions.show([(session["id"], first_line(session["summary"]) or session["id"],
                        (Text(short_time(session["timestamp"])), Text(str(session["cards"]), justify="right")))
                       for session in document["sessions"]])
        cards.border_title = f"HOT cards · {len(document['hot_cards'])}"
        sessions.border_title = f"Recent sessions · {len(document['sessions'])}"
