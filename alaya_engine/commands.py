"""The full ``alaya`` command line (Typer), a thin layer over the engine API.

Every store command sends one request through a backend — the owner server,
or the engine in-process with ``--no-server`` — and prints the JSON document
it gets back, either as is (``--json``) or rendered for a person. Errors never
show a traceback: one line on stderr, exit code 2 for bad input and 1 for
runtime failures, and with ``--json`` the same error as ``{"error": {...}}``
on stdout.
"""

from __future__ import annotations

import base64
import logging
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .errors import RUNTIME, USAGE, AlayaError, report_error
from .privacy import create_privately
from .server.protocol import render

log = logging.getLogger(__name__)
logging.getLogger("alaya_engine").addHandler(logging.NullHandler())
"""Before the store's log file is set up, an error logged on the way out must not reach the terminal as a
traceback (logging's last-resort handler would print it): the command has already shown its one line."""


COMMAND_ORDER = ("init", "demo", "ingest", "distill", "recall", "trace", "schema", "link", "status", "introspect",
                 "review", "restore", "verify", "rebuild", "rebuild-l1", "backup", "export", "import-memex", "sync",
                 "mcp", "skill", "tui", "serve", "server", "version")
"""``alaya --help`` lists commands in the order of a memory's life, not the order they are defined in."""


class AlayaGroup(TyperGroup):
    """Runs a command and maps every failure to one line and an exit code."""

    def list_commands(self, ctx) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: position for position, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        from .cli import place_global_options

        args = place_global_options(sys.argv[1:] if args is None else args)
        wants_json = "--json" in args
        create_privately()
        try:
            result = super().main(args=args, prog_name=prog_name or "alaya", standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except AlayaError as error:
            code = report_error(error, wants_json)
        except typer.TyperException as error:
            context = getattr(error, "ctx", None)
            if context is not None and error.format_message() == context.get_help():
                print(context.get_help())  # a group given no command (`alaya review`): its usage, in full
                code = 0
            else:
                hint = f"; see: {context.command_path} --help" if context else ""
                code = report_error(AlayaError("usage", f"{error.format_message().rstrip('.')}{hint}", USAGE),
                                    wants_json)
        except typer.Exit as exit_:
            code = exit_.exit_code
        except BrokenPipeError:
            raise  # stdout was closed by its reader: alaya_engine.cli.main ends quietly
        except (typer.Abort, KeyboardInterrupt):
            print("aborted", file=sys.stderr)
            code = 130
        except Exception as error:  # the last line of defence: log the traceback, show one line
            from .disk import disk_full, is_disk_full
            from .paths import resolve_home

            home = resolve_home(_home_option(args))
            if is_disk_full(error, home):
                sys.exit(report_error(disk_full(error, home), wants_json))
            log.exception("unexpected failure")
            code = report_error(AlayaError("internal", f"unexpected {type(error).__name__}: {error}; "
                                                       "details are in the log file", RUNTIME), wants_json)
        sys.exit(code)


def _home_option(args: list[str]) -> str | None:
    """``--home``'s value in a command line that failed (before or after Typer parsed it)."""
    for position, arg in enumerate(args):
        if arg == "--home" and position + 1 < len(args):
            return args[position + 1]
        if arg.startswith("--home="):
            return arg.split("=", 1)[1]
    return None


app = typer.Typer(
    cls=AlayaGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Alaya: local-first long-term memory for AI agents (L3 raw sessions, L2 graph, L1 vectors).",
)
review_app = typer.Typer(help="Introspect's suggestions: list, show, approve (applies it) or reject.",
                         no_args_is_help=True)
server_app = typer.Typer(help="Manage the store's owner server (pid, uptime, requests, memory).",
                         no_args_is_help=True)
app.add_typer(server_app, name="server")
app.add_typer(review_app, name="review")

RUNTIME_CODES = frozenset({"io_error", "store_damaged", "internal"})
"""Refusals that are the machine's fault, not the input's: exit code 1 when every refusal is one of them."""
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable contract).")]
CsvOption = Optional[str]


