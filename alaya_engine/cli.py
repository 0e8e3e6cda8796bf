"""``alaya``: the command line, a thin layer over :class:`~alaya_engine.engine.Engine`.

Every command prints what the engine returned: human text by default, the
engine's own JSON with ``--json``. Errors never show a traceback: one line on
stderr, exit code 2 for bad input and 1 for runtime failures, and with
``--json`` the same error as ``{"error": {...}}`` on stdout.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from . import __version__
from .errors import RUNTIME, USAGE, AlayaError

log = logging.getLogger(__name__)


def _report(error: AlayaError, wants_json: bool) -> int:
    if wants_json:
        print(json.dumps(error.to_json(), ensure_ascii=False))
    print(f"error: {error.message}", file=sys.stderr)
    return error.exit_code


class AlayaGroup(TyperGroup):
    """Runs a command and maps every failure to one line and an exit code."""

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = list(sys.argv[1:] if args is None else args)
        wants_json = "--json" in args
        try:
            result = super().main(args=args, prog_name=prog_name or "alaya", standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except AlayaError as error:
            code = _report(error, wants_json)
        except typer.TyperException as error:
            context = getattr(error, "ctx", None)
            hint = f"; see: {context.command_path} --help" if context else ""
            code = _report(AlayaError("usage", f"{error.format_message().rstrip('.')}{hint}", USAGE), wants_json)
        except typer.Exit as exit_:
            code = exit_.exit_code
        except (typer.Abort, KeyboardInterrupt):
            print("aborted", file=sys.stderr)
            code = 130
        except Exception as error:  # the last line of defence: log the traceback, show one line
            log.exception("unexpected failure")
            code = _report(AlayaError("internal", f"unexpected {type(error).__name__}: {error}; "
                                                  "details are in the log file", RUNTIME), wants_json)
        sys.exit(code)


app = typer.Typer(
    cls=AlayaGroup,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Alaya: local-first long-term memory for AI agents (L3 raw sessions, L2 graph, L1 vectors).",
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable contract).")]


@app.callback()
def _global(
    ctx: typer.Context,
    home: Annotated[Optional[str], typer.Option("--home", help="Store folder (default: $ALAYA_HOME or ~/.alaya).",
                                                 metavar="PATH")] = None,
) -> None:
    ctx.obj = {"home": home}


def _home(ctx: typer.Context) -> Optional[str]:
    return ctx.obj["home"]


def _emit(document: dict) -> None:
    print(json.dumps(document, ensure_ascii=False, indent=2, default=str))


def _console(stderr: bool = False):
    from rich.console import Console

    return Console(stderr=stderr, highlight=False, soft_wrap=True)


@app.command()
def version(as_json: JsonFlag = False) -> None:
    """Print Alaya's version."""
    _emit({"version": __version__}) if as_json else print(f"alaya {__version__}")


