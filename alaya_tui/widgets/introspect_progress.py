"""The running introspect: which step, how far (the engine reports progress within distill), and a Cancel button."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Button, ProgressBar, Static


class IntrospectProgress(Horizontal):
    """Hidden until :meth:`start`; the bar counts steps, a step's own progress moves it in between."""

    def __init__(self, *, id: str | None = None):
        super().__init__(id=id)
        self.steps: list[str] = []
        self.index = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="introspect-label", markup=False)
        yield ProgressBar(id="introspect-bar", show_eta=False)
        yield Button("Cancel", id="introspect-cancel", variant="warning", compact=True)

    def start(self, steps: list[str]) -> None:
        self.steps, self.index = list(steps), 0
        self.query_one("#introspect-bar", ProgressBar).update(total=len(steps), progress=0)
        self.query_one("#introspect-cancel", Button).disabled = False
        self._label("starting…")
        self.display = True

    def step(self, index: int, name: str) -> None:
        self.index = index
        self.query_one("#introspect-bar", ProgressBar).update(progress=index)
        self._label(name)

    def advance(self, done: int, total: int) -> None:
        """The engine's progress within the current step (e.g. sessions distilled)."""
        if total:
            self.query_one("#introspect-bar", ProgressBar).update(progress=self.index + done / total)
            self._label(f"{self.steps[self.index]} {done}/{total}")

    def cancelling(self) -> None:
        self.query_one("#introspect-cancel", Button).disabled = True
        self._label(f"{self.steps[self.index]} — cancelling: this step finishes first (a step cannot be "
                    "interrupted), the rest are skipped")

    def _label(self, text: str) -> None:
        self.query_one("#introspect-label", Static).update(
            f"Introspect · step {self.index + 1}/{len(self.steps)}: {text}")

    def finish(self) -> None:
        self.display = False
