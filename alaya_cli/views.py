"""Human-readable rendering of the engine's JSON documents.

Every function takes the same document ``--json`` prints, so a person and an
agent always see one result. Only the CLI imports this module.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from alaya_engine.foundations.domain import Fact
from alaya_engine.foundations.human import human_bytes, last_introspect_text, plural, share_bar

from . import terminal

if TYPE_CHECKING:
    from rich.console import Console

DETAIL_LIMIT = 10
"""Above this many inputs, ingest and distill print a summary instead of a block per session."""
PREVIEW_CHARS = 160
PREVIEW_LINES = 3
"""Lines of a recall unit's content under its title, rendered as Markdown (the card screen's rendering)."""
PREVIEW_WIDTH = (40, 116)
"""The narrowest and widest a preview is drawn (a wide terminal still gets lines one can read at a glance)."""


@contextmanager
def progress_bar(label: str, enabled: bool = True) -> Iterator[Callable[[int, int], None] | None]:
    """A rich progress bar on a terminal; nothing at all when piped or disabled."""
    here = terminal.current()
    if not (enabled and here.stderr_is_tty()):
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    with Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                  transient=True, console=here.console(stderr=True)) as progress:
        task = progress.add_task(label, total=None)

        def advance(done: int, total: int) -> None:
            progress.update(task, completed=done, total=total)

        yield advance


def print_init(console: "Console", report: dict) -> None:
    for step in report["steps"]:
        console.print(f"[green]✓[/] {step}")
    if report["created"]:
        console.print(f"  Graph engine: {report['graph_engine']} · Embedding: {report['embedding']} "
                      f"({report['dimension']} dims)")
        console.print("[green]✓[/] Alaya is ready!")


def print_ingest(console: "Console", report: dict) -> None:
    files = report["files"]
    if len(files) <= DETAIL_LIMIT:
        for outcome in (o for o in files if o["status"] != "refused"):
            console.print(f"📥 Ingesting session: {outcome['session_id']}")
            console.print(f"   Duration: {outcome['duration_ms'] / 1000:.1f}s | Tokens: {outcome['tokens']} | "
                          f"Channel: {outcome['channel']}")
            if outcome["status"] == "unchanged":
                console.print(f"[dim]= Already stored, unchanged: {_short(outcome['path'])}[/]")
            else:
                verb = "Replaced" if outcome["status"] == "replaced" else "Saved to"
                console.print(f"[green]✓[/] {verb} {_short(outcome['path'])}")
                console.print("[green]✓[/] Created Session node in graph")
    parts = [f"{report[s]} {s}" for s in ("ingested", "replaced", "unchanged", "refused") if report[s]]
    console.print(f"Sessions: {', '.join(parts) or 'nothing to ingest'}")
    if report.get("distill"):
        print_distill(console, report["distill"])


def _short(path: str) -> str:
    from .terminal import current

    return current().shorten(path)


def print_distill(console: "Console", report: dict) -> None:
    """Distill's output: each session's cards and links (or, above :data:`DETAIL_LIMIT` sessions, only the
    skipped ones and why), then the totals. A dry run says what it would do, never that it did."""
    from rich.markup import escape

    dry_run = report["dry_run"]
    shown = [o for o in report["sessions"] if o["status"] != "up_to_date"]
    skipped = [o for o in shown if o["status"] in ("skipped", "would_skip")]
    for outcome in shown if len(shown) <= DETAIL_LIMIT else []:
        console.print(f"🧠 Distilling {outcome['session_id']}" + (" [dim](dry run)[/]" if dry_run else ""))
        if outcome["status"] == "failed":
            console.print(f"   [red]✗ failed:[/] {escape(outcome['reason'] or '')}")
            continue
        if not outcome["cards"]:
            console.print(f"   [dim]Skipped: {escape(outcome['reason'] or 'nothing reusable found')}[/]")
            continue
        if outcome["status"] == "resumed":
            console.print("   [dim]Completing an interrupted distillation from its L3 record[/]")
        console.print(f"   {'Would create' if dry_run else 'Found'} {plural(len(outcome['cards']), 'card')}:")
        for card in outcome["cards"]:
            console.print(f"     [green]✓[/] Card: {escape(card['title'])} \\[{card['type']}]")
        if outcome["links"]:
            console.print(f"   {'Would create' if dry_run else 'Created'} {plural(len(outcome['links']), 'link')}:")
            for link in outcome["links"]:
                console.print(f"     [green]✓[/] \"{escape(link['from'])}\" {link['relation']} "
                              f"\"{escape(link['to'])}\"")
        if outcome["dropped_links"]:
            console.print(f"   [yellow]Dropped {plural(outcome['dropped_links'], 'link')} to unknown titles[/]")
    if len(shown) > DETAIL_LIMIT:
        for outcome in skipped:
            console.print(f"   [dim]Skipped {outcome['session_id']}: "
                          f"{escape(outcome['reason'] or 'nothing reusable found')}[/]")
    failed = f", [red]{report['sessions_failed']} failed[/]" if report["sessions_failed"] else ""
    if dry_run:
        would = sum(1 for outcome in shown if outcome["status"] in ("would_distill", "resumed"))
        console.print(f"Dry run, nothing written: would distill {plural(would, 'session')} into "
                      f"{plural(report['cards_created'], 'card')} and {plural(report['links_created'], 'link')}"
                      + (f", {len(skipped)} skipped" if skipped else "") + failed)
        return
    console.print(f"[green]✓[/] Distillation complete: {plural(report['sessions_distilled'], 'session')}, "
                  f"created {plural(report['cards_created'], 'card')} and {plural(report['links_created'], 'link')}"
                  + (f", {report['sessions_skipped']} skipped" if report["sessions_skipped"] else "") + failed)


def print_introspect(console: "Console", report: dict) -> None:
    """Introspect's output, for the steps that ran."""
    from rich.markup import escape

    steps = report["steps"]
    dry_run = report["dry_run"]
    console.print("🧘 Starting introspection..." + (" [dim](dry run: nothing is written)[/]" if dry_run else "") + "\n")
    for number, (name, result) in enumerate(steps.items(), start=1):
        console.print(f"[{number}/{len(steps)}] {name.capitalize()}")
        if name == "distill":
            if dry_run:
                would = sum(1 for outcome in result["sessions"] if outcome["status"] == "would_distill")
                console.print(f"   Would distill {plural(would, 'new session')}")
                console.print(f"   Would create {plural(result['cards_created'], 'card')}, "
                              f"{plural(result['links_created'], 'link')}")
            else:
                console.print(f"   Processed {plural(result['sessions_distilled'], 'new session')}")
                console.print(f"   Created {plural(result['cards_created'], 'card')}, "
                              f"{plural(result['links_created'], 'link')}")
            for outcome in result["sessions"]:
                if outcome["status"] in ("skipped", "would_skip"):
                    console.print(f"   [dim]Skipped {outcome['session_id']}: {escape(outcome['reason'] or '')}[/]")
        elif name == "consolidate":
            new = result["new"]
            console.print(f"   {plural(new.get('merge_cards', 0), 'duplicate pair')} and "
                          f"{plural(new.get('similar_to', 0), 'SIMILAR_TO link')} proposed; "
                          f"{plural(sum(v for k, v in new.items() if 'relation' in k), 'relation suggestion')}")
            if result.get("llm"):
                llm = result["llm"]
                console.print(f"   {llm['model']} confirmed {len(llm['merged'])} of {llm['asked']} duplicate pairs "
                              f"(merged); {llm['rejected']} were different, {llm['unusable']} unusable answers"
                              + (f"; stopped: {escape(llm['error'])}" if llm["error"] else ""))
            console.print(f"   {plural(result['pending'], 'suggestion')} pending: alaya review list")
        elif name == "supersede":
            verb = "would be linked" if dry_run else "linked SUPERSEDES"
            console.print(f"   {plural(result['examined'], 'new card')} compared with earlier ones: "
                          f"{plural(result['superseded'], 'replaced card')} {verb}, "
                          f"{plural(result['contradictions'], 'contradiction')} proposed")
        elif name == "cooldown":
            tiers = result["by_tier"]
            console.print(f"   {'Would fold' if dry_run else 'Folded'} {plural(result['accesses_folded'], 'recall')} "
                          "into the counters")
            console.print(f"   HOT: {plural(tiers['HOT'], 'card')} ({result['upgraded']:,} upgraded, "
                          f"{result['downgraded']:,} downgraded)")
            console.print(f"   WARM: {plural(tiers['WARM'], 'card')}")
            console.print(f"   COLD: {plural(tiers['COLD'], 'card')} ({result['newly_archived']:,} newly archived, "
                          f"{result['restored']:,} restored)")
        elif name == "forget":
            verb = "Would forget" if dry_run else "Forgot"
            console.print(f"   {verb} {plural(result['count'], 'long-cold, unused card')} (kept in the L3 journal; "
                          "alaya restore ID brings one back)")
            if result["left"]:
                console.print(f"   {plural(result['left'], 'more card')} to forget: the next run goes on "
                              "(introspect.forget_minutes)")
        console.print()
    console.print(f"[green]✓[/] Introspection complete (took {report['elapsed_s']:.1f}s)")


