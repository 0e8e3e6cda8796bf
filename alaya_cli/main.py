"""Entry point of the ``alaya`` console script: forward the command line to the store's owner server, else run
it here.

The client parses nothing: it reads ``--home`` (which store's server), ``--no-server`` and the command's name,
and hands the whole argv to :func:`alaya_engine.server.bare_client.forward`. The server parses it with the same
Typer app this process would use (:mod:`.app`), so every command an agent or cron runs — ``recall``, ``trace``,
``status``, ``sync openclaw``, ``ingest`` — costs about what starting Python costs when a server is up. The app
runs here when none is (it then starts one the first time a command needs the store, so the next command is
forwarded; a ``sync`` with nothing new never does), when the server runs another version (the app restarts
it), for :data:`RUN_HERE`, and when the server hands a command back because it must run in this process.
"""

from __future__ import annotations

import os
import sys

FORWARDED_ENV = ("HOME", "ALAYA_HOME", "OPENCLAW_STATE_DIR", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "NO_COLOR", "TERM",
                 "COLUMNS")
"""The environment a forwarded command may read (paths, where the agent runtimes keep their state, how to draw)."""
RUN_HERE = frozenset({"init", "demo", "tui", "serve", "server", "mcp", "skill", "rebuild", "rebuild-l1"})
"""Commands that always run in this process, whatever the server: they create a store, open a terminal app or
a stdio server, start, stop or stand in for the server (``server restart`` must work when it is stuck), or
replace the layers under it. The command's name is all the client reads of the rest of the line."""


def main() -> None:
    try:
        try:
            argv = sys.argv[1:]
            code = forward(argv)
            if code is None:
                code = run_here(argv)
        except SystemExit as exit_:
            code = exit_.code
        sys.stdout.flush()  # here, not at exit, where a closed pipe would print "Exception ignored ..."
    except BrokenPipeError:
        code = closed_stdout()
    sys.exit(code)


def forward(argv: list[str]) -> int | None:
    """The command's exit code from the owner server, or None to run it in this process."""
    from alaya_engine.server import bare_client as bare

    from .argv import home_option

    options = argv[:argv.index("--")] if "--" in argv else argv
    if "--no-server" in options or bare.server_disabled() or command_name(options) in RUN_HERE:
        return None
    home = bare.store_home(home_option(argv))
    if not os.path.isfile(os.path.join(home, "store.json")):
        return None  # no store yet: `init`, or the in-process path's "no store" error
    params = {"argv": argv, "cwd": os.getcwd(), "tty": [_isatty(0), _isatty(1), _isatty(2)],
              "width": _width(), "env": {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}}
    outcome = bare.forward(home, params)
    if isinstance(outcome, tuple):  # the command reads stdin: send it along
        params["stdin_b64"] = _stdin_b64(outcome[1])
        outcome = bare.forward(home, params)
    return outcome if isinstance(outcome, int) else None


def command_name(options: list[str]) -> str:
    """The first word that is not an option (nor ``--home``'s value): the command."""
    from .argv import place_global_options

    words = place_global_options(options)
    if words[:1] == ["--home"]:
        words = words[2:]
    return next((word for word in words if not word.startswith("-")), "")


def run_here(argv: list[str]) -> int:
    from .app import app

    try:
        app(args=argv)
    except SystemExit as exit_:
        return exit_.code
    return 0


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _width() -> int | None:
    if _isatty(1):
        try:
            return os.get_terminal_size(1).columns
        except OSError:
            pass
    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() else None


def _stdin_b64(limit: int) -> str:
    import binascii

    return binascii.b2a_base64(sys.stdin.buffer.read(limit), newline=False).decode("ascii")


def closed_stdout() -> int:
    """The reader went away (``alaya recall --json | head -c 200``): like any Unix tool, stop without a word.

    stdout is pointed at /dev/null so the interpreter's last flush of what is still buffered cannot fail again.
    """
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


if __name__ == "__main__":
    main()
