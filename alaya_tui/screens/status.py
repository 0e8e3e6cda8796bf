"""The status screen: the three layers' figures from the ``status`` call, as ``alaya status --json`` prints them."""

from __future__ import annotations

import json
from pathlib import Path

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from alaya_engine.foundations.human import human_bytes, last_introspect_text
from alaya_engine.foundations.paths import Layout
from alaya_engine.server.backend import Backend, RemoteBackend

from ..errors import call_or_report
from ..widgets.layer_panel import LayerPanel
from .unseen import lay_out_unseen


def layer_rows(report: dict) -> dict[str, list[tuple[str, str]]]:
    """The rows of each panel; kept apart from widgets so tests can compare them with the JSON."""
    l3, l2, l1 = report["l3"], report["l2"], report["l1"]
    return {
        "l3": [("Sessions", f"{l3['sessions']:,}"), ("Size", human_bytes(l3["bytes"])),
               ("Oldest", l3["oldest"] or "-"), ("Newest", l3["newest"] or "-")],
        "l2": [("Engine", l2["engine"]), ("Cards", f"{l2['cards']:,}"),
               *[(f"  {kind}", f"{count:,}") for kind, count in l2["cards_by_type"].items()],
               ("Sessions", f"{l2['sessions']:,}"), ("Links", f"{l2['links']:,}"), ("Size", human_bytes(l2["bytes"]))],
        "l1": vector_rows(l1),
    }


def vector_rows(l1: dict) -> list[tuple[str, str]]:
    """Card vectors as the HOT and WARM cards that keep one, COLD cards apart (they keep none), then the windows
    of raw turns: every count adds up to the one above it, and HOT + WARM + COLD to the graph's cards."""
    by_tier = l1["by_tier"]
    rows = [("Card vectors", f"{l1['cards']:,}"),
            *[(f"  {tier}", f"{by_tier.get(tier, 0):,}") for tier in ("HOT", "WARM")],
            ("COLD cards", f"{by_tier.get('COLD', 0):,}")]
    windows = l1.get("windows")
    if windows is not None:
        rows.append(("Window vectors", f"{windows['windows'] - windows['pending']:,}"))
        if windows["pending"]:
            rows.append(("  waiting to embed", f"{windows['pending']:,}"))
    return [*rows, ("Relation vectors", f"{l1['relations']:,}"), ("Size", human_bytes(l1["bytes"]))]


def state_lines(report: dict, served_by: str) -> list[str]:
    """Who answers (the owner server or this process), what waits for review, when introspect last ran."""
    by_tier = report["l1"]["by_tier"]
    lines = [f"Cards: {report['l2']['cards']:,} = {report['l1']['cards']:,} with a vector (HOT {by_tier['HOT']:,}, "
             f"WARM {by_tier['WARM']:,}) + {by_tier['COLD']:,} COLD without one", f"Served by {served_by}"]
    review = report.get("review")
    if review is not None:
        pending = review["pending"]
        lines.append(f"Review: {pending:,} {'suggestion' if pending == 1 else 'suggestions'} pending"
                     + (" · 4 opens Review" if pending else ""))
    if "introspect" in report:
        last = report["introspect"]
        lines.append("Last introspect: never (i on the Review screen runs it)" if last is None else
                     f"Last introspect: {last_introspect_text(last)}")
    return lines


def served_by(backend: Backend) -> str:
    """The owner server (with its process id when its pid file says) or this process (``--no-server``)."""
    if isinstance(backend, RemoteBackend):
        try:
            pid = json.loads(Layout(Path(backend.home)).server_pid.read_text(encoding="utf-8"))["pid"]
        except (OSError, ValueError, KeyError, TypeError):
            return "the owner server"
        return f"the owner server (process {pid})"
    return "this process (no server)"


def model_line(report: dict) -> str:
    """The embedding model on a line of its own, where its full name fits even at 80 columns."""
    embedding = report["l1"]["embedding"]
    return f"Embedding model: {embedding['name']} ({embedding['dimension']} dimensions)"


def sharing_lines(report: dict) -> list[str]:
    """One line per git remote (``alaya remote add``), as ``alaya status`` shows them; none without remotes."""
    sharing = report.get("sync") or {}
    return [f"Shared through {remote['name']} ({remote['url']}) as {sharing['machine']}: "
            f"{remote['sessions_ahead']:,} sessions stored since the last push, "
            f"{'?' if remote['pushes_behind'] is None else format(remote['pushes_behind'], ',')} pushes of other "
            "machines fetched and not pulled" for remote in sharing.get("remotes", [])]


STATUS_HELP = """\
# Status

The three layers of the store, from the `status` call (what `alaya status --json` prints):
L3 raw sessions, the L2 graph, the L1 vectors and their tiers, and the git remotes the memory is shared through.
Card vectors are kept by HOT and WARM cards; COLD cards keep none (they are still found through the graph and
full-text search), so HOT + WARM + COLD is the graph's card count. Below: who answers (the owner server or this
process), the suggestions waiting for review and when introspect last ran.
The figures reload each time the screen is shown, and with `r`. The tiers screen (`3`) shows the memory's heat:
tiers, temperatures, relation usage.
"""


class StatusScreen(Screen):
    HELP = STATUS_HELP
    BINDINGS = [
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "app.back_mode", "Back", show=False),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static(str(self.backend.home), id="home-path")
        with Horizontal(id="layers"):
            yield LayerPanel("L3 raw", id="l3")
            yield LayerPanel("L2 graph", id="l2")
            yield LayerPanel("L1 vectors", id="l1")
        yield Static("", id="status-model", markup=False)
        yield Static("", id="status-state", markup=False)
        yield Static("", id="status-error", markup=False)
        yield Footer()

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load_status()

    @work(thread=True, exclusive=True, exit_on_error=False)
    def load_status(self) -> None:
        """The request runs in a worker thread, never on the event loop."""
        report = call_or_report(self, "status", None, self.query_one("#status-error", Static).update)
        if report is not None:
            self.app.call_from_thread(self._show, report, served_by(self.backend))

    def _show(self, report: dict, server: str) -> None:
        for layer, rows in layer_rows(report).items():
            self.query_one(f"#{layer}", LayerPanel).show(rows)
        self.query_one("#status-model", Static).update("\n".join([model_line(report), *sharing_lines(report)]))
        self.query_one("#status-state", Static).update("\n".join(state_lines(report, server)))
        self.query_one("#status-error", Static).update("")
        lay_out_unseen(self)
