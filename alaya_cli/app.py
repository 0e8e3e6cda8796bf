"""The ``alaya`` command line (Typer): the one parser of every command, in the owner server for a forwarded
command line and in this process otherwise.

The commands live in :mod:`.store_commands`, :mod:`.admin_commands` and :mod:`.agent_commands` and are added
here. Errors never show a traceback: one line on stderr, exit code 2 for bad input and 1 for runtime failures,
and with ``--json`` the same error as ``{"error": {...}}`` on stdout.
"""

from __future__ import annotations

import logging
import sys
from typing import Annotated, Optional

import typer
from typer.core import TyperGroup

from alaya_engine.foundations.errors import RUNTIME, USAGE, AlayaError, report_error
from alaya_engine.foundations.privacy import create_privately

from . import admin_commands, agent_commands, store_commands, team_commands
from .argv import command_name, home_option, place_global_options
from .shared import say
from .terminal import RunInClient, StdinWanted

log = logging.getLogger(__name__)
for package in ("alaya_engine", "alaya_cli"):
    logging.getLogger(package).addHandler(logging.NullHandler())
"""Before the store's log file is set up, an error logged on the way out must not reach the terminal as a
traceback (logging's last-resort handler would print it): the command has already shown its one line."""


COMMAND_ORDER = ("init", "demo", "ingest", "distill", "recall", "trace", "schema", "link", "unlink", "status",
                 "introspect",
                 "review", "restore", "verify", "rebuild", "rebuild-l1", "backup", "export", "import-memex", "sync",
                 "remote", "push", "pull",
                 "mcp", "skill", "tui", "serve", "server", "version")
"""``alaya --help`` lists commands in the order of a memory's life, not the order they are defined in."""


class _OutputClosed(Exception):
    """stdout's reader went away (``| head``). Carried past click, which turns a broken pipe into exit code 1:
    the reader took what it wanted, so the command ends quietly with 0 (:func:`alaya_cli.main.closed_stdout`)."""


class AlayaGroup(TyperGroup):
    """Runs a command and maps every failure to one line and an exit code."""

    def list_commands(self, ctx) -> list[str]:
        names = super().list_commands(ctx)
        rank = {name: position for position, name in enumerate(COMMAND_ORDER)}
        return sorted(names, key=lambda name: (rank.get(name, len(rank)), name))

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            raise _OutputClosed from None

    def main(self, args=None, prog_name=None, complete_var=None, standalone_mode=True, **extra):
        args = place_global_options(sys.argv[1:] if args is None else args)
        wants_json = "--json" in args
        if not command_name(args):  # `alaya`, `alaya --home H`: the usage, as for any group given no command
            args = [*args, "--help"]
        create_privately()
        try:
            result = super().main(args=args, prog_name=prog_name or "alaya", standalone_mode=False, **extra)
            code = result if isinstance(result, int) else 0
        except AlayaError as error:
            code = report_error(error, wants_json)
        except typer.TyperException as error:
            context = getattr(error, "ctx", None)
            if context is not None and error.format_message() == context.get_help():
                say(context.get_help())  # a group given no command (`alaya review`): its usage, in full
                code = 0
            else:
                hint = f"; see: {context.command_path} --help" if context else ""
                code = report_error(AlayaError("usage", f"{error.format_message().rstrip('.')}{hint}", USAGE),
                                    wants_json)
        except typer.Exit as exit_:
            code = exit_.exit_code
        except _OutputClosed:
            raise BrokenPipeError from None  # a closed stdout ends quietly (alaya_cli.main)
        except (RunInClient, StdinWanted):
            raise  # answers to the server
        except (typer.Abort, KeyboardInterrupt):
            say("aborted", error=True)
            code = 130
        except Exception as error:  # the last line of defence: log the traceback, show one line
            from alaya_engine.foundations.disk import disk_full, is_disk_full

            from .terminal import current

            home = current().home(home_option(args))
            if is_disk_full(error, home):
                sys.exit(report_error(disk_full(error, home), wants_json))
            log.exception("unexpected failure")
            code = report_error(AlayaError("internal", f"unexpected {type(error).__name__}: {error}; "
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


@app.callback()
def _global(
    ctx: typer.Context,
    home: Annotated[Optional[str], typer.Option("--home", metavar="PATH",
                                                 help="Store folder (default: $ALAYA_HOME or ~/.alaya).")] = None,
    no_server: Annotated[bool, typer.Option("--no-server", help="Run in this process under the store lock instead "
                                                                "of through the owner server "
                                                                "(also ALAYA_NO_SERVER=1).")] = False,
) -> None:
    from .terminal import current

    ctx.obj = {"home": current().home(home), "home_option": home, "no_server": no_server}


for module in (store_commands, admin_commands, agent_commands, team_commands):
    app.add_typer(module.commands)
