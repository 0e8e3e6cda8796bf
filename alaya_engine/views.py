"""Human-readable rendering of engine results for the CLI (seed section 4 output styles).

Only the CLI imports this; ``--json`` output never passes through here.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from .demo import DemoReport
    from .distill.pipeline import DistillReport
    from .recall.result import RecallResult
    from .schema_info import NodeTypesReport, RelationsReport
    from .trace import TraceReport
    from .domain import IngestReport, InitReport
    from .engine import StatusReport

DETAIL_LIMIT = 10
"""Above this many inputs, ingest prints a summary instead of a block per session."""


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on a terminal; nothing at all when piped or disabled."""
    if not (enabled and sys.stderr.isatty()):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=_stderr_console()) as progress:
        task = progress.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield advance


def _stderr_console():
    from rich.console import Console

    return Console(stderr=True)


def print_init(console: "Console", report: "InitReport") -> None:
    for step in report.steps:
        console.print(f"[green]✓[/] {step}")
    if report.created:
        console.print(f"  Graph engine: {report.graph_engine} · Embedding: {report.embedding} ({report.dimension} dims)")
        console.print("[green]✓[/] Alaya is ready!")


def print_ingest(console: "Console", report: "IngestReport", home: Path) -> None:
    accepted = [o for o in report.outcomes if o.status != "refused"]
    if len(report.outcomes) <= DETAIL_LIMIT:
        for outcome in accepted:
            console.print(f"📥 Ingesting session: {outcome.session_id}")
            console.print(f"   Duration: {outcome.duration_ms / 1000:.1f}s | Tokens: {outcome.tokens} | "
                          f"Channel: {outcome.channel}")
            if outcome.status == "unchanged":
                console.print(f"[dim]= Already stored, unchanged: {_short(outcome.path, home)}[/]")
            else:
                verb = "Replaced" if outcome.status == "replaced" else "Saved to"
                console.print(f"[green]✓[/] {verb} {_short(outcome.path, home)}")
                console.print("[green]✓[/] Created Session node in graph")
    parts = [f"{report.count(s)} {s}" for s in ("ingested", "replaced", "unchanged", "refused") if report.count(s)]
    console.print(f"Sessions: {', '.join(parts) or 'nothing to ingest'}")


def print_distill(console: "Console", report: "DistillReport") -> None:
    """Seed 4.3's output: each session's cards and links, then the totals."""
    from rich.markup import escape

    shown = [o for o in report.sessions if o.status != "up_to_date"]
    for outcome in shown if len(shown) <= DETAIL_LIMIT else []:
        console.print(f"🧠 Distilling {outcome.session_id}" + (" [dim](dry run)[/]" if report.dry_run else ""))
        if outcome.status == "failed":
            console.print(f"   [red]✗ failed:[/] {outcome.reason}")
            continue
        if not outcome.cards:
            console.print(f"   [dim]No cards: {outcome.reason or 'nothing reusable found'}[/]")
            continue
        if outcome.status == "resumed":
            console.print("   [dim]Completing an interrupted distillation from its L3 record[/]")
        console.print(f"   Found {len(outcome.cards)} cards:")
        for card in outcome.cards:
            console.print(f"     [green]✓[/] Card: {escape(card['title'])} \\[{card['type']}]")
        if outcome.links:
            console.print(f"   Created {len(outcome.links)} links:")
            for link in outcome.links:
                console.print(f"     [green]✓[/] \"{escape(link['from'])}\" {link['relation']} \"{escape(link['to'])}\"")
        if outcome.dropped_links:
            console.print(f"   [yellow]Dropped {outcome.dropped_links} links to unknown titles[/]")
    totals = report.to_json()
    verb = "Would create" if report.dry_run else "Created"
    console.print(f"[green]✓[/] Distillation complete: {totals['sessions_distilled']} sessions, "
                  f"{verb.lower()} {totals['cards_created']} cards and {totals['links_created']} links"
                  + (f", {totals['sessions_skipped']} skipped" if totals["sessions_skipped"] else "")
                  + (f", [red]{totals['sessions_failed']} failed[/]" if totals["sessions_failed"] else ""))


PREVIEW_CHARS = 160


def print_recall(console: "Console", result: "RecallResult") -> None:
    """Seed 4.4's human output: ranked cards with h, type and the relation that reached them."""
    from rich.markup import escape

    query = result.query
    parts = [f"concepts={json.dumps(query['concepts'], ensure_ascii=False)}"] if query["concepts"] else []
    if query["relations"]:
        parts.append(f"relations={json.dumps(query['relations'])}")
    if query["from_nodes"]:
        parts.append(f"from_nodes={json.dumps(query['from_nodes'])}")
    parts.append(f"depth={query['depth']}")
    console.print(f"🔍 Recalling: {escape(' '.join(parts))}\n")
    if not result.nodes:
        console.print(f"[yellow]{escape(result.reason or 'nothing found')}[/]")
        return
    for rank, node in enumerate(result.nodes, start=1):
        console.print(f"[bold][{rank}] {escape(node.title)}[/] (h={node.h_distance:.2f}) #{node.type} "
                      f"[dim]{node.tier} · {node.card_id}[/]")
        if node.matched_rel:
            console.print(f"    matched: {node.matched_rel} (rel_sim={node.rel_similarity:.2f}) from {node.via}")
        preview = " ".join(node.content.split())
        console.print(f"    [dim]{escape(preview[:PREVIEW_CHARS])}{'…' if len(preview) > PREVIEW_CHARS else ''}[/]\n")
    if result.explorable:
        console.print("Explorable paths:")
        for item in result.explorable:
            noun = "node" if item.count == 1 else "nodes"
            console.print(f"  - {item.rel} ({item.count} {noun}, rel_sim={item.rel_sim_to_query:.2f})")
    mark = "🎯 " if result.h_distance_avg < 0.3 else ""
    console.print(f"\nAverage h_distance: {result.h_distance_avg:.2f} ({mark}{result.verdict})")