@app.callback()
def _global(
    ctx: typer.Context,
    home: Annotated[Optional[str], typer.Option("--home", metavar="PATH",
                                                 help="Store folder (default: $ALAYA_HOME or ~/.alaya).")] = None,
    no_server: Annotated[bool, typer.Option("--no-server", help="Run in this process under the store lock instead "
                                                                "of through the owner server "
                                                                "(also ALAYA_NO_SERVER=1).")] = False,
) -> None:
    ctx.obj = {"home": home, "no_server": no_server}


def _call(ctx: typer.Context, method: str, params: dict | None = None, label: str | None = None,
          as_json: bool = False) -> dict:
    """Run one engine method through the right backend, with a progress bar for long jobs on a terminal."""
    from .backend import open_backend
    from .views import progress_bar

    backend = open_backend(ctx.obj["home"], ctx.obj["no_server"])
    with progress_bar(label or method.capitalize(), enabled=bool(label) and not as_json) as advance:
        return backend.call(method, params or {}, advance)


def _emit(document: dict) -> None:
    print(render(document))


def _show(document: dict, as_json: bool, view: str, **options) -> None:
    """Print ``document`` as JSON, or through the named renderer in :mod:`alaya_engine.views` (with ``options``)."""
    if as_json:
        return _emit(document)
    from rich.console import Console

    from . import views

    getattr(views, view)(Console(highlight=False, soft_wrap=True), document, **options)


@app.command()
def version(as_json: JsonFlag = False) -> None:
    """Print Alaya's version."""
    _emit({"version": __version__}) if as_json else print(f"alaya {__version__}")


