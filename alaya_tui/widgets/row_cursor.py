"""A cursor over the rows of a drawn panel (a chart, a table of figures): up and down move it, Enter chooses.

The tiers screen's figures are Rich tables drawn in a Static; this lets a person open the cards behind a row
without turning each panel into a DataTable (which would lose the bars' widths and colours).
"""

from __future__ import annotations

from textual.binding import Binding
from textual.message import Message
from textual.widgets import Static


class RowCursor(Static, can_focus=True):
    """A Static that draws ``row_count`` rows in :meth:`_redraw`, highlighting ``cursor`` when focused."""

    BINDINGS = [
        Binding("enter", "choose", "List them"),
        Binding("up", "cursor_up", "Up", show=False),
        Binding("down", "cursor_down", "Down", show=False),
    ]
    cursor = 0

    class Chosen(Message):
        """Enter on row ``index`` of ``panel``."""

        def __init__(self, panel, index: int):
            super().__init__()
            self.panel = panel
            self.index = index

    @property
    def row_count(self) -> int:
        raise NotImplementedError

    def _redraw(self) -> None:
        raise NotImplementedError

    def action_cursor_down(self) -> None:
        self._move(1)

    def action_cursor_up(self) -> None:
        self._move(-1)

    def _move(self, step: int) -> None:
        if self.row_count:
            self.cursor = (self.cursor + step) % self.row_count
            self._redraw()

    def action_choose(self) -> None:
        if 0 <= self.cursor < self.row_count:
            self.post_message(self.Chosen(self, self.cursor))

    def on_focus(self) -> None:
        self._redraw()

    def on_blur(self) -> None:
        self._redraw()
