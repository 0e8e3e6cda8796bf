"""The ranked nodes of a recall result: rank, title, h with its bar, type badge, tier, matched relation."""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from ..formatting import BAR_WIDTH, closeness, h_bar, number, shorten

MIN_TITLE_WIDTH = 8
"""Titles get what the other columns leave, but never less (at 80 columns every column still fits)."""
TYPE_LABELS = {"session_turns": "turns"}
"""Shorter badges where the engine's name is long: a window of raw session turns."""
FOUND_BY_SEARCH = "search"
"""The Matched cell of a card the query found directly (no relation led to it)."""


def type_label(node: dict) -> str:
    return TYPE_LABELS.get(node["type"], node["type"])


class ResultsTable(DataTable):
    """Rows keyed by card id, in the result's order; colours come from the TCSS component classes."""

    BINDINGS = [Binding("enter", "select_cursor", "Open card")]
    COMPONENT_CLASSES = {
        "results--close", "results--near", "results--far",
        "results--concept", "results--pattern", "results--gotcha", "results--decision",
        "results--muted",
    }

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.nodes: list[dict] = []
        self._drawn_width = 0

    def on_mount(self) -> None:
        self._add_columns(MIN_TITLE_WIDTH)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def _add_columns(self, title_width: int) -> None:
        self.add_column("#", key="rank")
        self.add_column("Title", key="title", width=title_width)
        self.add_column("h", key="h")
        self.add_column("1 − h", key="bar")
        self.add_column("Type", key="type")
        self.add_column("Tier", key="tier")
        self.add_column("Matched", key="matched_rel")
        self.add_column("rel_sim", key="rel_similarity")

    def show(self, nodes: list[dict], cursor_row: int = 0) -> None:
        self.nodes = list(nodes)
        self._redraw(cursor_row)

    def _redraw(self, cursor_row: int | None = None) -> None:
        if cursor_row is None:
            cursor_row = self.cursor_row
        self._drawn_width = self.size.width
        title_width = self._title_width()
        self.clear(columns=True)  # column widths only ever grow otherwise
        self._add_columns(title_width)
        muted = self.get_component_rich_style("results--muted", partial=True)
        for rank, node in enumerate(self.nodes, start=1):
            tone = self.get_component_rich_style(f"results--{closeness(node['h_distance'])}", partial=True)
            badge_class = f"results--{node['type']}"
            badge = (self.get_component_rich_style(badge_class, partial=True)
                     if badge_class in self.COMPONENT_CLASSES else muted)
            self.add_row(
                Text(str(rank), justify="right"),
                Text(shorten(node["title"], title_width)),
                Text(number(node["h_distance"]), style=tone, justify="right"),
                Text(h_bar(node["h_distance"]), style=tone),
                Text(f" {type_label(node)} ", style=badge),
                node["tier"],
                Text(node["matched_rel"] or FOUND_BY_SEARCH, style=muted if node["matched_rel"] is None else ""),
                Text(number(node["rel_similarity"]), justify="right"),
                key=node["card_id"],
            )
        if self.nodes:
            self.move_cursor(row=min(max(cursor_row, 0), len(self.nodes) - 1), animate=False)

    def _title_width(self) -> int:
        """What is left of the table's width for titles, so every column stays visible."""
        nodes = self.nodes
        others = [
            len(str(len(nodes))),                                                   # rank
            4,                                                                      # h
            BAR_WIDTH,                                                              # bar
            max([len("Type")] + [len(type_label(node)) + 2 for node in nodes]),    # type badge
            max([len("Tier")] + [len(node["tier"]) for node in nodes]),             # tier
            max([len("Matched")] + [len(node["matched_rel"] or FOUND_BY_SEARCH) for node in nodes]),
            len("rel_sim"),
        ]
        padding = 2 * self.cell_padding * (len(others) + 1) + 2  # and a vertical scrollbar's worth
        return max(MIN_TITLE_WIDTH, self.size.width - sum(others) - padding)

    def on_resize(self) -> None:
        if self.nodes and self.size.width != self._drawn_width:
            self._redraw()

    @property
    def selected(self) -> dict | None:
        """The node under the cursor."""
        if not self.nodes or not 0 <= self.cursor_row < len(self.nodes):
            return None
        return self.nodes[self.cursor_row]
