"""Command palette entries (Ctrl+P): the screens, introspect, other stores, and cards by title.

Cards are found by the engine's own search (a ``recall`` of what was typed: full-text and vectors over titles and
contents), since no call lists every card. Like any recall it counts as an access of the cards it returns, so the
search waits until typing pauses and needs a few characters.
"""

from __future__ import annotations

import asyncio
from functools import partial
from pathlib import Path

from textual.command import DiscoveryHit, Hit, Hits, Provider

from alaya_engine.foundations.paths import Layout, resolve_home

from .errors import describe
from .formatting import unit_label
from .widgets.results_table import type_label

SCREENS = (
    ("explore", "Explore", "recall as navigation (the home screen)"),
    ("status", "Status", "the three layers' figures"),
    ("tiers", "Tiers", "tier counts, temperature histogram, relation usage, cards per type"),
    ("review", "Review", "introspect's pending suggestions: approve or reject"),
    ("timeline", "Timeline", "sessions by day or week and the cards they gave"),
)
"""Every mode of the app, in the order of their digit keys."""
CARD_QUERY_MIN = 3
CARD_SEARCH_PAUSE = 0.3
"""Seconds typing must pause before cards are searched (a new keystroke cancels the wait)."""
CARD_HITS = 8


def known_homes() -> list[Path]:
    """The default store and the demo store, when they exist (``$ALAYA_HOME``/``~/.alaya``, the demo's home)."""
    from alaya_engine.demo import resolve_demo_home

    homes = dict.fromkeys([resolve_home(None), resolve_demo_home(None)])
    return [home for home in homes if Layout(home).is_initialised()]


def typed_home(query: str) -> Path | None:
    """An initialised store at the path being typed (absolute, ``~`` or relative), if there is one."""
    text = query.strip()
    if not text.startswith(("/", "~", ".")):
        return None
    home = Path(text).expanduser().absolute()
    return home if Layout(home).is_initialised() else None


class AlayaCommands(Provider):
    """The screens, introspect, and switching to another store."""

    def _commands(self) -> list[tuple[str, object, str]]:
        app = self.app
        commands = [(f"Go to {label}", partial(app.action_show_mode, mode), purpose)
                    for mode, label, purpose in SCREENS]
        commands.append(("Run introspect…", app.action_run_introspect,
                         "choose the steps; progress and cancel on the Review screen"))
        commands += [(f"Switch home: {home}", partial(app.switch_home, home), "open this store instead")
                     for home in known_homes() if home != Path(app.backend.home).absolute()]
        return commands

    async def discover(self) -> Hits:
        for text, command, purpose in self._commands():
            yield DiscoveryHit(text, command, help=purpose)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for text, command, purpose in self._commands():
            score = matcher.match(text)
            if score > 0:
                yield Hit(score, matcher.highlight(text), command, help=purpose)
        home = typed_home(query)
        if home is not None:
            yield Hit(1.0, f"Switch home: {home}", partial(self.app.switch_home, home), help="open this store instead")


class CardCommands(Provider):
    """Jump to a card by its title: the cards the engine finds for what was typed."""

    async def search(self, query: str) -> Hits:
        text = query.strip()
        if len(text) < CARD_QUERY_MIN or typed_home(text) is not None:
            return
        await asyncio.sleep(CARD_SEARCH_PAUSE)
        request = {"text": text, "max_results": CARD_HITS}
        try:
            result = await asyncio.to_thread(self.app.backend.call, "recall", {"request": request})
        except Exception as error:  # noqa: BLE001 - a failed search is a notification, never a crash
            self.app.notify(describe(error), severity="error")
            return
        matcher = self.matcher(text)
        for node in result["nodes"]:
            title = node["title"]
            # A title that matches what was typed ranks first; the engine's semantic finds follow, by score.
            score = max(matcher.match(title), node["score"] / 2)
            yield Hit(score, matcher.highlight(title), partial(self.app.open_card, node["card_id"]), text=title,
                      help=f"{unit_label(node['kind'])} · {type_label(node)} · {node['tier']} · {node['card_id']}")
