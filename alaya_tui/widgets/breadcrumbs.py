"""A navigation path on one line: one crumb per step, named by what it showed (a query, a relation and the card it
left from, a card's title), the current one marked.

The current step is always shown: when the path is wider than the line, the steps ahead of it (after going back)
give way first (`` › …``), then the oldest ones (``… ›`` on the left), and only then is the current crumb shortened.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import Static

from ..formatting import shorten

CRUMB_CELLS = 40
"""No crumb but the current one is wider than this, nor wider than a quarter of the line."""
SEPARATOR = " › "
ELLIPSIS = "… › "


def current_cells(width: int) -> int:
    """The current crumb's share of the line: most of it, so the steps before it can still show."""
    return max(CRUMB_CELLS, width * 3 // 5)


def step_cells(width: int) -> int:
    return max(12, min(CRUMB_CELLS, width // 4))


def crumb_texts(labels: list[str], current: int, width: int) -> tuple[list[int], bool, bool]:
    """Which crumbs fit in ``width`` cells, and whether some were left out before and after them."""
    def cells(indices: list[int]) -> int:
        return sum(cell_len(shown(index)) for index in indices) + cell_len(SEPARATOR) * (len(indices) - 1)

    def shown(index: int) -> str:
        return f" {shorten(labels[index], current_cells(width))} " if index == current else shorten(
            labels[index], step_cells(width))

    first, last = 0, len(labels) - 1

    def too_wide() -> bool:
        marks = (len(ELLIPSIS) if first else 0) + (len(ELLIPSIS) if last < len(labels) - 1 else 0)
        return cells(list(range(first, last + 1))) + marks > width

    while last > current and too_wide():
        last -= 1
    while first < current and too_wide():
        first += 1
    return list(range(first, last + 1)), first > 0, last < len(labels) - 1


class Breadcrumbs(Static):
    COMPONENT_CLASSES = {"breadcrumbs--current", "breadcrumbs--step", "breadcrumbs--separator"}

    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id)
        self.labels: list[str] = []
        self.current = -1

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def show(self, labels: list[str], current: int) -> None:
        self.labels, self.current = list(labels), current
        self._redraw()

    def on_resize(self) -> None:
        self._redraw()

    def _redraw(self) -> None:
        if not self.labels:
            self.update("")
            return
        current_style = self.get_component_rich_style("breadcrumbs--current", partial=True)
        step_style = self.get_component_rich_style("breadcrumbs--step", partial=True)
        separator_style = self.get_component_rich_style("breadcrumbs--separator", partial=True)
        width = self.content_region.width or 80
        indices, before, after = crumb_texts(self.labels, self.current, width)
        text = Text(no_wrap=True)
        if before:
            text.append(ELLIPSIS, style=separator_style)
        for position, index in enumerate(indices):
            if position:
                text.append(SEPARATOR, style=separator_style)
            if index == self.current:
                room = width - cell_len(text.plain) - (len(ELLIPSIS) if after else 0) - 2
                cells = min(current_cells(width), max(room, 8))
                text.append(f" {shorten(self.labels[index], cells)} ", style=current_style)
            else:
                text.append(shorten(self.labels[index], step_cells(width)), style=step_style)
        if after:
            text.append(SEPARATOR + "…", style=separator_style)
        self.update(text)
