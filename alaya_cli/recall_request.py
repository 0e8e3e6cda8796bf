"""Turn command-line options or stdin into a recall request document."""

from __future__ import annotations

from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.json_input import JsonInputError, load_json


def request_from_options(**options) -> dict:
    """Only the options actually given; the engine applies the defaults."""
    return {key: value for key, value in options.items() if value is not None}


STDIN_LIMIT = 64 * 1024 * 1024
"""A request read from stdin is JSON of a few hundred bytes; this only bounds a runaway pipe."""


def read_stdin() -> str:
    """stdin as text whatever its bytes: undecodable ones survive as surrogates that validation then refuses
    (``bad_query``, exit 2), instead of a UnicodeDecodeError before the request is even parsed."""
    from . import terminal

    return terminal.current().read_stdin(STDIN_LIMIT).decode("utf-8", "surrogateescape")


def request_from_stdin(raw: str) -> dict:
    try:
        return load_json(raw)
    except JsonInputError as exc:
        raise AlayaError("bad_query", f"stdin is not valid JSON ({exc.reason}{exc.where}); "
                                      'send an object like {"concepts": ["..."]}') from None
