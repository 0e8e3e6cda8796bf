"""A session as a transcript: one block per turn (speaker, time), the cited turns highlighted, and the cards
distilled from the session beside it.

Recall's windows of raw turns open here (their turns cited), and so does a card's source session (``o`` on a card,
the turns it was distilled from cited) and a recent session of the home view. Everything comes from one
``session.turns`` call: the turns as the store keeps them and the session's cards.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from alaya_engine.raw.turn_range import MAX_COUNT
from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..loading import loaded
from ..widgets.breadcrumbs import Breadcrumbs
from ..widgets.title_table import TitleTable
from ..widgets.trace_view import TraceView
from .trail import card_trail, copy_id

SESSION_HELP = """\
# Session

The session's turns as the store keeps them (L3), one block each with its speaker and time. The turns that
brought you here are highlighted: the window recall returned, or the turns a card was distilled from. Beside the
transcript, the cards distilled from this session; Enter opens one.

Up to 200 turns are shown, starting a little before the first highlighted one.
"""
CONTEXT_BEFORE = 20
"""Turns shown before the first cited one, when the session is longer than one screenful of turns can hold."""


class SessionScreen(Screen):
    HELP = SESSION_HELP
    BINDINGS = [
        Binding("escape", "back", "Back"),
        Binding("y", "copy_id", "Copy id"),
    ]

    def __init__(self, backend: Backend, session_id: str, cited: list[int] | None = None, *,
                 label: str = "", mark: str = "cited"):
        super().__init__()
        self.backend = backend
        self.session_id = session_id
        self.cited = sorted(cited or [])
        self.label = label
        """How the breadcrumb names this step (a window's title); the session's first words when empty."""
        self.mark = mark
        self.document: dict | None = None
        """The ``session.turns`` document shown."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Breadcrumbs(id="card-trail")
        with Horizontal(id="session-body"):
            yield TraceView(id="transcript", mark=self.mark)
            yield TitleTable(("Card", "Type"), id="session-cards")
        yield Static("loading…", id="session-message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#transcript", TraceView).border_title = "Transcript"
        self.query_one("#session-cards", TitleTable).border_title = "Cards from this session"
        self.query_one("#transcript", TraceView).focus()
        self.query_one("#transcript", TraceView).loading = True
        self.sub_title = self.label or self.session_id
        self._show_trail()
        self.load()

    def _show_trail(self) -> None:
        labels = card_trail(self.app)
        self.query_one("#card-trail", Breadcrumbs).show(labels, len(labels) - 1)

    @property
    def trail_label(self) -> str:
        return self.label or "session"

    @work(thread=True, exclusive=True, group="session", exit_on_error=False)
    def load(self) -> None:
        first = max(0, self.cited[0] - CONTEXT_BEFORE) if self.cited else 0
        params = {"session_id": self.session_id, "first": first, "count": MAX_COUNT}
        document = call_or_report(self, "session.turns", params, self._failed)
        if document is not None:
            self.app.call_from_thread(self._show, document)

    async def _show(self, document: dict) -> None:
        self.document = document
        if not self.label and document["turns"]:
            self.label = next((turn["content"].split("\n", 1)[0] for turn in document["turns"]
                               if turn.get("role") == "user" and turn.get("content", "").strip()), self.session_id)
            self.sub_title = self.label
            self._show_trail()
        session = {"id": self.session_id, "timestamp": document["timestamp"], "channel": document["channel"],
                   "path": document["path"], "turns": document["turns"]}
        cited = [{"index": index} for index in self.cited]
        transcript = self.query_one("#transcript", TraceView)
        await transcript.show([session], cited, Path(self.backend.home))
        loaded(transcript)
        self.query_one("#session-cards", TitleTable).show(
            [(card["card_id"], card["title"], (Text(card["type"]),)) for card in document["cards"]])
        shown = f"turns {document['first']}–{document['last']} of {document['turn_count']}"
        cards = len(document["cards"])
        self.show_message(f"{shown} · {cards} {'card' if cards == 1 else 'cards'} distilled from this session"
                          + (" · n / p jump between cited turns" if self.cited else ""))

    @on(DataTable.RowSelected, "#session-cards")
    def _open_card(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.app.push_card(str(event.row_key.value))  # the app's: the card screen opens sessions too

    def action_back(self) -> None:
        if len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    def action_copy_id(self) -> None:
        cards = self.query_one("#session-cards", TitleTable)
        copy_id(self, (cards.selected_key if self.focused is cards else None) or self.session_id)

    def _failed(self, message: str) -> None:
        loaded(self.query_one("#transcript", TraceView))
        self.show_message(message, error=True)

    def show_message(self, text: str, error: bool = False) -> None:
        message = self.query_one("#session-message", Static)
        message.set_class(error, "-error")
        message.update(text)
