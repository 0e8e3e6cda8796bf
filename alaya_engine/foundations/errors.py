"""One error type for everything a user can get wrong or the store can refuse.

The CLI turns an :class:`AlayaError` into one line on stderr (and a JSON
object with ``--json``) and the exit code it carries, so no command ever shows
a traceback for a condition we anticipated.
"""

from __future__ import annotations

import json
import sys

USAGE = 2
"""Exit code for bad input: the user can fix it by changing what they typed."""

RUNTIME = 1
"""Exit code for failures of the environment: locks, network, disk."""

REDACTED = "[REDACTED]"
_SECRETS: set[str] = set()


class AlayaError(Exception):
    """A failure with a stable machine-readable code and a one-line message."""

    def __init__(self, code: str, message: str, exit_code: int = USAGE):
        message = _without_secrets(one_line(message))
        super().__init__(message)
        self.code = code
        self.message = message
        self.exit_code = exit_code

    def to_json(self) -> dict:
        return {"error": {"code": self.code, "message": self.message}}


def hide_secrets(secrets: list[str]) -> None:
    """Never show these values (API keys) in an error message of this process, whatever text it quotes."""
    _SECRETS.update(secret for secret in secrets if len(secret) >= 4)


def _without_secrets(text: str) -> str:
    for secret in _SECRETS:
        text = text.replace(secret, REDACTED)
    return text


def one_line(text: str) -> str:
    """``text`` with its line breaks folded into spaces: an error is one line, whatever it quotes."""
    return " ".join(line.strip() for line in text.splitlines() if line.strip())


def report_error(error: AlayaError, wants_json: bool) -> int:
    """Print ``error`` the CLI way (JSON on stdout when asked, one line on stderr); returns the exit code."""
    if wants_json:
        print(json.dumps(error.to_json(), ensure_ascii=False))
    print(f"error: {error.message}", file=sys.stderr)
    return error.exit_code