def print_relations(console: "Console", report: "RelationsReport") -> None:
    console.print("📊 [bold]Relation Types[/]\n")
    console.print("Core Relations (built-in):")
    for usage in report.core:
        console.print(f"  {usage.name:<22}{usage.uses:>8,} uses")
    console.print("\nCustom Relations (emergent):")
    for usage in report.custom or []:
        hint = f"  [yellow]\\[{usage.hint}][/]" if usage.hint else ""
        console.print(f"  {usage.name:<22}{usage.uses:>8,} uses{hint}")
    if not report.custom:
        console.print("  [dim](none yet)[/]")
    console.print(f"\nTotal: {report.total:,} edges ({len(report.core)} core types + {len(report.custom)} custom types)\n")


def print_node_types(console: "Console", report: "NodeTypesReport") -> None:
    document = report.to_json()
    console.print("📊 [bold]Node Types[/]\n\nCards:")
    for kind, entry in document["cards"].items():
        console.print(f"  {kind:<10}{entry['count']:>7,} ({entry['percent']:.0f}%)")
    console.print(f"  {'Total:':<10}{document['total_cards']:>7,}\n\nSessions: {document['sessions']:,}")


def print_trace(console: "Console", report: "TraceReport") -> None:
    from rich.markup import escape

    card = report.card
    console.print(f"🔬 Tracing {card['id']}: \"{escape(card['title'])}\" #{card['type']}\n")
    console.print("=== Source Sessions ===")
    for session in report.sessions:
        console.print(f"- {session['id']} ({session['timestamp'][:16].replace('T', ' ')} UTC, {session['channel']})")
    console.print("\n=== Relevant Context ===")
    if not report.context_turns:
        console.print("[dim](no context turns recorded for this card)[/]")
    for turn in report.context_turns:
        console.print(f"[bold][Turn {turn['index']}] {turn['role'].capitalize()}:[/] {escape(turn['content'])}")
    console.print("\n=== Full Session ===")
    for session in report.sessions:
        console.print(f"[View at {escape(session['path'])}]")


def _short(path: str | None, home: Path) -> str:
    if path is None:
        return ""
    try:
        return str(Path("~") / Path(path).relative_to(Path.home()))
    except ValueError:
        return path


def print_status(console: "Console", report: "StatusReport") -> None:
    l3, l2, l1 = report.l3, report.l2, report.l1
    console.print("📊 [bold]Alaya Status[/]  " + f"[dim]{report.home}[/]")
    console.print("\n[bold]L3 Raw Storage[/]")
    console.print(f"  Sessions: {l3['sessions']:,} ({human_bytes(l3['bytes'])})")
    console.print(f"  Oldest: {l3['oldest'] or '-'}")
    console.print(f"  Newest: {l3['newest'] or '-'}")
    console.print(f"\n[bold]L2 Graph DB[/] ({l2['engine']}, {human_bytes(l2['bytes'])})")
    console.print(f"  Cards: {l2['cards']:,}")
    for card_type, count in l2["cards_by_type"].items():
        console.print(f"    - {card_type}: {count:,}")
    console.print(f"  Sessions: {l2['sessions']:,}")
    console.print(f"  Links: {l2['links']:,}")
    for relation, count in sorted(l2["links_by_relation"].items(), key=lambda item: -item[1]):
        if count:
            console.print(f"    - {relation}: {count:,}")
    console.print(f"\n[bold]L1 Embedding DB[/] ({l1['embedding']['name']}, {l1['embedding']['dimension']} dims, "
                  f"{human_bytes(l1['bytes'])})")
    console.print(f"  Card vectors: {l1['cards']:,}")
    for tier, count in l1["by_tier"].items():
        console.print(f"    - {tier}: {count:,}")
    console.print(f"  Relation embeddings: {l1['relations']:,}")


def print_demo(console: "Console", report: "DemoReport") -> None:
    console.print(f"🌱 [bold]Alaya demo[/] at {report.home}")
    print_init(console, report.init)
    print_ingest(console, report.ingest, Path(report.home))
    print_distill(console, report.distill)
    console.print()
    print_status(console, report.status)
    console.print(f"\nTry: alaya --home {report.home} status")


def human_bytes(count: int) -> str:
    size = float(count)
    for unit in ("B", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "B" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{size:.1f} GB"
