"""AlayaApp: takes a backend (the owner server or an in-process engine), so tests can hand it a prepared store.

Five modes, each with its own screen stack: ``explore`` (the home screen; cards open on top of it), ``status``,
``tiers``, ``review`` and ``timeline``. Every mode's screen is built, unseen, right after the first one shows (one
per turn of the event loop; see ``screens/unseen.py``), so a digit key only shows a screen that already exists.
Every screen asks the backend only through ``backend.call`` in worker threads, so what a person sees is rendered
from the same documents ``alaya … --json`` prints, and the app holds no store lock while it waits for a key: an
agent's ``alaya recall`` or a cron ``introspect`` runs meanwhile.
"""

from __future__ import annotations

from pathlib import Path

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen
from textual.signal import Signal
from textual.widgets import Input

from alaya_engine.raw.windows import parse_window_id
from alaya_engine.server.backend import Backend, LocalBackend, open_backend

from .errors import describe
from .gc_pauses import IdleCollector
from .palette import AlayaCommands, CardCommands
from .screens.card import CardScreen
from .screens.explore import ExploreScreen
from .screens.help import HelpScreen, key_sections
from .screens.review import ReviewScreen
from .screens.session import SessionScreen
from .screens.status import StatusScreen
from .screens.tiers import TiersScreen
from .screens.timeline import TimelineScreen
from .screens.unseen import build_unseen

MODE_SCREENS: dict[str, type[Screen]] = {
    "explore": ExploreScreen, "status": StatusScreen, "tiers": TiersScreen, "review": ReviewScreen,
    "timeline": TimelineScreen,
}
COLLECT_EVERY = 0.5
"""Seconds between two looks at whether a full garbage collection is due (``gc_pauses``)."""
SWITCHING = "switching"
"""A blank mode shown for a moment while the screens are rebuilt for another store."""


SCREENS = Binding.Group("Screens")
"""The five digits share one footer label, so every screen's keys fit in 80 columns (the help names each)."""


def _mode_keys(number: str, function_key: str, mode: str, label: str, letter: str | None = None) -> list[Binding]:
    """The digit (shown in the footer), the F-key (works while typing) and an optional letter for one mode."""
    action = f"show_mode('{mode}')"
    keys = [Binding(number, action, label, group=SCREENS),
            Binding(function_key, action, label, show=False, priority=True)]
    if letter:
        keys.append(Binding(letter, action, label, show=False))
    return keys


