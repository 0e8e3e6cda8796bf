"""The tiers screen: the memory's heat. Tier counts, the temperature histogram, relation usage, cards per type.

Built from two documents, ``status`` and ``schema`` with relations (what ``alaya status --json`` and
``alaya schema --relations --json`` print). The status screen keeps the layers' own figures (sizes, sessions,
model); this one is what introspect changes, so it reloads whenever the store changed (after introspect or a
review decision) and each time it is shown. Enter on a row opens the cards (or edges) behind it: a ``browse`` call
on its own screen.
"""

from __future__ import annotations

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Header, Static

from alaya_engine.foundations.human import human_bytes
from alaya_engine.server.backend import Backend

from ..errors import call_or_report
from ..widgets.bar_chart import BarChart, BarRow
from ..widgets.relation_usage import RelationUsage
from ..widgets.row_cursor import RowCursor
from .browse import BrowseScreen
from .unseen import lay_out_unseen

TIERS_HELP = """\
# Tiers

The memory's heat, from the `status` and `schema` calls (`alaya status --json`, `alaya schema --relations --json`).

- **Tiers**: cards per tier. HOT and WARM cards keep their vector resident in memory; COLD cards are archived
  without one (still reachable through the graph and full-text search).
- **Temperature**: cards per temperature band (HOT from 0.7, COLD below 0.3).
- **Relations**: edges per relation, the core ones first, then the custom ones with the schema's hints.
- **Cards per type**.

Beside them, the rules introspect assigns tiers by, with this store's settings: a card can be HOT below 0.7 (new,
or recalled often), and stays WARM below 0.3 until it has been untouched for the COLD delay.

Enter on a tier, a temperature band, a type or a relation lists its cards (or edges); `Tab` moves between the
panels. The screen reloads after introspect or a review decision, and each time it is shown.
"""


def rules_text(report: dict) -> str:
    """The tier rules in words, from the status document's ``tier_rules`` (the engine's thresholds)."""
    rules = report.get("tier_rules")
    if not rules:
        return ""
    last = report.get("introspect")
    when = f"as of introspect {last['at'][:16].replace('T', ' ')} UTC" if last else "no introspect yet"
    return (f"HOT: temperature ≥ {rules['hot_threshold']}, or created within {rules['new_card_days']} days, or "
            f"recalled > {rules['frequent_accesses']} times (at most {rules['hot_limit']:,}) · COLD: below "
            f"{rules['warm_threshold']} and untouched for {rules['cold_days']} days (8-bit vector) · WARM: the rest "
            f"(at most {rules['warm_limit']:,}) · "
            f"{when}")


def share(count: int, total: int) -> float:
    return count / total if total else 0.0


def tier_rows(report: dict) -> list[BarRow]:
    by_tier = report["l1"]["by_tier"]
    total = sum(by_tier.values())
    return [BarRow(tier, count, share(count, total), tier.lower()) for tier, count in by_tier.items()]


def temperature_rows(report: dict) -> list[BarRow]:
    return [BarRow(band["range"], band["count"], band["share"],
                   "hot" if band["low"] >= 0.7 else "warm" if band["low"] >= 0.3 else "cold")
            for band in report["temperature"]]


def type_rows(report: dict) -> list[BarRow]:
    by_type = report["l2"]["cards_by_type"]
    total = sum(by_type.values())
    return [BarRow(kind, count, share(count, total), kind) for kind, count in by_type.items()]


def summary_line(report: dict, relations: dict) -> str:
    resident = ", ".join(f"{tier} {human_bytes(size)}" for tier, size in report["l1"]["resident_bytes"].items())
    return (f"{report['l2']['cards']:,} cards · vectors in memory: {resident} · {relations['total_edges']:,} edges "
            f"over {relations['core_types']} core and {relations['custom_types']} custom relations")


class TiersScreen(Screen):
    HELP = TIERS_HELP
    AUTO_FOCUS = "#tier-chart"
    BINDINGS = [
        Binding("r", "refresh", "Refresh"),
        Binding("escape", "app.back_mode", "Back", show=False),
    ]

    def __init__(self, backend: Backend):
        super().__init__()
        self.backend = backend
        self.sub_title = "Tiers"
        self.report: dict | None = None
        """The ``status`` document shown."""
        self.relations: dict | None = None
        """The ``schema`` call's ``relations`` document shown."""

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("loading…", id="tiers-summary", markup=False)
        with Horizontal(id="tiers-charts"):
            yield BarChart("Tiers", id="tier-chart")
            yield BarChart("Temperature", id="temperature-chart")
            yield BarChart("Cards per type", id="type-chart")
        yield Static("", id="tier-rules", markup=False)
        with VerticalScroll(id="relations-scroll", can_focus=False):
            yield RelationUsage(id="relations")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#relations-scroll").border_title = "Relations"
        self.app.store_changed_signal.subscribe(self, lambda _change: self.action_refresh())

    def on_screen_resume(self) -> None:
        self.action_refresh()

    def action_refresh(self) -> None:
        self.load()

    @work(thread=True, exclusive=True, group="tiers", exit_on_error=False)
    def load(self) -> None:
        report = call_or_report(self, "status", None, self._failed)
        schema = call_or_report(self, "schema", {"relations": True}, self._failed) if report else None
        if schema is not None:
            self.app.call_from_thread(self._show, report, schema["relations"])

    def _show(self, report: dict, relations: dict) -> None:
        self.report, self.relations = report, relations
        self.query_one("#tiers-summary", Static).update(summary_line(report, relations))
        self.query_one("#tier-chart", BarChart).show(tier_rows(report))
        self.query_one("#temperature-chart", BarChart).show(temperature_rows(report))
        self.query_one("#type-chart", BarChart).show(type_rows(report))
        self.query_one("#relations", RelationUsage).show(relations)
        self.query_one("#relations-scroll").border_title = f"Relations · {relations['total_edges']:,} edges"
        self.query_one("#tier-rules", Static).update(rules_text(report))
        lay_out_unseen(self)

    @on(RowCursor.Chosen)
    def _chosen(self, event: RowCursor.Chosen) -> None:
        """Enter on a row: the cards of that tier, band or type, or the edges of that relation."""
        panel = event.panel
        if isinstance(panel, RelationUsage):
            chosen = {"relation": panel.selected}
        else:
            name = {"tier-chart": "tier", "temperature-chart": "band", "type-chart": "type"}[panel.id]
            chosen = {name: panel.rows[event.index].label}
        self.app.push_screen(BrowseScreen(self.backend, chosen))

    def _failed(self, message: str) -> None:
        self.query_one("#tiers-summary", Static).update(message)
        self.notify(message, severity="error")