def print_review_list(console: "Console", document: dict) -> None:
    """One line per suggestion: id, status, kind, evidence score, then what it is about (titles)."""
    from rich.markup import escape

    if not document["suggestions"]:
        console.print("No suggestions (alaya review list --all shows decided ones too).")
    for item in document["suggestions"]:
        titles = " ↔ ".join(f"\"{title}\"" if title is not None else f"{subject} (gone)"
                            for subject, title in zip(item["subjects"], item["titles"]))
        console.print(f"{item['id']}  {item['status']:<8}  {item['kind']:<16}  {evidence_score(item['evidence']):<16}  "
                      f"{escape(titles)}")
    pending = sum(1 for item in document["suggestions"] if item["status"] == "pending")
    if pending:
        console.print(f"\n{plural(pending, 'suggestion')} pending: alaya review show ID, then approve ID or reject ID")


def evidence_score(evidence: dict) -> str:
    """The number a suggestion stands on: how similar its subjects are, or how often a relation is used."""
    if "similarity" in evidence:
        return f"similarity {evidence['similarity']:.2f}"
    if isinstance(evidence.get("uses"), int):
        return plural(evidence["uses"], "use")
    return ""


def print_review_show(console: "Console", item: dict) -> None:
    """One suggestion in full: what it proposes, when, its evidence and the cards involved."""
    from rich.markup import escape

    console.print(f"[bold]{item['id']}[/]  {item['kind']}  ({item['status']})")
    console.print(f"Proposed {when(item['created_at'])}"
                  + (f", decided {when(item['updated_at'])}" if item["status"] != "pending" else ""))
    score = evidence_score(item["evidence"])
    console.print(f"Evidence: {score or '-'}")
    scored = "similarity" if "similarity" in item["evidence"] else "uses" if score else None
    for key, value in item["evidence"].items():
        if key != scored:  # the rest of the evidence, as recorded
            console.print(f"  {key}: {escape(json.dumps(value, ensure_ascii=False))}")
    for card in item.get("cards", []):
        preview = " ".join(card["content"].split())
        console.print(f"\n[bold]{escape(card['title'])}[/] #{card['type']} [dim]{card['id']}[/]")
        console.print(f"  [dim]{escape(preview[:PREVIEW_CHARS])}{'…' if len(preview) > PREVIEW_CHARS else ''}[/]")
    if "cards" not in item:
        console.print(f"Relations: {escape(', '.join(item['subjects']))}")
    if item["status"] == "pending":
        console.print(f"\nDecide: alaya review approve {item['id']}  ·  alaya review reject {item['id']}")


