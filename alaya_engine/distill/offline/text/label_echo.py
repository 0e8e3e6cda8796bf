"""A labelled line that does not say its label twice: "**Cause:** The cause is …" reads "**Cause:** …"."""

from __future__ import annotations

import re

from .titles import title_width

ECHOES = {
    "Cause": re.compile(r"^(?:so,?\s+)?(?:the\s+)?(?:root\s+)?cause\s+(?:is|was)\s*:?\s*", re.IGNORECASE),
    "原因": re.compile(r"^(?:所以)?(?:根本)?原因(?:是|在于|就是)[:：，,]?\s*"),
    "Fix": re.compile(r"^(?:so,?\s+)?(?:the\s+)?fix\s+(?:is|was)\s*:?\s*(?:to\s+)?", re.IGNORECASE),
    "修复": re.compile(r"^(?:所以)?(?:修复|解决)(?:方法|方式|办法)?(?:是|为|就是)[:：，,]?\s*"),
}
"""What a line opens with that only repeats its label."""
PLAIN_WORD = re.compile(r"[a-z]+(?![\w./-])")
"""A first word that is no identifier: capitalised where the line's first word was ("proxy_read_timeout" stays)."""
KEPT_WIDTH = 12
"""What must be left for the echo to go ("The cause is this." stays)."""


def without_echo(label: str, text: str) -> str:
    """``text`` without an opening that repeats ``label``, its first word capitalised as the line's was."""
    echo = ECHOES.get(label)
    found = echo.match(text) if echo else None
    if not found or title_width(text[found.end():]) < KEPT_WIDTH:
        return text
    rest = text[found.end():]
    return rest[:1].upper() + rest[1:] if text[:1].isupper() and PLAIN_WORD.match(rest) else rest
