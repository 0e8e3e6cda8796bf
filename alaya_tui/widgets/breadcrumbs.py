"""The navigation path of the explore screen: one crumb per request, the current one marked."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

from ..formatting import shorten

CRUMB_CHARS = 32
MAX_CRUMBS = 6


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

    def _redraw(self) -> None:
        if not self.labels:
            self.update("")
            return
        current_style = self.get_component_rich_style("breadcrumbs--current", partial=True)
        step_style = self.get_component_rich_style("breadcrumbs--step", partial=True)
        separator_style = self.get_component_rich_style("breadcrumbs--separator", partial=True)
        first = max(0, min(self.current - MAX_CRUMBS // 2, len(self.labels) - MAX_CRUMBS))
        text = Text(no_wrap=True, overflow="ellipsis")
        if first > 0:
            text.append("… › ", style=separator_style)
        last = min(len(self.labels), first + MAX_CRUMBS)
        for index in range(first, last):
            if index > first:
                text.append(" › ", style=separator_style)
            label = f"{index + 1}. {shorten(self.labels[index], CRUMB_CHARS)}"
            text.append(f" {label} " if index == self.current else label,
                        style=current_style if index == self.current else step_style)
        if last < len(self.labels):
            text.append(" › …", style=separator_style)
        self.update(text)
