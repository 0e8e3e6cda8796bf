"""Human-readable rendering of engine results for the CLI (seed section 4 output styles).

Only the CLI imports this; ``--json`` output never passes through here.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from .demo import DemoReport
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
