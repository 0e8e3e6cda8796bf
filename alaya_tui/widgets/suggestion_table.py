"""The pending introspect suggestions, one row each: kind, what it is about, and its evidence in brief."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import DataTable

from alaya_engine.introspect.suggestions import KINDS

from ..formatting import shorten

KIND_LABELS = {
    "merge_cards": "merge cards",
    "similar_to": "SIMILAR_TO",
    "contradicts": "CONTRADICTS",
    "merge_relations": "merge relations",
    "promote_relation": "promote relation",
    "split_relation": "split relation",
}
MIN_SUBJECTS_WIDTH = 30


def strength(suggestion: dict) -> float:
    """Similarity for a pair, uses for a single relation: what ranks a suggestion among its kind."""
    evidence = suggestion["evidence"]
    if "similarity" in evidence:
        return float(evidence["similarity"])
    return float(evidence["uses"]) if isinstance(evidence.get("uses"), int) else 0.0


def order(suggestions: list[dict]) -> list[dict]:
    """By kind (in the engine's order), the strongest first, so the rows of one kind sit together."""
    return sorted(suggestions, key=lambda s: (KINDS.index(s["kind"]) if s["kind"] in KINDS else len(KINDS),
                                              -strength(s), s["id"]))


def brief_evidence(suggestion: dict) -> str:
    if "similarity" in suggestion["evidence"]:
        return f"sim {strength(suggestion):.2f}"
    uses = strength(suggestion)
    return f"{uses:,.0f} {'use' if uses == 1 else 'uses'}"


def subjects_text(suggestion: dict, titles: dict[str, str]) -> str:
    """Card titles where known (ids until they are), relation names as they are, joined by ↔."""
    return " ↔ ".join(titles.get(subject, subject) for subject in suggestion["subjects"])


class SuggestionTable(DataTable):
    """Rows keyed by suggestion id, in :func:`order`."""

    COMPONENT_CLASSES = {f"suggestion-table--{kind}" for kind in KINDS} | {"suggestion-table--muted"}

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.suggestions: list[dict] = []
        self.titles: dict[str, str] = {}
        self._drawn_width = 0

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.call_after_refresh(self._redraw))

    def show(self, suggestions: list[dict], titles: dict[str, str], cursor_row: int | None = None) -> None:
        self.suggestions = order(suggestions)
        self.titles = titles
        self._redraw(cursor_row)

    def _redraw(self, cursor_row: int | None = None) -> None:
        if cursor_row is None:
            cursor_row = self.cursor_row
        self._drawn_width = self.size.width
        kind, evidence = self._widths()
        width = self._subjects_width(kind, evidence)
        self.clear(columns=True)
        self.add_column("Kind", key="kind", width=kind)
        self.add_column("Subjects", key="subjects", width=width)
        self.add_column("Evidence", key="evidence", width=evidence)
        for suggestion in self.suggestions:
            kind = suggestion["kind"]
            style = self.get_component_rich_style(f"suggestion-table--{kind}", partial=True) \
                if f"suggestion-table--{kind}" in self.COMPONENT_CLASSES else None
            self.add_row(Text(KIND_LABELS.get(kind, kind), style=style or ""),
                         Text(shorten(subjects_text(suggestion, self.titles), width)),
                         Text(brief_evidence(suggestion), justify="right"), key=suggestion["id"])
        if self.suggestions:
            self.move_cursor(row=min(max(cursor_row, 0), len(self.suggestions) - 1), animate=False)

    def _widths(self) -> tuple[int, int]:
        """The Kind and Evidence columns' widths, given rather than left to the table to measure from its rows:
        once in a full run of the tests the Kind column was drawn four cells wide ("merg", "SIMI")."""
        kind = max([len("Kind")] + [len(KIND_LABELS.get(s["kind"], s["kind"])) for s in self.suggestions])
        evidence = max([len("Evidence")] + [len(brief_evidence(s)) for s in self.suggestions])
        return kind, evidence

    def _subjects_width(self, kind: int, evidence: int) -> int:
        padding = 2 * self.cell_padding * 3 + 2  # and a vertical scrollbar's worth
        return max(MIN_SUBJECTS_WIDTH, self.size.width - kind - evidence - padding)

    def on_resize(self) -> None:
        if self.suggestions and self.size.width != self._drawn_width:
            self._redraw()

    def set_titles(self, titles: dict[str, str]) -> None:
        """Card titles arrived: rewrite the subjects cells in place (the cursor does not move)."""
        self.titles = titles
        width = self.columns["subjects"].width
        for suggestion in self.suggestions:
            self.update_cell(suggestion["id"], "subjects", Text(shorten(subjects_text(suggestion, titles), width)))

    @property
    def selected(self) -> dict | None:
        if not self.suggestions or not 0 <= self.cursor_row < len(self.suggestions):
            return None
        return self.suggestions[self.cursor_row]
