"""What every command module shares: the ``--json`` flag, the one way to call the engine, the one way to print."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from alaya_engine.server.protocol import render

from . import terminal

RUNTIME_CODES = frozenset({"io_error", "store_damaged", "internal"})
"""Refusals that are the machine's fault, not the input's: exit code 1 when every refusal is one of them."""
JsonFlag = Annotated[bool, typer.Option("--json", help="Print the result as JSON (a stable contract).")]
CsvOption = Optional[str]


def call(ctx: typer.Context, method: str, params: dict | None = None, label: str | None = None,
         as_json: bool = False) -> dict:
    """Run one engine method through the right backend (the server's own engine when the command line was
    forwarded to it), with a progress bar for long jobs on a terminal."""
    from .views import progress_bar

    backend = terminal.current().backend or _open_backend(ctx)
    with progress_bar(label or method.capitalize(), enabled=bool(label) and not as_json) as advance:
        return backend.call(method, params or {}, advance)


def _open_backend(ctx: typer.Context):
    from alaya_engine.server.backend import open_backend

    return open_backend(ctx.obj["home"], ctx.obj["no_server"])


def emit(document: dict) -> None:
    """A document exactly as ``--json`` prints it: indented on a terminal, one line into a pipe."""
    where = terminal.current()
    where.stdout.write(render(document, where.stdout_is_tty()) + "\n")


def say(text: str = "", error: bool = False) -> None:
    """One line for a person, on stdout (or stderr)."""
    where = terminal.current()
    (where.stderr if error else where.stdout).write(text + "\n")


def show(document: dict, as_json: bool, view: str, **options) -> None:
    """Print ``document`` as JSON, or through the named renderer in :mod:`alaya_cli.views` (with ``options``)."""
    if as_json:
        return emit(document)
    from . import views

    getattr(views, view)(terminal.current().console(), document, **options)


def store_home(ctx: typer.Context) -> Path:
    from alaya_engine.foundations.paths import Layout

    layout = Layout(ctx.obj["home"])
    layout.require_initialised()
    return layout.home
