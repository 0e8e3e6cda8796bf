"""Plain formatting shared by the screens: numbers rounded the way ``alaya recall`` prints them, the h bar."""

from __future__ import annotations

from rich.cells import cell_len, set_cell_size

from alaya_engine.recall.result import CLOSE_ENOUGH as CLOSE
from alaya_engine.recall.result import GETTING_CLOSER as NEAR

BAR_WIDTH = 10
_EIGHTHS = " ▏▎▍▌▋▊▉"


def number(value: float | None) -> str:
    """Two decimals, as the CLI prints h, rel_sim and the average; a dash for null."""
    return "—" if value is None else f"{value:.2f}"


def closeness(h: float | None) -> str:
    """``close``, ``near`` or ``far`` by the verdict's thresholds: the name of the colour class for an h-distance."""
    if h is None:
        return "far"
    return "close" if h < CLOSE else "near" if h < NEAR else "far"


def h_bar(h: float, width: int = BAR_WIDTH) -> str:
    """Block characters filling ``width`` cells in proportion to 1 − h (eighth-cell precision), padded."""
    fraction = min(max(1.0 - h, 0.0), 1.0)
    eighths = round(fraction * width * 8)
    full, rest = divmod(eighths, 8)
    bar = "█" * full + (_EIGHTHS[rest] if rest else "")
    return bar.ljust(width)


def shorten(text: str, limit: int) -> str:
    """One line of at most ``limit`` terminal cells (CJK characters take two), with an ellipsis when cut."""
    line = " ".join(text.split())
    if cell_len(line) <= limit:
        return line
    return set_cell_size(line, max(limit - 1, 0)).rstrip() + "…"


UNIT_NAMES = {"card": ("card", "cards"), "session_turns": ("window", "windows")}
"""What each kind of recall unit is called on screen: a window is raw turns of a session, not a card."""


def unit_label(kind: str) -> str:
    return UNIT_NAMES.get(kind, (kind, kind))[0]


def count_units(nodes: list[dict]) -> str:
    """``3 cards · 2 windows``: the units of a result counted by kind, cards first."""
    counts: dict[str, int] = {}
    for node in nodes:
        counts[node.get("kind", "card")] = counts.get(node.get("kind", "card"), 0) + 1
    if not counts:
        return "0 cards"
    return " · ".join(f"{count} {UNIT_NAMES.get(kind, (kind, kind))[count != 1]}"
                      for kind, count in sorted(counts.items(), key=lambda item: item[0] != "card"))
