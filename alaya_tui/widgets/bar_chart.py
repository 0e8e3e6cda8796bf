"""A bordered panel of labelled horizontal bars (``████░░░░░░``), one row per count."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.style import Style
from rich.table import Table
from rich.text import Text

from alaya_engine.foundations.human import share_bar

from .row_cursor import RowCursor

BAR_WIDTH = 12
MIN_BAR_WIDTH = 3
SHARE_CELLS = 4
"""``100%``."""


@dataclass
class BarRow:
    label: str
    count: int
    share: float
    """Of the chart's total, 0–1: the bar's length."""
    tone: str = ""
    """A colour class of :class:`BarChart` (``hot``, ``warm``, ``cold`` or a card type); empty for the accent."""


class BarChart(RowCursor):
    """Enter on a row posts :class:`RowCursor.Chosen` (the tiers screen lists the cards behind it)."""

    COMPONENT_CLASSES = {
        "bar-chart--bar", "bar-chart--hot", "bar-chart--warm", "bar-chart--cold",
        "bar-chart--concept", "bar-chart--pattern", "bar-chart--gotcha", "bar-chart--decision",
        "bar-chart--muted",
    }

    def __init__(self, title: str, *, id: str | None = None):
        super().__init__("loading…", id=id, classes="bar-chart")
        self.border_title = title
        self.rows: list[BarRow] = []

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def show(self, rows: list[BarRow]) -> None:
        self.rows = list(rows)
        self.cursor = min(self.cursor, max(0, len(self.rows) - 1))
        self._redraw()

    @property
    def row_count(self) -> int:
        return len(self.rows)

    def _redraw(self) -> None:
        muted = self.get_component_rich_style("bar-chart--muted", partial=True)
        table = Table.grid(padding=(0, 1))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        table.add_column(no_wrap=True)
        table.add_column(justify="right", no_wrap=True)
        bar_width = self._bar_width()
        for index, row in enumerate(self.rows):
            tone = f"bar-chart--{row.tone}" if row.tone else "bar-chart--bar"
            style = self.get_component_rich_style(tone if tone in self.COMPONENT_CLASSES else "bar-chart--bar",
                                                  partial=True)
            selected = Style(reverse=True) if self.has_focus and index == self.cursor else None
            table.add_row(row.label, f"{row.count:,}", Text(share_bar(row.share, bar_width), style=style),
                          f"{row.share:.0%}", style=selected)
        self.update(table if self.rows else Text("nothing to show", style=muted))

    def _bar_width(self) -> int:
        """What the label, count and share leave of the panel, up to ``BAR_WIDTH``: at 80 columns three charts
        sit side by side, and their figures must stay whole while the bars get shorter."""
        label = max(cell_len(row.label) for row in self.rows) if self.rows else 0
        count = max(len(f"{row.count:,}") for row in self.rows) if self.rows else 0
        room = self.content_region.width - label - count - SHARE_CELLS - 3  # the grid's three gaps
        return max(MIN_BAR_WIDTH, min(BAR_WIDTH, room)) if self.content_region.width else BAR_WIDTH

    def on_resize(self) -> None:
        if self.rows:
            self._redraw()