class AlayaApp(App):
    TITLE = "Alaya"
    CSS_PATH = "alaya.tcss"
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (130, "-wide")]
    """Below 130 columns the side panes go under the main ones (see ``alaya.tcss``)."""
    COMMANDS = App.COMMANDS | {AlayaCommands, CardCommands}
    BINDINGS = [
        *_mode_keys("1", "f2", "explore", "Explore", "e"),
        *_mode_keys("2", "f3", "status", "Status", "s"),
        *_mode_keys("3", "f4", "tiers", "Tiers"),
        *_mode_keys("4", "f5", "review", "Review"),
        *_mode_keys("5", "f6", "timeline", "Timeline"),
        Binding("slash,colon", "search", "Query (recall)", show=False, key_display="/", priority=True),
        Binding("j", "cursor('down')", "Down", show=False),
        Binding("k", "cursor('up')", "Up", show=False),
        Binding("question_mark,f1", "help", "Help", key_display="?"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, backend: Backend, *, query: str | None = None, card_id: str | None = None):
        """``query`` is recalled at once, ``card_id`` (a card or a window of turns) opened at once: what
        ``alaya tui --query TEXT`` and ``alaya tui CARD_ID`` start on."""
        super().__init__()
        self.backend = backend
        self.start_query, self.start_card = query, card_id
        """What every screen calls, from worker threads (the engine's ``hold`` is shared safely by threads)."""
        self.sub_title = str(backend.home)
        self.store_changed_signal: Signal[str] = Signal(self, "store-changed")
        """Published (with what changed it: ``introspect``, ``review``) after the app changed the store."""
        self._previous_mode = "explore"
        self.built_modes: set[str] = set()
        """The modes whose screen exists (built ahead by :meth:`_build_next_mode`, or by a visit)."""
        self.collector = IdleCollector()
        """Full garbage collections while no key is pressed, once the screens are built (see ``gc_pauses``)."""
        self._add_modes()

    def _add_modes(self) -> None:
        for mode, screen in MODE_SCREENS.items():
            self.add_mode(mode, lambda screen=screen: screen(self.backend))

    async def on_mount(self) -> None:
        self.set_interval(COLLECT_EVERY, self.collector.tick)
        await self.switch_mode("explore")
        self.built_modes.add("explore")
        if self.start_query:
            self.screen.ask(self.start_query)
        if self.start_card:
            await self.open_card(self.start_card)
        self.call_after_refresh(self._build_next_mode)

    async def _build_next_mode(self) -> None:
        """Build the next mode's screen without showing it, then give the event loop a turn (a key pressed
        meanwhile waits for one screen at most) before the next. A built screen loads its figures in a worker as on
        a visit; the screen in front is never touched, so keys typed meanwhile go where they always go."""
        waiting = [mode for mode in MODE_SCREENS if mode not in self.built_modes]
        if not waiting or not self.is_running or self.current_mode == SWITCHING:
            return
        if await build_unseen(self, waiting[0]):
            self.built_modes.add(waiting[0])
        else:
            waiting = waiting[:1]  # this Textual cannot build a screen unseen: each is built at its first visit
        if len(waiting) > 1:
            self.call_after_refresh(self._build_next_mode)
        else:
            self.collector.start()

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown)):
            self.collector.saw_input()
        await super().on_event(event)

    def on_unmount(self) -> None:
        self.collector.restore()

    # Screens ------------------------------------------------------------------------------------------------------

    async def action_show_mode(self, mode: str) -> None:
        """To the mode's own screen (cards opened on top of it are closed)."""
        if mode != self.current_mode:
            self._previous_mode = self.current_mode
            await self.switch_mode(mode)
            self.built_modes.add(mode)
        while len(self.screen_stack) > 1 and not isinstance(self.screen, MODE_SCREENS[mode]):
            self.pop_screen()

    async def action_back_mode(self) -> None:
        """Escape on the tiers or review screen: back to the screen shown before it."""
        await self.action_show_mode(self._previous_mode if self._previous_mode != self.current_mode else "explore")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``/`` and ``:`` are text while a text box has the focus (the key then goes on to it); on Explore the
        screen's own key acts (the one its footer shows)."""
        if action == "search":
            return not isinstance(self.focused, Input) and not isinstance(self.screen, ExploreScreen)
        return True

    async def action_search(self) -> None:
        await self.action_show_mode("explore")
        self.screen.action_focus_query()

    async def action_run_introspect(self) -> None:
        await self.action_show_mode("review")
        self.screen.action_introspect()

    async def open_card(self, card_id: str) -> None:
        """A card on the card screen, a window of raw turns as its session's transcript (its turns cited)."""
        await self.action_show_mode("explore")
        window = parse_window_id(card_id)
        if window is None:
            self.push_screen(CardScreen(self.backend, card_id))
        else:
            session_id, first, last = window
            self.push_screen(SessionScreen(self.backend, session_id, list(range(first, last + 1))))

    def push_card(self, card_id: str) -> None:
        """A card on top of the screen in front (Escape comes back to it)."""
        self.push_screen(CardScreen(self.backend, card_id))

    def action_cursor(self, direction: str) -> None:
        """``j`` / ``k``: move the focused list's cursor, or scroll the focused pane."""
        for name in (f"action_cursor_{direction}", f"action_scroll_{direction}"):
            move = getattr(self.focused, name, None)
            if move is not None:
                move()
                return

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen.HELP or "# Alaya", key_sections(self.screen)))

    # Another store ----------------------------------------------------------------------------------------------

    def switch_home(self, home: Path) -> None:
        self.notify(f"Opening {home}…")
        self._open_home(home)

    @work(thread=True, exclusive=True, group="home", exit_on_error=False)
    def _open_home(self, home: Path) -> None:
        """Opening may start the store's owner server, so it happens off the event loop."""
        try:
            backend = open_backend(home, no_server=isinstance(self.backend, LocalBackend))
        except Exception as error:  # noqa: BLE001 - shown as a notification, the current store stays open
            self.call_from_thread(self.notify, describe(error), severity="error")
            return
        self.call_from_thread(self.use_backend, backend)

    async def use_backend(self, backend: Backend) -> None:
        """Every screen rebuilt on ``backend``, starting from Explore."""
        self.backend = backend
        self.sub_title = str(backend.home)
        self.collector.restore()  # the old store's screens become garbage: collectable again
        self.add_mode(SWITCHING, Screen)
        await self.switch_mode(SWITCHING)
        for mode in MODE_SCREENS:
            await self.remove_mode(mode)
        self.built_modes.clear()
        self._add_modes()
        self._previous_mode = "explore"
        await self.switch_mode("explore")
        self.built_modes.add("explore")
        await self.remove_mode(SWITCHING)
        self.call_after_refresh(self._build_next_mode)
