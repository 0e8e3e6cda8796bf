"""AlayaApp: takes a backend (the owner server or an in-process engine), so tests can hand it a prepared store."""

from __future__ import annotations

from textual.app import App

from alaya_engine.backend import Backend

from .screens.status import StatusScreen
from .styles import stylesheet


class AlayaApp(App):
    TITLE = "Alaya"
    CSS_PATH = stylesheet("alaya.tcss")
    BINDINGS = [("q", "quit", "Quit")]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        self.sub_title = str(backend.home)

    def on_mount(self) -> None:
        self.push_screen(StatusScreen(self.backend))
