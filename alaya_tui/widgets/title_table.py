"""A table of titles that fits its width: the home view's HOT cards and recent sessions, a session's cards.

A title left as it is pushed the columns after it out of an 80-column terminal; here the title column is as wide as
the others leave and each title is cut to it (CJK characters take two cells)."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from ..formatting import shorten

MIN_TITLE_WIDTH = 12


class TitleTable(DataTable):
    """Rows whose first column (a title) takes the width the others leave, cut by terminal cells, so the other
    columns stay whole at any width; Enter selects a row (the screen opens what it names)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]

    def __init__(self, columns: tuple[str, ...], *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.headings = columns
        self.rows_shown: list[tuple[str, str, tuple[Text, ...]]] = []
        """(key, title, the other cells) per row."""
        self._drawn_width = 0

    def show(self, rows: list[tuple[str, str, tuple[Text, ...]]]) -> None:
        self.rows_shown = rows
        self._redraw()

    def _redraw(self) -> None:
        self._drawn_width = self.size.width
        others = [max([cell_len(heading)] + [cell_len(cells[i].plain) for _key, _title, cells in self.rows_shown])
                  for i, heading in enumerate(self.headings[1:])]
        padding = 2 * self.cell_padding * len(self.headings) + 2
        width = max(MIN_TITLE_WIDTH, self.size.width - sum(others) - padding)
        self.clear(columns=True)
        self.add_column(self.headings[0], width=width)
        for heading in self.headings[1:]:
            self.add_column(heading)
        for key, title, cells in self.rows_shown:
            self.add_row(Text(shorten(title, width)), *cells, key=key)

    def on_resize(self) -> None:
        if self.rows_shown and self.size.width != self._drawn_width:
            self._redraw()

    @property
    def selected_key(self) -> str | None:
        if not 0 <= self.cursor_row < len(self.rows_shown):
            return None
        return self.rows_shown[self.cursor_row][0]
