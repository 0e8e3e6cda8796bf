"""Turn command-line options or stdin into a recall request document (shared by both CLI paths)."""

from __future__ import annotations

import json

from .errors import AlayaError


def request_from_options(**options) -> dict:
    """Only the options actually given; the engine applies the defaults."""
    return {key: value for key, value in options.items() if value is not None}


def request_from_stdin(raw: str) -> dict:
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise AlayaError("bad_query", f"stdin is not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); "
                                      'send an object like {"concepts": ["..."]}') from None
