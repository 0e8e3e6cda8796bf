"""The commands over a store's content: ingest, distill, introspect, review, recall, trace, schema, link, export,
import-memex, status, verify, backup and restore.

Each sends one request through a backend and prints the document it gets back (see :mod:`.shared`); they run
in the owner server when the client forwarded the command line there, so none of them touches the terminal but
through :mod:`.terminal`.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Annotated, Optional

import typer

from alaya_engine.foundations.errors import RUNTIME, USAGE, AlayaError

from . import terminal
from .shared import (
    RUNTIME_CODES,
    CsvOption,
    JsonFlag,
    call,
    emit,
    failed_distillation,
    refusal,
    say,
    say_failed_sessions,
    show,
)

commands = typer.Typer()
review_app = typer.Typer(help="Introspect's suggestions: list, show, approve (applies it) or reject.",
                         no_args_is_help=True)
commands.add_typer(review_app, name="review")


@commands.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[list[str], typer.Argument(help="Session files (JSON or OpenClaw JSONL), folders, "
                                                    "or - for stdin.")],
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a stored session whose content "
                                                            "changed.")] = False,
    distill_too: Annotated[bool, typer.Option("--distill", help="Distill what was ingested (also on when "
                                                                  "distill.auto_distill is true).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Store sessions in L3 (atomically) and create their Session nodes in the graph."""
    stdin = base64.b64encode(_read_stdin(ctx)).decode() if "-" in paths else None
    absolute = [path if path == "-" else terminal.current().path(path) for path in paths]
    document = call(ctx, "ingest", {"paths": absolute, "replace": replace, "distill": distill_too,
                                     "stdin_b64": stdin}, "Ingesting", as_json)
    show(document, as_json, "print_ingest",
         error=refusal(document["files"], "source", "files") or failed_distillation(document["distill"]))
    for outcome in document["files"]:
        if outcome["error"]:
            say(f"error: {outcome['source']}: {outcome['error']['message']}", error=True)
    say_failed_sessions(document["distill"])
    if document["refused"]:
        codes = {o["error"]["code"] for o in document["files"] if o["error"]}
        raise typer.Exit(RUNTIME if codes <= RUNTIME_CODES else USAGE)
    if document["distill"] and document["distill"]["sessions_failed"]:
        raise typer.Exit(RUNTIME)


def _read_stdin(ctx: typer.Context) -> bytes:
    """Stdin, up to one byte past ``ingest.max_file_mb``: enough for the engine to refuse it as it refuses an
    oversized file, without reading (or sending the server) more."""
    from alaya_engine.foundations.config import ingest_limit, load_config
    from alaya_engine.foundations.paths import Layout

    layout = Layout(ctx.obj["home"])
    layout.require_initialised()
    return terminal.current().read_stdin(ingest_limit(load_config(layout.config_file)) + 1)


