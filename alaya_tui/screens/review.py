"""The review screen: introspect's pending suggestions, their evidence, and the decisions on them.

The list is ``review.list`` (pending); the evidence of the selected suggestion comes from the ``card`` call for card
pairs and from the suggestion itself for relations. Approve and reject are ``review.approve`` / ``review.reject``,
one suggestion per call, exactly what ``alaya review approve ID`` does; the result shows at once (an approved card
merge opens the merged card). Introspect runs here too, step by step (see :mod:`alaya_tui.introspect_job`).
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Button, DataTable, Footer, Header, Static
from textual.worker import get_current_worker

from alaya_engine.foundations.errors import AlayaError
from alaya_engine.introspect.suggestions import CARD_KINDS
from alaya_engine.server.backend import Backend

from ..errors import call_or_report, describe
from ..introspect_job import IntrospectRun, run_introspect, run_summary
from ..widgets.introspect_progress import IntrospectProgress
from ..widgets.suggestion_evidence import SuggestionEvidence, effect
from ..widgets.suggestion_table import KIND_LABELS, SuggestionTable, order
from .card import CardScreen
from .dialogs import ConfirmDialog, IntrospectDialog
from .unseen import lay_out_unseen

REVIEW_HELP = """\
# Review

Introspect's **consolidate** and **supersede** steps propose; you decide. The list holds the pending suggestions,
by kind: card merges, `SIMILAR_TO` links, contradictions (two sources that disagree), relation merges, promotions
and splits. The pane below shows the selected one's
evidence — both cards side by side with their similarity, or both relations with their uses — and what approving
it does. Every decision is one `alaya review approve|reject ID`; a rejected suggestion is never proposed again.

An approved card merge opens the merged card (Escape comes back here). Approving a promotion gives the relation a
table of its own and moves its edges there. A refusal (a card merged away meanwhile, say) shows as a notification
and the suggestion stays pending.

`u` undoes the last decision when it changed nothing in the store (a rejection, or an approved split); an
approved merge, link or promotion changed cards and edges and stays.

`i` runs introspect (choose the steps; forgetting only when you tick it) with a progress bar. Cancel stops it
**between** steps: the step in progress always finishes, because the engine cannot interrupt one.
"""


TITLED_ROWS = 200
"""How many card suggestions of the list get their titles filled in the background."""


def decision_text(item: dict, titles: dict[str, str]) -> str:
    """A decided suggestion, from the ``decided`` document's entry: what changed (cards named by their titles),
    then the engine's next step."""
    label = KIND_LABELS.get(item["kind"], item["kind"])
    if item.get("already"):
        return f"{label} {item['id']} was already {item['status']}"
    mark = "✗" if item["status"] == "rejected" else "✓"
    changed = item["changed"]
    for card_id, title in titles.items():
        changed = changed.replace(card_id, f"“{title}”")
    return f"{mark} {label}: {changed}\nnext: {item['next']}"


