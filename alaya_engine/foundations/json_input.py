"""JSON from outside Alaya (session files, stdin, ``config.json``, model answers), decoded without surprises.

``json.loads`` fails in more ways than :class:`json.JSONDecodeError`: nesting deeper than the
recursion limit raises ``RecursionError``, an integer of more than 4300 digits a bare
``ValueError``. It also accepts ``NaN``, ``Infinity`` and ``1e999``, which are not JSON and which
no other tool reads back. And JSON's ``\\uD83D`` escapes can spell lone surrogates, which no UTF-8
file can hold, so the first write of such a string would fail far from the input that caused it
(a truncated emoji in a Node.js transcript is enough). Here every decoding failure is a
:class:`JsonInputError` with a plain reason, non-finite numbers are refused unless the caller is
lenient (model answers), and lone surrogates become U+FFFD.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


class JsonInputError(ValueError):
    """Text that is not usable JSON; ``line``/``column`` are known for syntax errors."""

    def __init__(self, reason: str, line: int | None = None, column: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.line = line
        self.column = column

    @property
    def where(self) -> str:
        """`` at line L column C`` when known, else empty: ready to append to a message."""
        return f" at line {self.line} column {self.column}" if self.line else ""


def _refuse_constant(name: str) -> float:
    raise JsonInputError(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise JsonInputError(f"number {text[:24]} is too large")
    return value


_STRICT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=_finite_float)
_LENIENT = json.JSONDecoder()


def load_json(text: str, strict: bool = True) -> Any:
    """The one JSON value ``text`` holds (``strict=False`` lets NaN and Infinity through)."""
    return decode_at(text, 0, strict=strict, whole=True)[0]


def decode_at(text: str, start: int, strict: bool = True, whole: bool = False) -> tuple[Any, int]:
    """The JSON value starting at ``start`` and where it ends (``whole``: it must fill ``text``)."""
    decoder = _STRICT if strict else _LENIENT
    try:
        value, end = (decoder.decode(text), len(text)) if whole else decoder.raw_decode(text, start)
        if _SURROGATE_ESCAPE.search(text, start, end):
            value = without_lone_surrogates(value)
    except JsonInputError:
        raise
    except json.JSONDecodeError as exc:
        raise JsonInputError(exc.msg, exc.lineno, exc.colno) from None
    except RecursionError:
        raise JsonInputError("nested too deeply") from None
    except ValueError as exc:  # the int-digits limit, the one other failure of the decoder
        raise JsonInputError(str(exc).split(":")[0].lower()) from None
    return value, end


def without_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (and keys) replaced by U+FFFD."""
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [without_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {without_lone_surrogates(key): without_lone_surrogates(item) for key, item in value.items()}
    return value


def has_lone_surrogate(text: str) -> bool:
    """True for text that cannot be encoded as UTF-8 (e.g. undecodable bytes of a command-line argument)."""
    return _LONE_SURROGATE.search(text) is not None