@commands.command()
def distill(
    ctx: typer.Context,
    session: Annotated[Optional[list[str]], typer.Option("--session", metavar="ID",
                                                         help="Distill this session (repeatable).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Distill again, replacing exactly those sessions' cards "
                                                        "and links.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the cards and links it would create; "
                                                            "write nothing.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Turn sessions into knowledge cards and typed links (default: every session not yet distilled)."""
    document = call(ctx, "distill", {"sessions": session or [], "force": force, "dry_run": dry_run},
                     "Distilling", as_json)
    show(document, as_json, "print_distill", error=failed_distillation(document))
    say_failed_sessions(document)
    if document["sessions_failed"]:
        raise typer.Exit(RUNTIME)


@commands.command()
def introspect(
    ctx: typer.Context,
    step: Annotated[Optional[list[str]], typer.Option("--step", metavar="STEP",
                                                      help="Run only this step (repeatable): distill, consolidate, "
                                                           "supersede, cooldown, forget.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report what would change; write nothing.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Look after the memory: distill new sessions, consolidate (suggest merges and links), link what later cards
    replaced, recompute temperatures and tiers, forget long-cold cards."""
    show(call(ctx, "introspect", {"steps": step or [], "dry_run": dry_run}, "Introspecting", as_json),
          as_json, "print_introspect")


@review_app.command("list")
def review_list(
    ctx: typer.Context,
    status: Annotated[Optional[str], typer.Option("--status", help="Only this status: pending (the default), "
                                                                   "approved or rejected.")] = None,
    show_all: Annotated[bool, typer.Option("--all", help="Decided suggestions too.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """List suggestions waiting for a decision: status, kind, evidence and both subjects' titles."""
    chosen = status or (None if show_all else "pending")
    show(call(ctx, "review.list", {"status": chosen}), as_json, "print_review_list")


@review_app.command("show")
def reviewshow(ctx: typer.Context, suggestion_id: Annotated[str, typer.Argument(metavar="ID")],
                as_json: JsonFlag = False) -> None:
    """Show one suggestion with its evidence (and the cards involved)."""
    show(call(ctx, "review.show", {"id": suggestion_id}), as_json, "print_review_show")


@review_app.command("approve")
def review_approve(ctx: typer.Context, ids: Annotated[list[str], typer.Argument(metavar="ID...")],
                   as_json: JsonFlag = False) -> None:
    """Apply suggestions exactly as an automatic change would."""
    show(call(ctx, "review.approve", {"ids": ids}), as_json, "print_review_decided")


@review_app.command("reject")
def review_reject(ctx: typer.Context, ids: Annotated[list[str], typer.Argument(metavar="ID...")],
                  as_json: JsonFlag = False) -> None:
    """Reject suggestions; a rejected suggestion is never proposed again."""
    show(call(ctx, "review.reject", {"ids": ids}), as_json, "print_review_decided")


@review_app.command("undo")
def review_undo(ctx: typer.Context,
                suggestion_id: Annotated[Optional[str], typer.Argument(metavar="[ID]", help="Default: the last "
                                                                                           "decision.")] = None,
                as_json: JsonFlag = False) -> None:
    """Reopen the last decision (a rejection, or an approved split); approvals that changed the store stay."""
    show(call(ctx, "review.undo", {"id": suggestion_id}), as_json, "print_review_undone")


@commands.command()
def restore(
    ctx: typer.Context,
    target: Annotated[str, typer.Argument(metavar="CARD_ID|FILE",
                                          help="A forgotten card's id, or a backup file (.tar.gz) to restore.")],
    force: Annotated[bool, typer.Option("--force", help="Replace a non-empty home with the backup (the old home is "
                                                        "kept beside it).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Bring back a card that introspect forgot, or a whole store from a backup file.

    An argument naming an existing file (or ending in .tar.gz/.tgz) is a backup; anything else is a card id.
    """
    if target.endswith((".tar.gz", ".tgz")) or Path(terminal.current().path(target)).is_file():
        terminal.run_in_client()  # it stops the server
        return _restore_backup(ctx, Path(terminal.current().path(target)), force, as_json)
    document = call(ctx, "restore", {"card_id": target})
    if as_json:
        return emit(document)
    from alaya_engine.foundations.human import plural

    say(f"✓ Restored {document['card_id']} with {plural(document['edges_restored'], 'edge')}"
          + (f" ({plural(document['edges_lost'], 'edge')} lead to cards no longer in the store)"
             if document["edges_lost"] else ""))


def _restore_backup(ctx: typer.Context, archive: Path, force: bool, as_json: bool) -> None:
    from alaya_engine.engine import Engine
    from alaya_engine.foundations.paths import Layout
    from alaya_engine.server.client import stop_server

    layout = Layout(ctx.obj["home"])
    if layout.is_initialised() and force:
        stop_server(layout.home)
    document = Engine.restore_backup(archive, layout.home, force).to_json()
    show(document, as_json, "print_restore_backup")
    if not document["verify"]["ok"]:
        raise typer.Exit(RUNTIME)


@commands.command()
def backup(
    ctx: typer.Context,
    out: Annotated[Optional[str], typer.Option("--out", metavar="FILE",
                                               help="Archive to write "
                                                    "(default: <home>/backup/alaya-<time>.tar.gz).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """A consistent .tar.gz snapshot of the store, safe while agents, the explorer and cron use it."""
    absolute = terminal.current().path(out) if out else None
    show(call(ctx, "backup", {"out": absolute}, "Backing up", as_json), as_json, "print_backup")


@commands.command()
def recall(
    ctx: typer.Context,
    text: Annotated[Optional[str], typer.Argument(help="Free text; split into concepts at punctuation.")] = None,
    concepts: Annotated[CsvOption, typer.Option("--concepts", help="Comma-separated concepts.")] = None,
    rel: Annotated[CsvOption, typer.Option("--rel", help="Comma-separated relations to follow.")] = None,
    depth: Annotated[Optional[int], typer.Option("--depth", help="Graph hops, 0–3.")] = None,
    from_nodes: Annotated[CsvOption, typer.Option("--from-nodes", help="Continue from these card ids.")] = None,
    top_k: Annotated[Optional[int], typer.Option("--top-k", help="Cards taken from search before following "
                                                                 "relations.")] = None,
    types: Annotated[CsvOption, typer.Option("--types", help="Only these card types.")] = None,
    max_results: Annotated[Optional[int], typer.Option("--max-results", help="Units (cards and windows) to return.")
                           ] = None,
    sessions: Annotated[Optional[bool], typer.Option("--sessions/--no-sessions",
                                                     help="Let windows of raw session turns compete with cards "
                                                          "(default: recall.include_sessions).")] = None,
    memex: Annotated[Optional[bool], typer.Option("--memex/--no-memex",
                                                  help="Let cards imported with import-memex be returned "
                                                       "(default: yes).")] = None,
    scope: Annotated[Optional[list[str]], typer.Option("--scope", metavar="RULE", help=(
        "Only cards and raw turns of sessions this rule matches: agent=NAME, channel=NAME or project=NAME (shell "
        "patterns), or shared (the sessions config.json's share rules share, and those pulled from other machines); "
        "repeat it to allow several.")) ] = None,
    as_of: Annotated[Optional[str], typer.Option("--as-of", metavar="DATE", help=(
        "Answer as the memory stood then (ISO date or date-time, UTC): nothing said later, and knowledge replaced "
        "later still current."))] = None,
    entity: Annotated[Optional[str], typer.Option("--entity", metavar="NAME", help=(
        "Start from the cards that mention this entity (a person, service, host, file…; any case or spacing): "
        "beside what the text finds, or alone with its name as the goal. alaya trace CARD lists a card's entities."
        ))] = None,
    as_json: JsonFlag = False,
) -> None:
    """Recall by navigation: concepts → nearest cards → graph paths, ranked by h-distance.

    With nothing but --json on the command line, the request is read as JSON from stdin.
    """
    from .recall_request import read_stdin, request_from_options, request_from_stdin

    request = request_from_options(text=text, concepts=concepts, relations=rel, depth=depth, from_nodes=from_nodes,
                                   top_k=top_k, types=types, max_results=max_results, include_sessions=sessions,
                                   include_memex=memex, scope=scope or None, as_of=as_of, entity=entity)
    if not request and not terminal.current().stdin_is_tty():
        request = request_from_stdin(read_stdin())
    show(call(ctx, "recall", {"request": request}), as_json, "print_recall",
         home=str(ctx.obj["home"]) if ctx.obj["home_option"] else None)


@commands.command()
def schema(
    ctx: typer.Context,
    relations: Annotated[bool, typer.Option("--relations", help="Relation types with their usage.")] = False,
    node_types: Annotated[bool, typer.Option("--node-types", help="Card types and session count.")] = False,
    json_schema: Annotated[Optional[str], typer.Option("--json-schema", metavar="NAME",
                                                       help="Print a JSON Schema: recall (the --json "
                                                            "contract) or session (the files ingest takes).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Show the data model: relation types (core and emergent), node types, or a JSON Schema."""
    if json_schema:
        from alaya_engine.schemas import json_schema as load_schema

        return emit(load_schema(json_schema))
    show(call(ctx, "schema", {"relations": relations, "node_types": node_types}), as_json, "print_schema")


@commands.command()
def trace(ctx: typer.Context, card_id: Annotated[str, typer.Argument(help="A card id, e.g. from recall.")],
          as_json: JsonFlag = False) -> None:
    """Trace a card back to its source sessions and the turns it came from."""
    show(call(ctx, "trace", {"card_id": card_id}), as_json, "print_trace")


@commands.command()
def link(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Card id the edge starts from.")],
    target: Annotated[str, typer.Argument(help="Card id the edge points to.")],
    rel: Annotated[Optional[str], typer.Option("--rel", help="Relation type, e.g. CAUSED_BY (custom names allowed; "
                                                             "asked on a terminal when left out).")] = None,
    reason: Annotated[str, typer.Option("--reason", help="Why the two cards are related.")] = "",
    weight: Annotated[float, typer.Option("--weight", help="Strength, 0–1.")] = 1.0,
    new_relation: Annotated[bool, typer.Option("--new-relation", help="Create the relation if this store does not "
                                                                      "know it yet (else a typo is refused).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Add a relation by hand; symmetric relations get both directions.

    Without --rel you are asked for the relation on a terminal; elsewhere the link is refused. A relation name
    the store does not know yet is refused with the nearest known one (a typo, usually); on a terminal you are
    asked whether to create it, elsewhere --new-relation creates it.
    """
    params = {"source": source, "target": target, "relation": rel, "reason": reason, "weight": weight,
              "new_relation": new_relation}
    here = terminal.current()
    asking = not as_json and here.stdin_is_tty() and here.stdout_is_tty()
    if rel is None and asking:
        terminal.run_in_client()  # a question to the person at the terminal
        params["relation"] = typer.prompt("Relation (e.g. CAUSED_BY, DEPENDS_ON; alaya schema --relations lists them)")
    try:
        document = call(ctx, "link", params)
    except AlayaError as error:
        if error.code != "new_relation" or not asking:
            raise
        terminal.run_in_client()  # a question to the person at the terminal
        if not typer.confirm(f"{error.message.split('To create it')[0]}Create it anyway?", default=False):
            raise typer.Exit(USAGE) from None
        document = call(ctx, "link", {**params, "new_relation": True})
    show(document, as_json, "print_link")


@commands.command()
def unlink(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Card id the edge starts from.")],
    target: Annotated[str, typer.Argument(help="Card id the edge points to.")],
    rel: Annotated[Optional[str], typer.Option("--rel", help="The relation to remove, e.g. SUPERSEDES.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Remove a relation by hand, with its other direction: what introspect linked wrongly, say a card taken as
    replacing another (the older card is current again). Recorded in the L3 journal, so a rebuild keeps it removed."""
    show(call(ctx, "unlink", {"source": source, "target": target, "relation": rel}), as_json, "print_unlink")


@commands.command()
def export(
    ctx: typer.Context,
    out: Annotated[Optional[str], typer.Option("--out", metavar="DIR",
                                               help="Export folder (default: <home>/export); an earlier export "
                                                    "there is replaced.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Export the store as Markdown cards (an Obsidian vault), graph.graphml (Gephi) and index.md."""
    absolute = terminal.current().path(out) if out else None
    show(call(ctx, "export", {"out": absolute}, "Exporting", as_json), as_json, "print_export")


@commands.command("import-memex")
def import_memex(
    ctx: typer.Context,
    directory: Annotated[str, typer.Argument(metavar="DIR", help="The memex cards folder, e.g. ~/.memex/cards.")],
    as_json: JsonFlag = False,
) -> None:
    """Import memex cards (Markdown + YAML front matter, [[wikilinks]]) as cards; re-running updates them."""
    document = call(ctx, "import_memex", {"path": terminal.current().path(directory)}, "Importing",
                     as_json)
    show(document, as_json, "print_import_memex")


@commands.command()
def status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Counts per layer: sessions, cards per type, links per relation, vectors per tier, sizes on disk."""
    show(call(ctx, "status"), as_json, "print_status")


@commands.command()
def verify(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Check that L3, L2 and L1 agree; exit code 1 when any problem is found."""
    document = call(ctx, "verify")
    show(document, as_json, "print_verify")
    if not document["ok"]:
        raise typer.Exit(RUNTIME)