class ReviewScreen(Screen):
    HELP = REVIEW_HELP
    BINDINGS = [
        Binding("a", "approve", "Approve"),
        Binding("r", "reject", "Reject"),
        Binding("n", "skip", "Skip", show=False),
        Binding("A", "approve_kind", "All", key_display="A"),
        Binding("u", "undo", "Undo"),
        Binding("i", "introspect", "Introspect"),
        Binding("c", "cancel_introspect", "Cancel"),
        Binding("R", "reload", "Reload", show=False, key_display="R"),
        Binding("escape", "app.back_mode", "Back", show=False),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        self.sub_title = "Review"
        self.suggestions: list[dict] = []
        """The pending suggestions, as ``review.list`` returned them."""
        self.titles: dict[str, str] = {}
        """Card id → title, for the list's subjects."""
        self.introspecting = False
        self.deciding = False
        self._stop_requested = False
        self._evidence_for: str | None = None
        """The id of the suggestion whose evidence is shown or on its way."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield SuggestionTable(id="suggestions")
        yield SuggestionEvidence(id="evidence")
        yield IntrospectProgress(id="introspect-progress")
        yield Static("", id="review-message", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.table.border_title = "Pending"
        self.evidence.border_title = "Evidence"
        self.evidence.show_message("loading…")
        self.query_one("#introspect-progress", IntrospectProgress).display = False
        self.table.focus()

    def on_screen_resume(self) -> None:
        self.action_reload()

    @property
    def table(self) -> SuggestionTable:
        return self.query_one("#suggestions", SuggestionTable)

    @property
    def evidence(self) -> SuggestionEvidence:
        return self.query_one("#evidence", SuggestionEvidence)

    # The list ---------------------------------------------------------------------------------------------------

    def action_reload(self) -> None:
        self.load_list()

    @work(thread=True, exclusive=True, group="review-list", exit_on_error=False)
    def load_list(self) -> None:
        document = call_or_report(self, "review.list", {"status": "pending"}, self._report)
        if document is not None:
            self.app.call_from_thread(self._show_list, document["suggestions"])

    def _show_list(self, suggestions: list[dict]) -> None:
        self.suggestions = suggestions
        table = self.table
        table.show(suggestions, self.titles)
        table.border_title = f"Pending · {len(suggestions)}"
        self.sub_title = f"Review · {len(suggestions)} pending"
        if not suggestions:
            self._evidence_for = None
            self.evidence.show_message("Nothing to review. i runs introspect; its consolidate step proposes "
                                       "merges and links.")
        else:
            self._show_selected()
        untitled = [s for s in order(suggestions)[:TITLED_ROWS]
                    if s["kind"] in CARD_KINDS and any(subject not in self.titles for subject in s["subjects"])]
        if untitled:
            self.load_titles(untitled)
        lay_out_unseen(self)

    @work(thread=True, exclusive=True, group="review-titles", exit_on_error=False)
    def load_titles(self, missing: list[dict]) -> None:
        """The cards' titles, one ``review.show`` per card suggestion, shown as they arrive (in batches).

        Only the first rows are filled (a selected row always gets its titles with its evidence), so a queue of
        thousands never keeps the store busy for minutes.
        """
        worker = get_current_worker()
        found: dict[str, str] = {}
        for position, suggestion in enumerate(missing, start=1):
            if worker.is_cancelled:
                return
            try:
                shown = self.backend.call("review.show", {"id": suggestion["id"]})
            except AlayaError:
                continue  # decided or gone meanwhile: the next reload drops it
            except Exception as error:  # noqa: BLE001 - the store is unreachable: say so once, stop asking
                self.app.call_from_thread(self._report, describe(error))
                return
            found.update({card["id"]: card["title"] for card in shown.get("cards", [])})
            if position % 20 == 0 or position == len(missing):
                self.app.call_from_thread(self._add_titles, dict(found))

    def _add_titles(self, found: dict[str, str]) -> None:
        self.titles.update(found)
        self.table.set_titles(self.titles)
        lay_out_unseen(self)

    # The evidence -----------------------------------------------------------------------------------------------

    @on(DataTable.RowHighlighted, "#suggestions")
    def _highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._show_selected()

    def _show_selected(self) -> None:
        suggestion = self.table.selected
        if suggestion is not None and suggestion["id"] != self._evidence_for:
            self._evidence_for = suggestion["id"]
            self.load_evidence(suggestion)

    @work(thread=True, exclusive=True, group="review-evidence", exit_on_error=False)
    def load_evidence(self, suggestion: dict) -> None:
        worker = get_current_worker()
        cards: list[dict | None] = []
        merged = None
        if suggestion["kind"] == "merge_cards":
            shown = call_or_report(self, "review.show", {"id": suggestion["id"]}, self._report)
            merged = shown.get("merged") if shown else None
        if suggestion["kind"] in CARD_KINDS:
            for card_id in suggestion["subjects"]:
                if worker.is_cancelled:
                    return
                try:
                    cards.append(self.backend.call("card", {"card_id": card_id}))
                except Exception as error:  # noqa: BLE001 - a card gone is evidence; anything else is reported
                    if not (isinstance(error, AlayaError) and error.code == "unknown_card"):
                        self.app.call_from_thread(self._report, describe(error))
                        return
                    cards.append(None)
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_evidence, suggestion, cards, merged)

    async def _show_evidence(self, suggestion: dict, cards: list[dict | None], merged: dict | None) -> None:
        if suggestion["id"] != self._evidence_for:
            return
        known = {subject: document["card"]["title"] for subject, document in zip(suggestion["subjects"], cards)
                 if document}
        if any(self.titles.get(subject) != title for subject, title in known.items()):
            self._add_titles(known)
        await self.evidence.show(suggestion, cards, merged)
        lay_out_unseen(self)

    # Decisions --------------------------------------------------------------------------------------------------

    def action_approve(self) -> None:
        self._decide_selected(approve=True)

    def action_reject(self) -> None:
        self._decide_selected(approve=False)

    def action_skip(self) -> None:
        """Leave the selected suggestion pending and move on to the next (wrapping around)."""
        if self.suggestions:
            self.table.move_cursor(row=(self.table.cursor_row + 1) % len(self.suggestions), animate=False)

    def _decide_selected(self, approve: bool) -> None:
        suggestion = self.table.selected
        if suggestion is not None:
            self._decide([suggestion], approve)

    def action_approve_kind(self) -> None:
        suggestion = self.table.selected
        if suggestion is None:
            return
        kind = suggestion["kind"]
        chosen = [s for s in self.table.suggestions if s["kind"] == kind]
        noun = "suggestion" if len(chosen) == 1 else "suggestions"
        self.app.push_screen(
            ConfirmDialog(f"Approve all {len(chosen)} pending {KIND_LABELS.get(kind, kind)} {noun}?",
                          effect(suggestion) + " Each is applied on its own, in list order.", "Approve all"),
            lambda confirmed: self._decide(chosen, approve=True) if confirmed else None)

    def _decide(self, suggestions: list[dict], approve: bool) -> None:
        if self.deciding:
            self.notify("Still applying the previous decision", severity="warning")
            return
        self.deciding = True
        verb = "Approving" if approve else "Rejecting"
        self.show_message(f"{verb} {len(suggestions)} {'suggestion' if len(suggestions) == 1 else 'suggestions'}…")
        self.apply_decisions(suggestions, approve)

    @work(thread=True, group="review-decide", exit_on_error=False)
    def apply_decisions(self, suggestions: list[dict], approve: bool) -> None:
        """One call per suggestion, so one refusal (a promotion, a card merged meanwhile) never stops the rest."""
        method = "review.approve" if approve else "review.reject"
        decided: list[dict] = []
        failures: list[str] = []
        for position, suggestion in enumerate(suggestions, start=1):
            try:
                decided += self.backend.call(method, {"ids": [suggestion["id"]]})["decided"]
            except Exception as error:  # noqa: BLE001 - each failure is reported, none stops the others
                failures.append(describe(error))
            if len(suggestions) > 1:
                self.app.call_from_thread(self.show_message, f"{position}/{len(suggestions)} decided…")
        self.app.call_from_thread(self._decided, decided, failures)

    def _decided(self, decided: list[dict], failures: list[str]) -> None:
        self.deciding = False
        for message in dict.fromkeys(failures):
            self.notify(message, severity="error", timeout=10)
        lines = [decision_text(item, self.titles) for item in decided]
        if len(lines) > 3:
            lines = [*lines[:2], f"… and {len(lines) - 2} more"]
        if lines:
            self.notify("\n".join(lines), title="Review")
        self.show_message(lines[0].replace("\n", " · ") if len(decided) == 1
                          else f"{len(decided)} decided, {len(failures)} refused")
        if decided:
            self.app.store_changed_signal.publish("review")
        self.load_list()
        if len(decided) == 1 and decided[0]["kind"] == "merge_cards" and decided[0]["status"] == "approved":
            self.app.push_screen(CardScreen(self.backend, decided[0]["kept"]))

    def action_undo(self) -> None:
        """The last decision back to pending, when the engine can take it back (it says why when it cannot)."""
        if self.deciding:
            self.notify("Still applying the previous decision", severity="warning")
            return
        self.undo_last()

    @work(thread=True, group="review-decide", exit_on_error=False)
    def undo_last(self) -> None:
        document = call_or_report(self, "review.undo", {}, self._report)
        if document is not None:
            self.app.call_from_thread(self._undone, document["undone"])

    def _undone(self, item: dict) -> None:
        text = f"↶ {KIND_LABELS.get(item['kind'], item['kind'])} {item['id']} is pending again (it was {item['was']})"
        self.notify(text, title="Review")
        self.show_message(text)
        self.app.store_changed_signal.publish("review")
        self.load_list()

    # Introspect -------------------------------------------------------------------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "cancel_introspect":
            return self.introspecting
        if action == "introspect":
            return not self.introspecting
        return True

    def action_introspect(self) -> None:
        if not self.introspecting:
            self.app.push_screen(IntrospectDialog(), self._start_introspect)

    def _start_introspect(self, steps: list[str] | None) -> None:
        if not steps:
            return
        self.introspecting, self._stop_requested = True, False
        self.refresh_bindings()
        progress = self.query_one("#introspect-progress", IntrospectProgress)
        progress.start(steps)
        self.run_steps(steps, progress)

    @work(thread=True, group="review-introspect", exit_on_error=False)
    def run_steps(self, steps: list[str], progress: IntrospectProgress) -> None:
        try:
            run = run_introspect(
                self.backend, steps,
                on_step=lambda index, step: self.app.call_from_thread(progress.step, index, step),
                on_progress=lambda done, total: self.app.call_from_thread(progress.advance, done, total),
                should_stop=lambda: self._stop_requested)
        except Exception as error:  # noqa: BLE001 - shown as a notification, never a traceback
            self.app.call_from_thread(self._introspected, None, describe(error))
            return
        self.app.call_from_thread(self._introspected, run, None)

    @on(Button.Pressed, "#introspect-cancel")
    def action_cancel_introspect(self) -> None:
        if self.introspecting and not self._stop_requested:
            self._stop_requested = True
            self.query_one("#introspect-progress", IntrospectProgress).cancelling()

    def _introspected(self, run: IntrospectRun | None, error: str | None) -> None:
        self.introspecting = False
        self.refresh_bindings()
        self.query_one("#introspect-progress", IntrospectProgress).finish()
        if error is not None:
            self.notify(error, title="Introspect failed", severity="error", timeout=10)
            self.show_message(error)
        else:
            self.notify(run_summary(run), title="Introspect cancelled" if run.cancelled else "Introspect done",
                        severity="warning" if run.cancelled else "information", timeout=8)
            self.show_message(run_summary(run).replace("\n", " · "))
        self.app.store_changed_signal.publish("introspect")
        self.load_list()

    # Messages ---------------------------------------------------------------------------------------------------

    def _report(self, message: str) -> None:
        self.notify(message, severity="error", timeout=10)
        self.show_message(message)

    def show_message(self, text: str) -> None:
        self.query_one("#review-message", Static).update(text)
