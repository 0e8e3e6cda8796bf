"""The owner server's ``cli`` method: a client's command line, parsed and run in the server by the same Typer
app the client would otherwise run itself.

Loaded by the server through the ``alaya.server_methods`` entry point (the server knows no face by name). Each
request runs on the server's own thread pool with a :class:`~.terminal.Forwarded` terminal: what the command
prints streams back as ``out``/``err`` messages, and its backend is the server's engine. The result is the exit
code, or a request to the client — run the command yourself, or send stdin.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from . import terminal
from .argv import command_name

if TYPE_CHECKING:
    from collections.abc import Callable

    from alaya_engine.engine import Engine

READS = frozenset({"recall", "trace", "status", "schema", "version"})
"""Commands that only read: they run in the server's read pool, beside other recalls, never behind a long job."""


class ForwardedCommandLine:
    def __init__(self):
        self._command = None

    def route(self, params: dict) -> str:
        return "read" if command_name([str(arg) for arg in params.get("argv") or []]) in READS else "write"

    def run(self, engine: Engine, params: dict, send: Callable[[dict], bool]) -> dict:
        from alaya_engine.server.backend import LocalBackend

        argv = params.get("argv")
        if not isinstance(argv, list) or not all(isinstance(arg, str) for arg in argv):
            return {"exit": 2}
        forwarded = terminal.Forwarded(params, send, LocalBackend(engine.layout.home, engine))
        token = terminal.use(forwarded)
        try:
            self.command().main(args=argv, prog_name="alaya")
            code = 0
        except SystemExit as exit_:
            code = exit_.code if isinstance(exit_.code, int) else 1
        except terminal.RunInClient:
            return {"run_in_client": True}
        except terminal.StdinWanted as wanted:
            return {"stdin_wanted": wanted.limit}
        finally:
            forwarded.flush()
            terminal.release(token)
        return {"exit": code}

    def command(self):
        """The app's click command, built once: Typer rebuilds it from the functions' signatures on every call
        (46 of the 50 ms a forwarded ``trace`` took in the server)."""
        if self._command is None:
            from typer.main import get_command

            from .app import app

            self._command = get_command(app)
        return self._command


PLUGINS_SWITCH = "PYDANTIC_DISABLE_PLUGINS"
"""Typer (0.29) sets this variable while it converts a parameter and deletes it afterwards when it was unset: two
commands parsed at once in the server's threads deleted it twice, and the second failed with ``KeyError``. Set for
the server's whole life, Typer puts back the value it found instead of deleting it. Pydantic then loads no plugins
in the server, which Alaya has none of."""


def keep_typer_thread_safe() -> None:
    os.environ.setdefault(PLUGINS_SWITCH, "1")


def extension() -> ForwardedCommandLine:
    """The entry point: from now on ``print`` and Typer's own messages reach the client of the thread's request."""
    keep_typer_thread_safe()
    if not isinstance(sys.stdout, terminal.ThreadStream):
        sys.stdout = terminal.ThreadStream("stdout", sys.stdout)
        sys.stderr = terminal.ThreadStream("stderr", sys.stderr)
    return ForwardedCommandLine()
