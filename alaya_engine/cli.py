"""Entry point of the ``alaya`` console script.

The hot paths — ``alaya recall ... --json`` and ``alaya status --json`` with a live (or, for recall, startable)
owner server — are answered here, before the full command line (Typer, rich) is imported: an agent calls recall
once per task and may check status as often, and each then costs little more than starting Python
(:mod:`alaya_engine.server.bare_client` first; for recall, the regular client when that declines). Anything else,
or anything this small parser is unsure about, goes to :mod:`alaya_engine.commands`, which has the last word on
syntax and errors.
"""

from __future__ import annotations

import sys

RECALL_OPTIONS = {"--concepts": "concepts", "--rel": "relations", "--depth": "depth", "--from-nodes": "from_nodes",
                  "--top-k": "top_k", "--types": "types", "--max-results": "max_results"}
INTEGER_OPTIONS = {"depth", "top_k", "max_results"}
RECALL_FLAGS = {"--sessions": ("include_sessions", True), "--no-sessions": ("include_sessions", False),
                "--memex": ("include_memex", True), "--no-memex": ("include_memex", False)}


def place_global_options(argv: list[str]) -> list[str]:
    """``argv`` with ``--home``/``--no-server`` moved before the command and ``--json`` after it.

    The README promises that every command takes them, and people type them on either side of the command
    (``alaya recall x --home H``, ``alaya --json status``); Typer accepts the first two only before the command and
    ``--json`` only after it. Nothing after ``--`` is touched.
    """
    front: list[str] = []
    rest: list[str] = []
    json_first = command_seen = False
    tokens = list(argv)
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token == "--":
            break
        if token == "--home" and index + 1 < len(tokens):
            front += tokens[index:index + 2]
            index += 2
            continue
        if token.startswith("--home=") or token == "--no-server":
            front.append(token)
        elif token == "--json" and not command_seen:
            json_first = True
        else:
            command_seen = command_seen or not token.startswith("-")
            rest.append(token)
        index += 1
    tail = tokens[index:]
    if json_first:
        (rest if command_seen else front).append("--json")
    return front + rest + tail


def parse_fast_call(argv: list[str]) -> tuple[str | None, str, dict] | None:
    """(home, method, params) for a plain ``recall ... --json`` or ``status --json`` (``--home H`` and ``--json``
    anywhere), or None to take the full path."""
    home, rest = None, place_global_options(argv)
    if rest[:1] == ["--home"] and len(rest) > 1:
        home, rest = rest[1], rest[2:]
    elif rest and rest[0].startswith("--home="):
        home, rest = rest[0].split("=", 1)[1], rest[1:]
    if rest == ["status", "--json"]:
        return home, "status", {}
    if rest[:1] != ["recall"] or "--json" not in rest:
        return None
    request: dict = {}
    tokens = iter(rest[1:])
    for token in tokens:
        if token == "--json":
            continue
        if token in RECALL_FLAGS:
            key, flag = RECALL_FLAGS[token]
            request[key] = flag
            continue
        key = RECALL_OPTIONS.get(token)
        if key is not None:
            value = next(tokens, None)
            if value is None or value.startswith("--"):
                return None
            if key in INTEGER_OPTIONS:
                if not value.lstrip("-").isdigit():
                    return None
                value = int(value)
            request[key] = value
        elif token.startswith("-") or "text" in request:
            return None
        else:
            request["text"] = token
    return home, "recall", {"request": request}


def fast_call(argv: list[str]) -> int | None:
    """Answer through the owner server; None when the full command line should handle it."""
    parsed = parse_fast_call(argv)
    if parsed is None:
        return None
    from .server.bare_client import bare_call, server_disabled

    home, method, params = parsed
    if params != {"request": {}}:  # a recall without arguments reads stdin, which the regular client does
        answered = bare_call(home, method, params)
        if answered is not None:
            return answered
    if method != "recall":
        return None
    from .errors import AlayaError, report_error
    from .paths import Layout, resolve_home
    from .privacy import create_privately
    from .server.client import call_with_restart, connect, read_server_settings
    from .server.protocol import render

    request = params["request"]
    layout = Layout(resolve_home(home))
    if server_disabled() or not layout.is_initialised():
        return None
    autostart, start_timeout = read_server_settings(layout.home)
    create_privately()  # starting a server creates its log file
    try:
        client = connect(layout.home, autostart=autostart, timeout=start_timeout)
        if client is None:
            return None
        if not request and not sys.stdin.isatty():
            from .recall_request import read_stdin, request_from_stdin

            request = request_from_stdin(read_stdin())
        result = call_with_restart(client, "recall", {"request": request}, None, autostart, start_timeout)
    except AlayaError as error:
        return report_error(error, wants_json=True)
    print(render(result))
    return 0


def main() -> None:
    try:
        try:
            code = fast_call(sys.argv[1:])
            if code is None:
                from .commands import app

                app()
        except SystemExit as exit_:
            code = exit_.code
        sys.stdout.flush()  # here, not at exit, where a closed pipe would print "Exception ignored ..."
    except BrokenPipeError:
        code = closed_stdout()
    sys.exit(code)


def closed_stdout() -> int:
    """The reader went away (``alaya recall --json | head -c 200``): like any Unix tool, stop without a word.

    stdout is pointed at /dev/null so the interpreter's last flush of what is still buffered cannot fail again.
    """
    import os

    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 1


if __name__ == "__main__":
    main()
