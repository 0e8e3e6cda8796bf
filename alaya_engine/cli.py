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
    as_json: JsonFlag = False,
) -> None:
    """Store sessions in L3 (atomically) and create their Session nodes in the graph."""
    from .engine import Engine
    from .views import print_ingest, progress_bar

    engine = Engine.open(_home(ctx))
    stdin = sys.stdin.buffer.read() if "-" in paths else None
    with progress_bar("Ingesting", enabled=not as_json) as advance:
        report = engine.ingest(paths, replace=replace, stdin=stdin, progress=advance)
    if as_json:
        _emit(report.to_json())
    else:
        print_ingest(_console(), report, home=engine.layout.home)
    for outcome in report.outcomes:
        if outcome.error:
            print(f"error: {outcome.source}: {outcome.error['message']}", file=sys.stderr)
    if report.refused:
        codes = {outcome.error["code"] for outcome in report.outcomes if outcome.error}
        raise typer.Exit(RUNTIME if codes == {"io_error"} else USAGE)


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
