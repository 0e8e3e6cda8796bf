"""The ranked nodes of a recall result: rank, title, h with its bar, type badge, tier, matched relation, rel_sim.

Columns adapt to what the result says: one that says nothing (every card found by search, so no relation and no
rel_sim; one tier or type for every row) is left out, h and its 1 − h bar share one column (a shorter bar when the
table is narrow), and titles take every cell the other columns leave.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable

from ..formatting import BAR_WIDTH, closeness, h_bar, number, shorten

MIN_TITLE_WIDTH = 8
"""Titles get what the other columns leave, but never less (at 80 columns every column still fits)."""
NARROW_TABLE = 100
"""Below this many cells the h bar is shorter."""
NARROW_BAR = 5
WINDOW_KIND = "session_turns"
"""A recall unit that is a window of raw turns, not a card."""
TYPE_LABELS = {WINDOW_KIND: "turns"}
"""Shorter badges where the engine's name is long: a window of raw session turns."""
FOUND_BY_SEARCH = "search"
"""The Matched cell of a card the query found directly (no relation led to it)."""


def type_label(node: dict) -> str:
    return TYPE_LABELS.get(node["type"], node["type"])


@dataclass(frozen=True)
class Column:
    key: str
    label: str
    value: Callable[[dict], str]
    """The cell's text for a node (what decides whether the column says anything)."""
    silent: Callable[[list[dict]], bool]
    """True when the column would say nothing for these nodes: it is then left out."""


def _constant(value: Callable[[dict], str]) -> Callable[[list[dict]], bool]:
    return lambda nodes: len(nodes) > 1 and len({value(node) for node in nodes}) == 1


STALE_MARK = "↻ "
"""Before the title of a unit a later card replaced (``superseded_by``): it is shown dimmed, after its replacement."""


TIME_SEPARATOR = " · "
"""Between a window's first line and when it was said, in the title the engine gives it."""


def fit_title(node: dict, width: int) -> str:
    """The title in ``width`` cells. A window's ends with when it was said (``… · 2026-03-09 01:34``): when it is
    cut, its first line gives way and the time stays, since two windows of one session differ mostly by it."""
    title = node["title"]
    head, separator, when = title.rpartition(TIME_SEPARATOR)
    if node.get("kind") != WINDOW_KIND or not separator or cell_len(title) <= width:
        return shorten(title, width)
    room = width - cell_len(separator + when)
    return shorten(head, room) + separator + when if room >= MIN_TITLE_WIDTH else shorten(title, width)


def _title(node: dict, width: int, muted) -> Text:
    """The title cell; a replaced unit's is dimmed and marked, so the current one reads first."""
    if node.get("superseded_by"):
        return Text(STALE_MARK + fit_title(node, width - len(STALE_MARK)), style=muted)
    return Text(fit_title(node, width))


def _matched(node: dict) -> str:
    return node["matched_rel"] or FOUND_BY_SEARCH


def _rel_sim(node: dict) -> str:
    return number(node["rel_similarity"])


OPTIONAL_COLUMNS = (
    Column("type", "Type", type_label, _constant(type_label)),
    Column("tier", "Tier", lambda node: node["tier"], _constant(lambda node: node["tier"])),
    Column("matched_rel", "Matched", _matched, lambda nodes: all(node["matched_rel"] is None for node in nodes)),
    Column("rel_similarity", "rel_sim", _rel_sim, lambda nodes: all(node["rel_similarity"] is None for node in nodes)),
)


def shown_columns(nodes: list[dict]) -> list[Column]:
    """The optional columns that say something for ``nodes``."""
    return [column for column in OPTIONAL_COLUMNS if not (nodes and column.silent(nodes))]


class ResultsTable(DataTable):
    """Rows keyed by card id, in the result's order; colours come from the TCSS component classes."""

    BINDINGS = [Binding("enter", "select_cursor", "Open")]
    COMPONENT_CLASSES = {
        "results--close", "results--near", "results--far",
        "results--concept", "results--pattern", "results--gotcha", "results--decision",
        "results--muted",
    }

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.nodes: list[dict] = []
        self.columns_shown: list[Column] = list(OPTIONAL_COLUMNS)
        self._drawn_width = 0

    def on_mount(self) -> None:
        self._add_columns(MIN_TITLE_WIDTH)
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def _add_columns(self, title_width: int) -> None:
        self.add_column("#", key="rank")
        self.add_column("Title", key="title", width=title_width)
        self.add_column("h   1 − h", key="h")
        for column in self.columns_shown:
            self.add_column(column.label, key=column.key)

    def show(self, nodes: list[dict], cursor_row: int = 0) -> None:
        self.nodes = list(nodes)
        self.columns_shown = shown_columns(self.nodes)
        self._redraw(cursor_row)

    def _bar_width(self) -> int:
        return NARROW_BAR if self.size.width < NARROW_TABLE else BAR_WIDTH

    def _redraw(self, cursor_row: int | None = None) -> None:
        if cursor_row is None:
            cursor_row = self.cursor_row
        self._drawn_width = self.size.width
        title_width = self._title_width()
        self.clear(columns=True)  # column widths only ever grow otherwise
        self._add_columns(title_width)
        muted = self.get_component_rich_style("results--muted", partial=True)
        bar_width = self._bar_width()
        for rank, node in enumerate(self.nodes, start=1):
            tone = self.get_component_rich_style(f"results--{closeness(node['h_distance'])}", partial=True)
            badge_class = f"results--{node['type']}"
            badge = (self.get_component_rich_style(badge_class, partial=True)
                     if badge_class in self.COMPONENT_CLASSES else muted)
            styles = {"type": badge, "matched_rel": muted if node["matched_rel"] is None else "",
                      "tier": "", "rel_similarity": ""}
            optional = [Text(f" {column.value(node)} " if column.key == "type" else column.value(node),
                             style=styles[column.key], justify="right" if column.key == "rel_similarity" else "left")
                        for column in self.columns_shown]
            self.add_row(
                Text(str(rank), justify="right"),
                _title(node, title_width, muted),
                Text(f"{number(node['h_distance'])} {h_bar(node['h_distance'], bar_width)}", style=tone),
                *optional,
                key=node["card_id"],
            )
        if self.nodes:
            self.move_cursor(row=min(max(cursor_row, 0), len(self.nodes) - 1), animate=False)

    def _title_width(self) -> int:
        """What is left of the table's width for titles, so every column stays visible."""
        nodes = self.nodes
        widths = [len(str(len(nodes))), max(cell_len("h   1 − h"), 5 + self._bar_width())]
        for column in self.columns_shown:
            extra = 2 if column.key == "type" else 0
            widths.append(max([cell_len(column.label)] + [cell_len(column.value(node)) + extra for node in nodes]))
        padding = 2 * self.cell_padding * (len(widths) + 1) + 2  # and a vertical scrollbar's worth
        return max(MIN_TITLE_WIDTH, self.size.width - sum(widths) - padding)

    def on_resize(self) -> None:
        if self.nodes and self.size.width != self._drawn_width:
            self._redraw()

    @property
    def selected(self) -> dict | None:
        """The node under the cursor."""
        if not self.nodes or not 0 <= self.cursor_row < len(self.nodes):
            return None
        return self.nodes[self.cursor_row]
