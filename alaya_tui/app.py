"""AlayaApp: takes a backend (the owner server or an in-process engine), so tests can hand it a prepared store.

Two modes, each with its own screen stack: ``explore`` (the home screen; cards open on top of it) and ``status``.
Every screen asks the backend only through ``backend.call`` in worker threads, so what a person sees is rendered
from the same documents ``alaya … --json`` prints.
"""

from __future__ import annotations

from textual.app import App
from textual.binding import Binding

from alaya_engine.backend import Backend

from .screens.explore import ExploreScreen
from .screens.help import HelpScreen
from .screens.status import StatusScreen
from .styles import stylesheet


class AlayaApp(App):
    TITLE = "Alaya"
    CSS_PATH = stylesheet("alaya.tcss")
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (130, "-wide")]
    """Below 130 columns the side panes go under the main ones (see ``alaya.tcss``)."""
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("e", "show_explore", "Explore"),
        Binding("s", "show_status", "Status"),
        Binding("question_mark,f1", "help", "Help", key_display="?/F1"),
        Binding("f2", "show_explore", "Explore", show=False, priority=True),
        Binding("f3", "show_status", "Status", show=False, priority=True),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        """What every screen calls, from worker threads (the engine's ``hold`` is shared safely by threads)."""
        self.sub_title = str(backend.home)
        self.add_mode("explore", lambda: ExploreScreen(self.backend))
        self.add_mode("status", lambda: StatusScreen(self.backend))

    def on_mount(self) -> None:
        self.switch_mode("explore")

    def action_show_explore(self) -> None:
        """To the explore screen itself (cards opened on top of it are closed)."""
        if self.current_mode != "explore":
            self.switch_mode("explore")
        while len(self.screen_stack) > 1 and not isinstance(self.screen, ExploreScreen):
            self.pop_screen()

    def action_show_status(self) -> None:
        self.switch_mode("status")

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen.HELP or "# Alaya"))