def when_or_never(millis: int | None) -> str:
    return when(millis) if millis else "never"


def when(millis: int) -> str:
    """Epoch milliseconds as a UTC date and minute, the way people read times."""
    from datetime import datetime, timezone

    return datetime.fromtimestamp(millis / 1000, tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def print_review_decided(console: "Console", document: dict) -> None:
    """Per decision: what it changed, then the next step (the engine's words, as every face shows them)."""
    from rich.markup import escape

    for item in document["decided"]:
        if item.get("already"):
            console.print(f"[green]✓[/] {item['id']} {item['kind']} was already {item['status']}")
            continue
        console.print(f"[green]✓[/] {item['id']} {item['kind']} {item['status']}: {escape(item['changed'])}")
        console.print(f"  next: {escape(item['next'])}")


def print_review_undone(console: "Console", document: dict) -> None:
    item = document["undone"]
    console.print(f"[green]↶[/] {item['id']} {item['kind']} is pending again (it was {item['was']}): "
                  f"alaya review show {item['id']}")


def print_preview(console: "Console", node: dict, indent: int = 4) -> None:
    """The first lines of a recall unit's content, rendered as the explorer renders a card: ``**bold**`` bold and
    not starred, list items on lines of their own (a one-line squeeze of the raw Markdown read as noise). A
    window's turns are one paragraph each."""
    from rich.markdown import Markdown
    from rich.text import Text

    from alaya_tui.card_markdown import card_markdown

    low, high = PREVIEW_WIDTH
    width = max(low, min(console.width - indent, high))
    content = node["content"] if node.get("kind") != "session_turns" else node["content"].replace("\n", "\n\n")
    rendered = console.render_lines(Markdown(card_markdown(node["title"], content)),
                                    console.options.update(width=width), pad=False)
    lines = [line for line in (Text.assemble(*((segment.text, segment.style) for segment in row
                                                if not segment.control)) for row in rendered) if line.plain.strip()]
    for number, line in enumerate(lines[:PREVIEW_LINES], start=1):
        line.rstrip()
        if number == PREVIEW_LINES and len(lines) > PREVIEW_LINES:
            line.append(" …")
        console.print(Text.assemble(" " * indent, line), style="dim")
    console.print()


def print_recall(console: "Console", result: dict, home: str | None = None) -> None:
    """Recall's human output: ranked cards with h, type and the relation that reached them, ending with the command
    of the next step (``home``: the store, when ``--home`` was given, repeated so the command can be pasted
    anywhere)."""
    from rich.markup import escape

    query = result["query"]
    parts = [f"concepts={json.dumps(query['concepts'], ensure_ascii=False)}"] if query["concepts"] else []
    if query["relations"]:
        parts.append(f"relations={json.dumps(query['relations'])}")
    if query["from_nodes"]:
        parts.append(f"from_nodes={json.dumps(query['from_nodes'])}")
    if query.get("entity"):
        parts.append(f"entity={json.dumps(query['entity'], ensure_ascii=False)}")
    parts.append(f"depth={query['depth']}")
    console.print(f"🔍 Recalling: {escape(' '.join(parts))}\n")
    if not result["nodes"]:
        console.print(f"[yellow]{escape(result['reason'] or 'nothing found')}[/]")
        return
    for rank, node in enumerate(result["nodes"], start=1):
        console.print(f"[bold]\\[{rank}] {escape(node['title'])}[/] (h={node['h_distance']:.2f}) #{node['type']} "
                      f"[dim]{node['tier']} · {node['card_id']}[/]")
        if node["matched_rel"]:
            console.print(f"    matched: {node['matched_rel']} (rel_sim={node['rel_similarity']:.2f}) "
                          f"from {node['via']}")
        if node.get("superseded_by"):
            console.print(f"    [yellow]superseded by {', '.join(node['superseded_by'])} "
                          f"(until {day(node['valid_to'])})[/]")
        print_preview(console, node)
    if result.get("entities"):
        shown = result["entities"][:ENTITIES_SHOWN]
        console.print("Entities: " + ", ".join(f"{escape(entity['name'])} ({entity['kind']}, "
                                                f"{plural(len(entity['cards']), 'card')})" for entity in shown))
    if result["explorable"]:
        console.print("Explorable paths:")
        for item in result["explorable"]:
            noun = "node" if item["count"] == 1 else "nodes"
            console.print(f"  - {item['rel']} ({item['count']} {noun}, rel_sim={item['rel_sim_to_query']:.2f})")
    mark = "🎯 " if result["verdict"] == "close to target" else ""
    console.print(f"\nAverage h_distance: {result['h_distance_avg']:.2f} ({mark}{result['verdict']})")
    if result["next_request"]:
        console.print(f"Next step: {escape(recall_command(result['next_request'], home))}")


ENTITIES_SHOWN = 8
"""Entities named under a recall's human output, the most mentioned first (``--json`` lists all)."""


def day(millis: int | None) -> str:
    """An epoch-ms moment as its UTC date; "?" when unknown."""
    from datetime import datetime, timezone

    return "?" if millis is None else datetime.fromtimestamp(millis / 1000, timezone.utc).date().isoformat()


def _iso_moment(millis: int) -> str:
    """An epoch-ms moment as the ISO date-time ``--as-of`` reads back to the same millisecond (UTC)."""
    from datetime import datetime, timezone

    return datetime.fromtimestamp(millis / 1000, timezone.utc).isoformat(timespec="milliseconds")


def recall_command(request: dict, home: str | None = None) -> str:
    """The ``alaya recall`` command line that sends ``request`` (a ``next_request``), quoted for a shell."""
    import shlex

    words = ["alaya", *(["--home", home] if home else []), "recall"]
    if request.get("from_nodes"):
        words += ["--from-nodes", ",".join(request["from_nodes"]), "--rel", ",".join(request["relations"]),
                  "--depth", str(request["depth"])]
    if request.get("max_results"):
        words += ["--max-results", str(request["max_results"])]
    if request.get("as_of") is not None:
        words += ["--as-of", _iso_moment(request["as_of"])]
    if request.get("types"):
        words += ["--types", ",".join(request["types"])]
    for rule in request.get("scope") or ():
        words += ["--scope", rule]
    if request.get("entity"):
        words += ["--entity", request["entity"]]
    for switch, flag in (("include_sessions", "--no-sessions"), ("include_memex", "--no-memex")):
        if request.get(switch) is False:
            words.append(flag)
    if request.get("text"):
        words.append(request["text"])
    elif request.get("concepts"):
        words += ["--concepts", ",".join(request["concepts"])]
    return " ".join(shlex.quote(word) for word in words)


def print_schema(console: "Console", document: dict) -> None:
    if "relations" in document:
        report = document["relations"]
        console.print("📊 [bold]Relation Types[/]\n")
        console.print("Core Relations (built-in):")
        for usage in report["core"]:
            console.print(f"  {usage['name']:<22}{usage['uses']:>8,} {'use' if usage['uses'] == 1 else 'uses'}")
        console.print("\nCustom Relations (emergent):")
        for usage in report["custom"]:
            hint = f"  [yellow]\\[{usage['hint']}][/]" if usage["hint"] else ""
            console.print(f"  {usage['name']:<22}{usage['uses']:>8,} {'use' if usage['uses'] == 1 else 'uses'}{hint}")
        if not report["custom"]:
            console.print("  [dim](none yet)[/]")
        console.print(f"\nTotal: {plural(report['total_edges'], 'edge')} ({report['core_types']} core types + "
                      f"{report['custom_types']} custom types)\n")
    if "node_types" in document:
        report = document["node_types"]
        console.print("📊 [bold]Node Types[/]\n\nCards:")
        for kind, entry in report["cards"].items():
            console.print(f"  {kind:<10}{entry['count']:>7,} ({entry['percent']:.0f}%)")
        console.print(f"  {'Total:':<10}{report['total_cards']:>7,}\n\nSessions: {report['sessions']:,}")
        entities = report.get("entities")
        if entities is not None:
            console.print("\nEntities (what cards mention):")
            for kind, count in entities["by_kind"].items():
                if count:
                    console.print(f"  {kind:<10}{count:>7,}")
            console.print(f"  {'Total:':<10}{entities['count']:>7,}\n\n"
                          f"MENTIONS (Card → Entity): {plural(entities['mentions'], 'edge')}")


def print_trace(console: "Console", report: dict) -> None:
    from rich.markup import escape

    card = report["card"]
    console.print(f"🔬 Tracing {card['id']}: \"{escape(card['title'])}\" #{card['type']}\n")
    if card.get("facts"):
        console.print("=== Facts ===")
        for fact in card["facts"]:
            console.print(f"- {escape(Fact.from_json(fact).describe())}")
        console.print()
    if report.get("entities"):
        console.print("=== Entities ===")
        console.print(", ".join(f"{escape(entity['name'])} ({entity['kind']})" for entity in report["entities"]))
        console.print()
    if report.get("source_file") and not report["sessions"]:
        origin = report["source_file"]
        console.print(f"=== Source File ({card['source']}) ===")
        modified = (f"modified {origin['modified_at'][:16].replace('T', ' ')} UTC" if origin["modified_at"]
                    else "no longer there")
        console.print(f"{escape(origin['path'])} ({modified})")
        return
    console.print("=== Source Sessions ===")
    for session in report["sessions"]:
        console.print(f"- {session['id']} ({session['timestamp'][:16].replace('T', ' ')} UTC, {session['channel']})")
    console.print("\n=== Relevant Context ===")
    if not report["context_turns"]:
        console.print("[dim](no context turns recorded for this card)[/]")
    for turn in report["context_turns"]:
        console.print(f"[bold]\\[Turn {turn['index']}] {turn['role'].capitalize()}:[/] {escape(turn['content'])}")
    console.print("\n=== Full Session ===")
    for session in report["sessions"]:
        console.print(f"\\[View at {escape(session['path'])}]")


def print_link(console: "Console", document: dict) -> None:
    if document["new_relation"]:
        console.print(f"[green]✓[/] New relation: {document['links'][0]['relation']}")
    for item in document["links"]:
        if document["created"]:
            console.print(f"[green]✓[/] Created link: {item['source']} {item['relation']} {item['target']}")
        else:
            console.print(f"= Already linked: {item['source']} {item['relation']} {item['target']} (kept as your link, "
                          "with this reason and weight)")


def print_unlink(console: "Console", document: dict) -> None:
    first = document["links"][0]
    if not document["removed"]:
        console.print(f"= Not linked: {first['source']} {first['relation']} {first['target']} (nothing changed)")
        return
    for item in document["links"]:
        console.print(f"[green]✓[/] Removed link: {item['source']} {item['relation']} {item['target']}")


def print_status(console: "Console", report: dict) -> None:
    from rich.markup import escape

    l3, l2, l1 = report["l3"], report["l2"], report["l1"]
    console.print("📊 [bold]Alaya Status[/]  " + f"[dim]{report['home']}[/]")
    console.print("\n[bold]L3 Raw Storage[/]")
    console.print(f"  Sessions: {l3['sessions']:,} ({human_bytes(l3['bytes'])})")
    console.print(f"  Oldest: {l3['oldest'] or '-'}")
    console.print(f"  Newest: {l3['newest'] or '-'}")
    empty = l3["gave_nothing"]
    if empty["sessions"]:
        console.print(f"  Gave no card: {plural(empty['sessions'], 'distilled session')}"
                      + (" (newest first):" if empty["newest"] else ""))
        for item in empty["newest"]:
            console.print(f"    - {escape(item['session_id'])}: {escape(item['reason'])}")
        if empty["sessions"] > len(empty["newest"]):
            console.print(f"    … and {empty['sessions'] - len(empty['newest']):,} more")
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
    console.print(f"  Card vectors: {l1['cards']:,} (HOT and WARM cards, held in memory by recall)")
    for tier in ("HOT", "WARM"):
        memory = human_bytes(l1["resident_bytes"][tier])
        console.print(f"    - {tier}: {l1['by_tier'].get(tier, 0):,} (memory: {memory})")
    console.print(f"  COLD cards: {l1['by_tier'].get('COLD', 0):,} (vectors kept as 8-bit codes: "
                  f"{l1.get('cold_vectors', 0):,})")
    for line in window_lines(l1.get("windows")):
        console.print(f"  {line}")
    console.print(f"  Relation embeddings: {l1['relations']:,}")
    if l1.get("saved_bytes"):
        console.print(f"  Saved for the next server's start: {human_bytes(l1['saved_bytes'])} (cache/resident)")
    console.print("\n[bold]Temperature Distribution[/]")
    for band in report["temperature"]:
        console.print(f"  {band['range']}: {share_bar(band['share'])} {band['share']:.0%} ({band['count']:,})")
    rules = tier_rule_lines(report.get("tier_rules"))
    if rules:
        console.print("\n[bold]Tier Rules[/] (how introspect assigns tiers)")
        for line in rules:
            console.print(f"  {line}", markup=False)
    console.print()
    for line in upkeep_lines(report):
        console.print(line, markup=False)
    sharing = report.get("sync") or {}
    if sharing.get("remotes"):
        console.print(f"\n[bold]Sharing[/] (this machine: {escape(sharing['machine'])})")
        for remote in sharing["remotes"]:
            behind = "?" if remote["pushes_behind"] is None else f"{remote['pushes_behind']:,}"
            console.print(f"  {escape(remote['name'])} ({escape(remote['url'])}): "
                          f"{remote['sessions_ahead']:,} sessions stored since the last push, {behind} pushes of "
                          f"other machines fetched and not pulled; last push {when_or_never(remote['last_push'])}, "
                          f"last pull {when_or_never(remote['last_pull'])}")


def window_lines(windows: dict | None) -> list[str]:
    """The windows of raw turns recall searches: those with a vector, and those still waiting for one (nothing
    for a store whose windows were never counted)."""
    if windows is None:
        return []
    embedded = windows["windows"] - windows["pending"]
    waiting = f" ({windows['pending']:,} waiting for their vector)" if windows["pending"] else ""
    return [f"Window vectors: {embedded:,} (windows of raw turns){waiting}"]


def tier_rule_lines(rules: dict | None) -> list[str]:
    """The rules introspect assigns tiers by, with this store's settings: why a card can be HOT below the
    threshold (new or recalled often) and WARM below the other one (not untouched long enough)."""
    if not rules:
        return []
    return [f"HOT: temperature >= {rules['hot_threshold']}, or created within {rules['new_card_days']} days, or "
            f"recalled more than {rules['frequent_accesses']} times (at most {rules['hot_limit']:,} cards)",
            f"COLD: temperature below {rules['warm_threshold']} and untouched for {rules['cold_days']} days "
            "(its vector kept as 8-bit codes)",
            f"WARM: every other card (at most {rules['warm_limit']:,}; beyond, the coolest go COLD)"]


def upkeep_lines(report: dict) -> list[str]:
    """What waits for a person (review) and when introspect last ran, with the command for each."""
    lines = []
    review = report.get("review")
    if review is not None:
        pending = review["pending"]
        lines.append(f"Review: {plural(pending, 'suggestion')} pending"
                     + (" (see them: alaya review list)" if pending else ""))
    if "introspect" in report:
        last = report["introspect"]
        lines.append("Last introspect: never (run: alaya introspect)" if last is None else
                     f"Last introspect: {last_introspect_text(last)}")
    return lines


def print_verify(console: "Console", report: dict) -> None:
    checked = report["checked"]
    summary = (f"{plural(checked['sessions'], 'session')}, {plural(checked['cards'], 'card')}, "
               f"{plural(checked['links'], 'link')}, {plural(checked['vectors'], 'vector')}")
    if report["ok"]:
        console.print(f"✓ The three layers agree ({summary})")
        return
    console.print(f"✗ {plural(len(report['problems']), 'problem')} ({summary})")
    for kind, count in sorted(report["counts"].items()):
        shown = [problem for problem in report["problems"] if problem["kind"] == kind]
        console.print(f"\n[bold]{kind}[/] ({count:,}) → repair: {shown[0]['repair']}", markup=True)
        for problem in shown[:VERIFY_SHOWN]:
            console.print(f"  - {problem['detail']}", markup=False)
        if count > VERIFY_SHOWN:
            console.print(f"  … and {count - VERIFY_SHOWN:,} more (all of them with --json)")


def print_rebuild(console: "Console", report: dict) -> None:
    layers = " and ".join(layer.upper() for layer in report["layers"])
    console.print(f"✓ Rebuilt {layers} from L3 in {report['seconds']['total']:.1f} s: "
                  f"{plural(report['sessions'], 'session')}, {plural(report['cards'], 'card')}, "
                  f"{plural(report['links'], 'link')}"
                  + (f", {plural(report['vectors'], 'vector')} ({report['embedding']})" if "l1" in report["layers"]
                     else ""))
    for problem in report["unreadable"]:
        console.print(f"  skipped unreadable {problem['path']}: {problem['reason']}", markup=False)
    console.print("  Check it with: alaya verify")


def print_backup(console: "Console", report: dict) -> None:
    console.print(f"✓ Backed up {plural(report['files'], 'file')} to {report['path']} "
                  f"({human_bytes(report['bytes'])}) in {report['total_s']:.1f} s; the store was held for "
                  f"{report['snapshot_s']:.2f} s", markup=False)


def print_restore_backup(console: "Console", report: dict) -> None:
    console.print(f"✓ Restored {plural(report['files'], 'file')} from {report['archive']} into {report['home']}",
                  markup=False)
    if report["replaced"]:
        console.print(f"  The home that was there is kept at {report['replaced']}; delete it when you are sure",
                      markup=False)
    print_verify(console, report["verify"])


VERIFY_SHOWN = 10
"""Problems of one kind listed on screen; ``--json`` has every one."""


def print_demo(console: "Console", report: dict) -> None:
    console.print(f"🌱 [bold]Alaya demo[/] at {report['home']}")
    print_init(console, report["init"])
    print_ingest(console, report["ingest"])
    print_distill(console, report["distill"])
    console.print()
    print_status(console, report["status"])
    console.print(f"\nTry: alaya --home {report['home']} recall \"gateway restart telegram\"")


def print_export(console: "Console", report: dict) -> None:
    """Export's output."""
    console.print("📦 Exporting Alaya data...\n")
    console.print(f"[green]✓[/] Exported {plural(report['cards'], 'card')} to {_short(report['cards_dir'])}/")
    for card_type, count in report["cards_by_type"].items():
        console.print(f"  - {card_type}/ ({count:,})")
    console.print(f"[green]✓[/] Exported graph to {_short(report['graphml'])} "
                  f"({plural(report['sessions'], 'session')}, {plural(report['edges'], 'relation')})")
    console.print(f"[green]✓[/] Created index at {_short(report['index'])}")
    replaced = " (replaced the earlier export)" if report["replaced"] else ""
    console.print(f"\nExport complete: {_short(report['out'])}/{replaced}")


def print_import_memex(console: "Console", report: dict) -> None:
    from rich.markup import escape

    console.print(f"📚 Importing memex cards from {escape(_short(report['vault']))}\n")
    for card in report["cards"] if len(report["cards"]) <= DETAIL_LIMIT else []:
        if card["status"] != "unchanged":
            console.print(f"[green]✓[/] {card['status'].capitalize()}: {escape(card['title'])} \\[{card['type']}] "
                          f"[dim]{escape(card['file'])}[/]")
    console.print(f"Cards: {report['imported']} imported, {report['updated']} updated, {report['unchanged']} "
                  f"unchanged ({plural(report['files'], 'file')}, {plural(report['links'], 'wikilink')} written)")
    for title, items, key in (("Broken links", report["broken_links"], "target"),
                              ("Unreadable files", report["unreadable"], "reason"),
                              ("Skipped", report["skipped"], "reason"),
                              ("Imported earlier, file now gone (card kept)", report["missing"], "card_id")):
        if items:
            console.print(f"[yellow]{title}: {len(items)}[/]")
            for item in items:
                console.print(f"  - {escape(item['file'])}: {escape(item[key])}")

