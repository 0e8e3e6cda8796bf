"""AlayaApp: takes an opened engine, so tests can hand it a prepared store."""

from __future__ import annotations

from textual.app import App

from alaya_engine.engine import Engine

from .screens.status import StatusScreen
from .styles import stylesheet


class AlayaApp(App):
    TITLE = "Alaya"
    CSS_PATH = stylesheet("alaya.tcss")
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, engine: Engine):
        super().__init__()
        self.engine = engine
        self.sub_title = str(engine.layout.home)

    def on_mount(self) -> None:
        self.push_screen(StatusScreen(self.engine))
