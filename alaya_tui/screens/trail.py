"""What the card and session screens share: the trail of screens that led to them, and copying an id.

The trail is read from the app's screen stack, so it is always the path Escape walks back: the explore step (or
the screen) it started from, then each card or session opened on top, named by title or by the relation followed.
"""

from __future__ import annotations

from textual.app import App
from textual.screen import Screen


def card_trail(app: App) -> list[str]:
    """One label per screen of the current stack, the screen in front last."""
    return [getattr(screen, "trail_label", None) or type(screen).__name__.removesuffix("Screen")
            for screen in app.screen_stack]


def copy_id(screen: Screen, identifier: str) -> None:
    """To the terminal's clipboard (OSC 52, where the terminal allows it), and said, since some terminals refuse."""
    screen.app.copy_to_clipboard(identifier)
    screen.notify(f"copied {identifier}", timeout=3)
