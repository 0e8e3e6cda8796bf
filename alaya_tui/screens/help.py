"""The help overlay (``?`` or F1): the current screen's keys and, on Explore, the query syntax."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

GLOBAL_HELP = """\
Everything on screen comes from the engine's JSON documents (`recall`, `card`, `trace`, `status`),
the same ones `alaya … --json` prints.
"""


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,f1,q", "dismiss", "Close help"),
    ]

    def __init__(self, text: str):
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help-box"):
            yield Markdown(self.text + "\n" + GLOBAL_HELP, id="help-text")
            yield Static("Escape, ? or F1 closes this help", id="help-hint")

    def on_mount(self) -> None:
        self.query_one("#help-box").border_title = "Help"
        self.query_one("#help-box").focus()
