"""The result's h_distance_avg and verdict, coloured as the verdict reads it: by the best unit's h (classes
``-close``, ``-near``, ``-far``)."""

from __future__ import annotations

from textual.widgets import Static

from ..formatting import closeness, count_units, number


class VerdictLine(Static):
    def __init__(self, *, id: str | None = None):
        super().__init__("", id=id, markup=False)
        self.average: str = ""
        """The average as displayed (two decimals, like ``alaya recall``); empty before the first result."""

    def show(self, result: dict | None) -> None:
        self.remove_class("-close", "-near", "-far", "-empty")
        if result is None:
            self.average = ""
            self.update("")
            return
        average = result.get("h_distance_avg")
        self.average = number(average)
        if average is None:
            self.add_class("-empty")
            self.update(f"{result.get('verdict') or 'nothing found'}: {result.get('reason') or ''}".rstrip(": "))
            return
        self.add_class(f"-{closeness(result.get('h_distance_best'))}")
        mark = "🎯 " if result["verdict"] == "close to target" else ""
        self.update(f"Average h_distance {self.average} ({mark}{result['verdict']}) · "
                    f"{count_units(result.get('nodes', []))}")
