"""Small modal dialogs: a yes/no confirmation, and the choice of introspect steps."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, SelectionList, Static

from alaya_engine.introspect.run import INTROSPECT_STEPS

from ..introspect_job import STEP_PURPOSES


class ConfirmDialog(ModalScreen[bool]):
    """``y`` / the confirm button dismisses with True; ``n``, Escape or Cancel with False."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(self, question: str, detail: str, confirm: str):
        super().__init__()
        self.question, self.detail, self.confirm = question, detail, confirm

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static(self.question, classes="dialog-question", markup=False)
            yield Static(self.detail, classes="dialog-detail", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.confirm} (y)", id="confirm", variant="warning")
                yield Button("Cancel (n)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(".dialog").border_title = "Confirm"
        self.query_one("#cancel", Button).focus()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm")

    def action_answer(self, answer: bool) -> None:
        self.dismiss(answer)


DEFAULT_STEPS = tuple(step for step in INTROSPECT_STEPS if step != "forget")
"""Ticked when the dialog opens: forgetting deletes cards, so a person opts in to it."""


class IntrospectDialog(ModalScreen[list[str] | None]):
    """Which steps to run (all but forget, by default); dismisses with them, or None when cancelled."""

    BINDINGS = [
        Binding("r", "run", "Run"),
        Binding("escape", "cancel", "Cancel"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog"):
            yield Static("Run introspect: the steps run one after another, in this order.",
                         classes="dialog-question", markup=False)
            yield SelectionList[str](*[(f"{step} — {STEP_PURPOSES[step]}", step, step in DEFAULT_STEPS)
                                       for step in INTROSPECT_STEPS], id="introspect-steps")
            yield Static("Space toggles a step · r runs · Escape cancels. Cancelling a run stops it between steps.",
                         classes="dialog-detail", markup=False)
            with Horizontal(classes="dialog-buttons"):
                yield Button("Run (r)", id="run", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        self.query_one(".dialog").border_title = "Introspect"
        self.query_one("#introspect-steps", SelectionList).focus()

    @on(Button.Pressed, "#run")
    def action_run(self) -> None:
        steps = list(self.query_one("#introspect-steps", SelectionList).selected)
        if not steps:
            self.notify("Choose at least one step (Space toggles)", severity="warning")
            return
        self.dismiss(steps)

    @on(Button.Pressed, "#cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)
