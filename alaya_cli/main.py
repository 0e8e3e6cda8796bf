"""What the ``alaya`` command runs (``scripts/alaya``): forward the command line to the store's owner server, else run
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
    """Forward, else run here. A forwarded command's process ends with ``os._exit`` once its output is flushed:
    it holds nothing to clean up (a socket the kernel closes), and the interpreter's teardown took 1.3-1.5 ms of a
    forwarded command's 14-21 ms."""
    forwarded = False
    try:
        try:
            argv = sys.argv[1:]
            try:
                code = forward(argv)
            except KeyboardInterrupt:
                code = interrupted()
            forwarded = code is not None
            if code is None:
                code = run_here(argv)
        except SystemExit as exit_:
            code = exit_.code
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()  # here, not at exit, where a closed pipe would print "Exception ignored ..."
    except BrokenPipeError:
        code = closed_stdout()
    if forwarded:
        os._exit(code)
    sys.exit(code)


def forward(argv: list[str]) -> int | None:
    """The command's exit code from the owner server, or None to run it in this process."""
    from alaya_engine.server import bare_client as bare

    from .argv import command_name, home_option

    options = argv[:argv.index("--")] if "--" in argv else argv
    if "--no-server" in options or bare.server_disabled() or command_name(options) in RUN_HERE:
        return None
    try:
        home = bare.store_home(home_option(argv))
    except OSError:  # a relative --home in a deleted working folder: the in-process path says so
        return None
    if not os.path.isfile(os.path.join(home, "store.json")):
        return None  # no store yet: `init`, or the in-process path's "no store" error
    params = {"argv": argv, "cwd": _cwd(), "tty": [_isatty(0), _isatty(1), _isatty(2)],
              "width": _width(), "env": {name: os.environ[name] for name in FORWARDED_ENV if name in os.environ}}
    outcome = bare.forward(home, params)
    if isinstance(outcome, tuple):  # the command reads stdin: send it along
        params["stdin_b64"] = _stdin_b64(outcome[1])
        outcome = bare.forward(home, params)
    return outcome if isinstance(outcome, int) else None


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


def _cwd() -> str | None:
    """The working folder, or None when it was deleted (a command that names a relative path is then told so)."""
    try:
        return os.getcwd()
    except OSError:
        return None


def _stdin_b64(limit: int) -> str:
    """Up to ``limit`` bytes of stdin (none when fd 0 is closed: Python then has no ``sys.stdin``)."""
    import binascii

    data = sys.stdin.buffer.read(limit) if sys.stdin is not None else b""
    return binascii.b2a_base64(data, newline=False).decode("ascii")


def closed_stdout() -> int:
    """The reader went away (``alaya recall --json | head -1``): like any Unix tool, stop without a word, and
    without calling it a failure, since the reader took what it wanted.

    stdout is pointed at /dev/null so the interpreter's last flush of what is still buffered cannot fail again.
    """
    if sys.stdout is not None:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def interrupted() -> int:
    """Ctrl-C while the server ran the command: the client stops waiting, the server does not stop the command.

    A command still queued is dropped (the server sees the client gone and never starts it); one already running
    runs to its end, since a write cut at an arbitrary step would leave work half done. Reads cost nothing to
    finish. Exit 130, as for any interrupted command."""
    sys.stderr.write("interrupted: if the server had started this command, it finishes it "
                     "(see: alaya server status)\n")
    return 130


if __name__ == "__main__":
    main()
