"""Where the global options sit in a command line: the one thing the client reads of it (``--home`` names the
store whose server gets the rest, ``--no-server`` keeps it here); everything else is parsed by the app."""

from __future__ import annotations


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


def home_option(args: list[str]) -> str | None:
    """``--home``'s value (the last one given, as the parser takes it) in a command line before or after Typer
    parsed it; nothing after ``--``."""
    value = None
    position = 0
    while position < len(args) and args[position] != "--":
        arg = args[position]
        if arg == "--home" and position + 1 < len(args):
            value = args[position + 1]
            position += 1
        elif arg.startswith("--home="):
            value = arg.split("=", 1)[1]
        position += 1
    return value


def command_name(argv: list[str]) -> str:
    """The command's name: the first word that is not an option nor ``--home``'s value ("" when there is none)."""
    words = place_global_options(argv)
    position = 0
    while position < len(words) and words[position] == "--home":
        position += 2
    return next((word for word in words[position:] if not word.startswith("-")), "")