@app.command()
def init(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create the store: folders, config.json, graph schema, LanceDB tables, core relation embeddings."""
    from .engine import Engine

    _show(Engine.init(ctx.obj["home"]).to_json(), as_json, "print_init")


@app.command()
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
    absolute = [path if path == "-" else os.path.abspath(os.path.expanduser(path)) for path in paths]
    document = _call(ctx, "ingest", {"paths": absolute, "replace": replace, "distill": distill_too,
                                     "stdin_b64": stdin}, "Ingesting", as_json)
    _show(document, as_json, "print_ingest")
    for outcome in document["files"]:
        if outcome["error"]:
            print(f"error: {outcome['source']}: {outcome['error']['message']}", file=sys.stderr)
    if document["refused"]:
        codes = {o["error"]["code"] for o in document["files"] if o["error"]}
        raise typer.Exit(RUNTIME if codes <= RUNTIME_CODES else USAGE)


def _read_stdin(ctx: typer.Context) -> bytes:
    """Stdin, up to one byte past ``ingest.max_file_mb``: enough for the engine to refuse it as it refuses an
    oversized file, without reading (or sending the server) more."""
    from .config import ingest_limit, load_config
    from .paths import Layout, resolve_home

    layout = Layout(resolve_home(ctx.obj["home"]))
    layout.require_initialised()
    return sys.stdin.buffer.read(ingest_limit(load_config(layout.config_file)) + 1)


@app.command()
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
    document = _call(ctx, "distill", {"sessions": session or [], "force": force, "dry_run": dry_run},
                     "Distilling", as_json)
    _show(document, as_json, "print_distill")
    for outcome in document["sessions"]:
        if outcome["status"] == "failed":
            print(f"error: {outcome['session_id']}: {outcome['reason']}", file=sys.stderr)
    if document["sessions_failed"]:
        raise typer.Exit(RUNTIME)


@app.command()
def introspect(
    ctx: typer.Context,
    step: Annotated[Optional[list[str]], typer.Option("--step", metavar="STEP",
                                                      help="Run only this step (repeatable): distill, consolidate, "
                                                           "cooldown, forget.")] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Report what would change; write nothing.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Look after the memory: distill new sessions, consolidate (suggest merges and links), recompute
    temperatures and tiers, forget long-cold cards."""
    _show(_call(ctx, "introspect", {"steps": step or [], "dry_run": dry_run}, "Introspecting", as_json),
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
    _show(_call(ctx, "review.list", {"status": chosen}), as_json, "print_review_list")


@review_app.command("show")
def review_show(ctx: typer.Context, suggestion_id: Annotated[str, typer.Argument(metavar="ID")],
                as_json: JsonFlag = False) -> None:
    """Show one suggestion with its evidence (and the cards involved)."""
    _show(_call(ctx, "review.show", {"id": suggestion_id}), as_json, "print_review_show")


@review_app.command("approve")
def review_approve(ctx: typer.Context, ids: Annotated[list[str], typer.Argument(metavar="ID...")],
                   as_json: JsonFlag = False) -> None:
    """Apply suggestions exactly as an automatic change would."""
    _show(_call(ctx, "review.approve", {"ids": ids}), as_json, "print_review_decided")


@review_app.command("reject")
def review_reject(ctx: typer.Context, ids: Annotated[list[str], typer.Argument(metavar="ID...")],
                  as_json: JsonFlag = False) -> None:
    """Reject suggestions; a rejected suggestion is never proposed again."""
    _show(_call(ctx, "review.reject", {"ids": ids}), as_json, "print_review_decided")


@app.command()
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
    if target.endswith((".tar.gz", ".tgz")) or Path(target).expanduser().is_file():
        return _restore_backup(ctx, Path(target), force, as_json)
    document = _call(ctx, "restore", {"card_id": target})
    if as_json:
        return _emit(document)
    from .views import plural

    print(f"✓ Restored {document['card_id']} with {plural(document['edges_restored'], 'edge')}"
          + (f" ({plural(document['edges_lost'], 'edge')} lead to cards no longer in the store)"
             if document["edges_lost"] else ""))


def _restore_backup(ctx: typer.Context, archive: Path, force: bool, as_json: bool) -> None:
    from .maintenance.backup import restore_backup
    from .paths import Layout, resolve_home
    from .server.client import stop_server

    layout = Layout(resolve_home(ctx.obj["home"]))
    if layout.is_initialised() and force:
        stop_server(layout.home)
    document = restore_backup(archive, layout.home, force).to_json()
    _show(document, as_json, "print_restore_backup")
    if not document["verify"]["ok"]:
        raise typer.Exit(RUNTIME)


@app.command()
def backup(
    ctx: typer.Context,
    out: Annotated[Optional[str], typer.Option("--out", metavar="FILE",
                                               help="Archive to write "
                                                    "(default: <home>/backup/alaya-<time>.tar.gz).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """A consistent .tar.gz snapshot of the store, safe while agents, the explorer and cron use it."""
    absolute = os.path.abspath(os.path.expanduser(out)) if out else None
    _show(_call(ctx, "backup", {"out": absolute}, "Backing up", as_json), as_json, "print_backup")


@app.command()
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
    as_json: JsonFlag = False,
) -> None:
    """Recall by navigation: concepts → nearest cards → graph paths, ranked by h-distance.

    With nothing but --json on the command line, the request is read as JSON from stdin.
    """
    from .recall_request import read_stdin, request_from_options, request_from_stdin

    request = request_from_options(text=text, concepts=concepts, relations=rel, depth=depth, from_nodes=from_nodes,
                                   top_k=top_k, types=types, max_results=max_results, include_sessions=sessions,
                                   include_memex=memex)
    if not request and not sys.stdin.isatty():
        request = request_from_stdin(read_stdin())
    _show(_call(ctx, "recall", {"request": request}), as_json, "print_recall", home=ctx.obj["home"])


@app.command()
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
        from .schemas import json_schema as load_schema

        return _emit(load_schema(json_schema))
    _show(_call(ctx, "schema", {"relations": relations, "node_types": node_types}), as_json, "print_schema")


@app.command()
def trace(ctx: typer.Context, card_id: Annotated[str, typer.Argument(help="A card id, e.g. from recall.")],
          as_json: JsonFlag = False) -> None:
    """Trace a card back to its source sessions and the turns it came from."""
    _show(_call(ctx, "trace", {"card_id": card_id}), as_json, "print_trace")


@app.command()
def link(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Card id the edge starts from.")],
    target: Annotated[str, typer.Argument(help="Card id the edge points to.")],
    rel: Annotated[str, typer.Option("--rel", help="Relation type (custom names allowed).")] = "RELATES_TO",
    reason: Annotated[str, typer.Option("--reason", help="Why the two cards are related.")] = "",
    weight: Annotated[float, typer.Option("--weight", help="Strength, 0–1.")] = 1.0,
    new_relation: Annotated[bool, typer.Option("--new-relation", help="Create the relation if this store does not "
                                                                      "know it yet (else a typo is refused).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Add a relation by hand; symmetric relations get both directions.

    A relation name the store does not know yet is refused with the nearest known one (a typo, usually); on a
    terminal you are asked whether to create it, elsewhere --new-relation creates it.
    """
    params = {"source": source, "target": target, "relation": rel, "reason": reason, "weight": weight,
              "new_relation": new_relation}
    try:
        document = _call(ctx, "link", params)
    except AlayaError as error:
        if error.code != "new_relation" or as_json or not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise
        if not typer.confirm(f"{error.message.split('To create it')[0]}Create it anyway?", default=False):
            raise typer.Exit(USAGE) from None
        document = _call(ctx, "link", {**params, "new_relation": True})
    _show(document, as_json, "print_link")


@app.command()
def export(
    ctx: typer.Context,
    out: Annotated[Optional[str], typer.Option("--out", metavar="DIR",
                                               help="Export folder (default: <home>/export); an earlier export "
                                                    "there is replaced.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Export the store as Markdown cards (an Obsidian vault), graph.graphml (Gephi) and index.md."""
    absolute = os.path.abspath(os.path.expanduser(out)) if out else None
    _show(_call(ctx, "export", {"out": absolute}, "Exporting", as_json), as_json, "print_export")


@app.command("import-memex")
def import_memex(
    ctx: typer.Context,
    directory: Annotated[str, typer.Argument(metavar="DIR", help="The memex cards folder, e.g. ~/.memex/cards.")],
    as_json: JsonFlag = False,
) -> None:
    """Import memex cards (Markdown + YAML front matter, [[wikilinks]]) as cards; re-running updates them."""
    document = _call(ctx, "import_memex", {"path": os.path.abspath(os.path.expanduser(directory))}, "Importing",
                     as_json)
    _show(document, as_json, "print_import_memex")


@app.command()
def status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Counts per layer: sessions, cards per type, links per relation, vectors per tier, sizes on disk."""
    _show(_call(ctx, "status"), as_json, "print_status")


@app.command()
def verify(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Check that L3, L2 and L1 agree; exit code 1 when any problem is found."""
    document = _call(ctx, "verify")
    _show(document, as_json, "print_verify")
    if not document["ok"]:
        raise typer.Exit(RUNTIME)


@app.command()
def demo(
    ctx: typer.Context,
    demo_home: Annotated[Optional[Path], typer.Option("--demo-home", metavar="PATH",
                                                      help="Where to build it (default: $ALAYA_DEMO_HOME "
                                                           "or ~/.alaya-demo).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Delete an earlier demo store first.")] = False,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Do not open the explorer afterwards (it opens only on a "
                                                          "terminal, and never with --json).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Build a demo memory from sample sessions shipped with Alaya (offline), show it, then open the explorer on it."""
    from .demo import build_demo, resolve_demo_home
    from .paths import Layout

    target = resolve_demo_home(demo_home)
    if Layout(target).is_initialised():
        from .server.client import stop_server

        stop_server(target)  # the demo is built in this process: a server of an earlier run lets go of it first
    report = build_demo(target, fresh=fresh).to_json()
    _show(report, as_json, "print_demo")
    if not (no_tui or as_json) and sys.stdin.isatty() and sys.stdout.isatty():
        _open_explorer(ctx, report["home"])


@app.command()
def tui(ctx: typer.Context) -> None:
    """Open the Alaya explorer (a terminal app) on this store."""
    _open_explorer(ctx, ctx.obj["home"])


def _open_explorer(ctx: typer.Context, home: str | None) -> None:
    from alaya_tui.app import AlayaApp

    from .backend import open_backend

    AlayaApp(open_backend(home, ctx.obj["no_server"])).run()


@app.command()
def serve(
    ctx: typer.Context,
    foreground: Annotated[bool, typer.Option("--foreground", help="Run in this terminal instead of detached.")] = False,
) -> None:
    """Start the owner server for this store (it also starts on demand)."""
    from .paths import Layout, resolve_home

    layout = Layout(resolve_home(ctx.obj["home"]))
    layout.require_initialised()
    if foreground:
        from .server.service import OwnerServer

        raise typer.Exit(OwnerServer(layout.home).run())
    from .server.client import connect, read_server_settings

    client = connect(layout.home, autostart=True, timeout=read_server_settings(layout.home)[1])
    _show_server(client.call("server.status"), as_json=False)


@server_app.command("status")
def server_status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Is a server running for this store, and how is it doing."""
    from .server.client import ServerClient, owner_pid

    client = ServerClient(_store_home(ctx))
    if client.answers():
        document = {"running": True, **client.call("server.status",
                                                    request_timeout=client.settings.connect_timeout)}
    elif (pid := owner_pid(client.home)) is not None:
        raise AlayaError("server_unreachable", f"the server for {client.home} (pid {pid}) holds the store but does "
                                               f"not answer on {client.socket_path}; run: alaya --home {client.home} "
                                               "server stop", RUNTIME)
    else:
        document = {"running": False, "home": str(client.home)}
    _show_server(document, as_json)


@server_app.command("stop")
def server_stop(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Stop the server after the requests in flight (found through its lock even if its socket is gone)."""
    from .server.client import stop_server

    home = _store_home(ctx)
    pid = stop_server(home)
    document = {"stopped": pid is not None, "pid": pid, "home": str(home)}
    _emit(document) if as_json else print(f"✓ server stopped (pid {pid})" if pid else "no server was running")


@server_app.command("restart")
def server_restart(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Stop the server (if any, even a stopped or stuck one) and start a fresh one."""
    from .server.client import ServerClient, read_server_settings, start_server, stop_server

    client = ServerClient(_store_home(ctx))
    stop_server(client.home)
    fresh = start_server(client.home, read_server_settings(client.home)[1])
    _show_server({"running": True, **fresh.call("server.status")}, as_json)


@app.command()
def rebuild(
    ctx: typer.Context,
    l1: Annotated[bool, typer.Option("--l1", help="Re-embed L1 (vectors) with the configured model.")] = False,
    l2: Annotated[bool, typer.Option("--l2", help="Replay L3 into a fresh L2 (graph).")] = False,
    all_layers: Annotated[bool, typer.Option("--all", help="Both (the default).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Regenerate L2 and/or L1 from L3 (no model call); also how to switch embedding model or graph engine.

    Maintenance needs the store to itself: a running owner server is stopped first (it starts again on demand).
    """
    _run_rebuild(ctx, {"l1"} if l1 and not (l2 or all_layers) else {"l2"} if l2 and not (l1 or all_layers)
                 else {"l1", "l2"}, as_json)


@app.command("rebuild-l1")
def rebuild_l1(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Another name for: alaya rebuild --l1."""
    _run_rebuild(ctx, {"l1"}, as_json)


def _run_rebuild(ctx: typer.Context, layers: set[str], as_json: bool) -> None:
    from .engine import Engine
    from .server.client import stop_server
    from .views import progress_bar

    home = _store_home(ctx)
    stop_server(home)
    engine = Engine.open(home, for_rebuild=True)
    with progress_bar("Embedding", enabled=not as_json) as advance:
        document = engine.rebuild(layers, advance).to_json()
    _show(document, as_json, "print_rebuild")


def _store_home(ctx: typer.Context) -> Path:
    from .paths import Layout, resolve_home

    layout = Layout(resolve_home(ctx.obj["home"]))
    layout.require_initialised()
    return layout.home


def _show_server(document: dict, as_json: bool) -> None:
    if as_json:
        return _emit(document)
    if not document.get("running", True):
        print(f"no server running for {document['home']}")
        return
    print(f"alaya server {document['version']} · pid {document['pid']} · {document['home']}\n"
          f"up {document['uptime_s']:.0f} s · {document['requests_served']} requests · "
          f"{document['rss_mb']:.0f} MB resident (peak {document['peak_rss_mb']:.0f} MB) · "
          f"graph snapshot {document['graph_snapshot']}")


from . import agent_commands  # noqa: E402,F401  (registers mcp, sync, skill)
