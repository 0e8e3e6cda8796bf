"""Screens that are not in front: built ahead, and laid out when their figures arrive, so that a visit only paints.

Building a screen (composing, mounting and styling its widgets) took 150–390 ms at its first visit, against 30–130
ms for showing it again; so the app builds every mode's screen right after the first one shows. Textual builds a
mode's screen only when it is switched to, and lays out only the screen in front; switching there and back would
hand the keys typed meanwhile to the wrong screen and re-focus the query bar (selecting what was typed). So this
module uses three of Textual's own steps (private API, Textual 8): ``App._init_mode`` (a mode's stack and screen,
mounted, not shown), ``Screen._css_update_count`` (the styles it was built with are current: else its first
visit re-parses the whole stylesheet, 70–100 ms) and ``Screen._refresh_layout`` (its widgets get their sizes: a
table that draws its rows to its width, the timeline's ~1,000 cards, drew them during the key that showed it).
Without them (another Textual) nothing breaks: each screen is built, styled and laid out at its first visit, as
Textual does by default.
"""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen


async def build_unseen(app: App, mode: str) -> bool:
    """Build ``mode``'s screen without showing it; False when this Textual has no way to (nothing is done)."""
    init_mode = getattr(app, "_init_mode", None)
    if init_mode is None or not hasattr(app, "_css_update_count"):
        return False
    await init_mode(mode)
    screen = app.get_screen_stack(mode)[0]
    screen._css_update_count = app._css_update_count
    lay_out_unseen(screen)
    return True


def lay_out_unseen(screen: Screen) -> None:
    """After the widgets of ``screen`` changed: lay it out now if it is not the screen in front."""
    if screen.is_current or not screen.is_attached:
        return
    refresh_layout = getattr(screen, "_refresh_layout", None)
    if refresh_layout is not None:
        screen.call_after_refresh(lambda: None if screen.is_current else refresh_layout(screen.app.size))
