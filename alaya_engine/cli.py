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
RECALL_FLAGS = {"--sessions": ("include_sessions", True), "--no-sessions": ("include_sessions", False)}


def parse_fast_call(argv: list[str]) -> tuple[str | None, str, dict] | None:
    """(home, method, params) for a plain ``[--home H] recall ... --json`` or ``[--home H] status --json``, or None
    to take the full path."""
    home, rest = None, list(argv)
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
    code = fast_call(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from .commands import app

    app()


if __name__ == "__main__":
    main()
