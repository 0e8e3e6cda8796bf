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


def emit(document: dict, error: dict | None = None) -> None:
    """A document exactly as ``--json`` prints it: indented on a terminal, one line into a pipe. ``error``: why
    the command fails although it has a report (files refused, sessions that failed to distill), beside the
    report as every failing command's ``{"error": ...}``."""
    where = terminal.current()
    where.stdout.write(render({**document, "error": error} if error else document, where.stdout_is_tty()) + "\n")


def say(text: str = "", error: bool = False) -> None:
    """One line for a person, on stdout (or stderr)."""
    where = terminal.current()
    (where.stderr if error else where.stdout).write(text + "\n")


def show(document: dict, as_json: bool, view: str, error: dict | None = None, **options) -> None:
    """Print ``document`` as JSON (with ``error``, see :func:`emit`), or through the named renderer in
    :mod:`alaya_cli.views` (with ``options``)."""
    if as_json:
        return emit(document, error)
    from . import views

    getattr(views, view)(terminal.current().console(), document, **options)


def store_home(ctx: typer.Context) -> Path:
    from alaya_engine.foundations.paths import Layout

    layout = Layout(ctx.obj["home"])
    layout.require_initialised()
    return layout.home


def refusal(items: list[dict], where: str, noun: str) -> dict | None:
    """The error of a run that refused some of its ``items`` (``noun``: files, transcripts; their ``where`` names
    one): the first refusal's code, and how many there were."""
    refused = [item for item in items if item["status"] == "refused"]
    if not refused:
        return None
    first = refused[0]
    return {"code": first["error"]["code"], "message": f"{len(refused)} of {len(items)} {noun} refused; first "
                                                      f"{first[where]}: {first['error']['message']}"}


def failed_distillation(report: dict | None) -> dict | None:
    """The error of a distillation some of whose sessions failed (``report``: its document, or None)."""
    failed = [outcome for outcome in (report or {}).get("sessions", ()) if outcome["status"] == "failed"]
    if not failed:
        return None
    first = failed[0]
    return {"code": "distill_failed", "message": f"{len(failed)} of {len(report['sessions'])} sessions failed to "
                                                 f"distill; first {first['session_id']}: {first['reason']}"}


def say_failed_sessions(report: dict | None) -> None:
    """One line on stderr for each session of a distillation (``report``: its document, or None) that failed."""
    for outcome in (report or {}).get("sessions", ()):
        if outcome["status"] == "failed":
            say(f"error: {outcome['session_id']}: {outcome['reason']}", error=True)