@app.command()
def init(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create the store: folders, config.json, graph schema, LanceDB tables, core relation embeddings."""
    from .engine import Engine

    report = Engine.init(_home(ctx))
    if as_json:
        return _emit(report.to_json())
    from .views import print_init

    print_init(_console(), report)


@app.command()
def ingest(
    ctx: typer.Context,
    paths: Annotated[list[str], typer.Argument(help="Session files (JSON or OpenClaw JSONL), folders, or - for stdin.")],
    replace: Annotated[bool, typer.Option("--replace", help="Overwrite a stored session whose content changed.")] = False,
    distill_too: Annotated[bool, typer.Option("--distill", help="Distill what was ingested (also on when "
                                                                  "distill.auto_distill is true).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Store sessions in L3 (atomically) and create their Session nodes in the graph."""
    from .engine import Engine
    from .views import print_distill, print_ingest, progress_bar

    engine = Engine.open(_home(ctx))
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    with progress_bar("Ingesting", enabled=not as_json) as advance:
        report = engine.ingest(paths, replace=replace, stdin=stdin, progress=advance)
    distilled = None
    fresh = [o.session_id for o in report.outcomes if o.status in ("ingested", "replaced", "unchanged")]
    if fresh and (distill_too or engine.config["distill"]["auto_distill"]):
        with progress_bar("Distilling", enabled=not as_json) as advance:
            distilled = engine.distill(fresh, progress=advance)
    if as_json:
        _emit({**report.to_json(), "distill": distilled.to_json() if distilled else None})
    else:
        print_ingest(_console(), report, home=engine.layout.home)
        if distilled:
            print_distill(_console(), distilled)
    for outcome in report.outcomes:
        if outcome.error:
            print(f"error: {outcome.source}: {outcome.error['message']}", file=sys.stderr)
    if report.refused:
        codes = {outcome.error["code"] for outcome in report.outcomes if outcome.error}
        raise typer.Exit(RUNTIME if codes == {"io_error"} else USAGE)


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
    from .engine import Engine
    from .views import print_distill, progress_bar

    engine = Engine.open(_home(ctx))
    with progress_bar("Distilling", enabled=not as_json) as advance:
        report = engine.distill(session, force=force, dry_run=dry_run, progress=advance)
    if as_json:
        _emit(report.to_json())
    else:
        print_distill(_console(), report)
    for outcome in report.sessions:
        if outcome.status == "failed":
            print(f"error: {outcome.session_id}: {outcome.reason}", file=sys.stderr)
    if report.failed:
        raise typer.Exit(RUNTIME)


CsvOption = Optional[str]


@app.command()
def recall(
    ctx: typer.Context,
    text: Annotated[Optional[str], typer.Argument(help="Free text; split into concepts (see README).")] = None,
    concepts: Annotated[CsvOption, typer.Option("--concepts", help="Comma-separated concepts.")] = None,
    rel: Annotated[CsvOption, typer.Option("--rel", help="Comma-separated relations to follow.")] = None,
    depth: Annotated[Optional[int], typer.Option("--depth", help="Graph hops, 0–3.")] = None,
    from_nodes: Annotated[CsvOption, typer.Option("--from-nodes", help="Continue from these card ids.")] = None,
    top_k: Annotated[Optional[int], typer.Option("--top-k", help="Seeds from search.")] = None,
    types: Annotated[CsvOption, typer.Option("--types", help="Only these card types.")] = None,
    max_results: Annotated[Optional[int], typer.Option("--max-results", help="Cards to return.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Recall by navigation: concepts → nearest cards → graph paths, ranked by h-distance (seed 4.4).

    With --json and nothing else on the command line, the request is read as JSON from stdin.
    """
    from .engine import Engine

    request = {key: value for key, value in {
        "text": text, "concepts": concepts, "relations": rel, "depth": depth, "from_nodes": from_nodes,
        "top_k": top_k, "types": types, "max_results": max_results}.items() if value is not None}
    if not request and not sys.stdin.isatty():
        request = _stdin_request()
    result = Engine.open(_home(ctx)).recall(request)
    if as_json:
        return _emit(result.to_json())
    from .views import print_recall

    print_recall(_console(), result)


def _stdin_request() -> dict:
    raw = sys.stdin.read()
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise AlayaError("bad_query", f"stdin is not valid JSON ({exc.msg} at line {exc.lineno} column "
                                      f"{exc.colno}); send an object like {{\"concepts\": [\"...\"]}}") from None


@app.command()
def schema(
    ctx: typer.Context,
    relations: Annotated[bool, typer.Option("--relations", help="Relation types with their usage.")] = False,
    node_types: Annotated[bool, typer.Option("--node-types", help="Card types and session count.")] = False,
    json_schema: Annotated[Optional[str], typer.Option("--json-schema", metavar="NAME",
                                                       help="Print the JSON Schema of a --json contract (recall).")] = None,
    as_json: JsonFlag = False,
) -> None:
    """Show the data model: relation types (core and emergent), node types, or a JSON Schema (seed 4.5)."""
    if json_schema:
        from .schemas import json_schema as load_schema

        return _emit(load_schema(json_schema))
    from .engine import Engine
    from .views import print_node_types, print_relations

    engine = Engine.open(_home(ctx))
    shown = {}
    if relations or not node_types:
        shown["relations"] = engine.schema_relations()
    if node_types or not relations:
        shown["node_types"] = engine.schema_node_types()
    if as_json:
        return _emit({key: report.to_json() for key, report in shown.items()})
    console = _console()
    if "relations" in shown:
        print_relations(console, shown["relations"])
    if "node_types" in shown:
        print_node_types(console, shown["node_types"])


@app.command()
def trace(ctx: typer.Context, card_id: Annotated[str, typer.Argument(help="A card id, e.g. from recall.")],
          as_json: JsonFlag = False) -> None:
    """Trace a card back to its source sessions and the turns it came from (seed 4.6)."""
    from .engine import Engine

    report = Engine.open(_home(ctx)).trace(card_id)
    if as_json:
        return _emit(report.to_json())
    from .views import print_trace

    print_trace(_console(), report)


@app.command()
def link(
    ctx: typer.Context,
    source: Annotated[str, typer.Argument(help="Card id the edge starts from.")],
    target: Annotated[str, typer.Argument(help="Card id the edge points to.")],
    rel: Annotated[str, typer.Option("--rel", help="Relation type (custom names allowed).")] = "RELATES_TO",
    reason: Annotated[str, typer.Option("--reason", help="Why the two cards are related.")] = "",
    weight: Annotated[float, typer.Option("--weight", help="Strength, 0–1.")] = 1.0,
    as_json: JsonFlag = False,
) -> None:
    """Add a relation by hand (seed 4.8); symmetric relations get both directions."""
    from .engine import Engine

    links = Engine.open(_home(ctx)).link(source, target, rel, reason, weight)
    if as_json:
        return _emit({"links": [item.to_json() for item in links]})
    for item in links:
        print(f"✓ Created link: {item.source} {item.relation} {item.target}")


@app.command()
def skill() -> None:
    """Print the agent skill (SKILL.md) that teaches an agent to use Alaya."""
    from .skills import skill_text

    sys.stdout.write(skill_text())


@app.command()
def status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Counts per layer: sessions, cards per type, links per relation, vectors per tier, sizes on disk."""
    from .engine import Engine

    report = Engine.open(_home(ctx)).status()
    if as_json:
        return _emit(report.to_json())
    from .views import print_status

    print_status(_console(), report)


@app.command()
def demo(
    demo_home: Annotated[Optional[Path], typer.Option("--demo-home", metavar="PATH",
                                                      help="Where to build it (default: $ALAYA_DEMO_HOME or ~/.alaya-demo).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Delete an earlier demo store first.")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Build a demo memory from sample sessions shipped with Alaya (offline), then show it."""
    from .demo import build_demo

    report = build_demo(demo_home, fresh=fresh)
    if as_json:
        return _emit(report.to_json())
    from .views import print_demo

    print_demo(_console(), report)


@app.command()
def tui(ctx: typer.Context) -> None:
    """Open the Alaya explorer (a terminal app) on this store."""
    from alaya_tui.app import AlayaApp

    from .engine import Engine

    AlayaApp(Engine.open(_home(ctx))).run()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
