"""The query bar's small syntax, turned into the same recall request document ``alaya recall --json`` takes.

Plain text is free text (``{"text": ...}``). Segments separated by ``|`` that start with a known key are
structured fields, e.g. ``concepts: gateway restart, telegram | rel: CAUSED_BY | depth: 2``; a segment without
a known key is free text. Keys (with their short forms):

``concepts`` (``c``) · ``rel`` (``rels``, ``relations``) · ``depth`` (``d``) · ``from`` (``from_nodes``) ·
``types`` (``type``) · ``top_k`` (``top``) · ``max`` (``max_results``) · ``text``

The engine validates the request; this module only splits the line, so every message about a bad value comes
from the engine, as it would for an agent.
"""

from __future__ import annotations

import re

LIST_FIELDS = ("concepts", "from_nodes", "relations", "types")
INT_FIELDS = ("depth", "top_k", "max_results")
_KEYS = {
    "text": "text",
    "concepts": "concepts", "concept": "concepts", "c": "concepts",
    "rel": "relations", "rels": "relations", "relation": "relations", "relations": "relations",
    "depth": "depth", "d": "depth",
    "from": "from_nodes", "from_nodes": "from_nodes",
    "types": "types", "type": "types",
    "top_k": "top_k", "top": "top_k",
    "max": "max_results", "max_results": "max_results",
}
_SHORT = {"text": "text", "concepts": "concepts", "from_nodes": "from", "relations": "rel", "depth": "depth",
          "types": "types", "top_k": "top_k", "max_results": "max"}
_SEGMENT = re.compile(r"^\s*([A-Za-z_]+)\s*:\s*(.*?)\s*$", re.S)
_LIST_SPLIT = re.compile(r"[,，]")

SYNTAX_HELP = "free text, or  concepts: a, b | rel: CAUSED_BY | depth: 2  (also from:, types:, top:, max:)"


class QuerySyntaxError(ValueError):
    """The line cannot be turned into a request (e.g. ``depth: two``)."""


def parse_query(line: str) -> dict:
    """The recall request for one line of the query bar; an empty line gives an empty request."""
    line = line.strip()
    if not line:
        return {}
    request: dict = {}
    words: list[str] = []
    structured = False
    for segment in line.split("|"):
        match = _SEGMENT.match(segment)
        field = _KEYS.get(match.group(1).lower()) if match else None
        if field is None:
            if segment.strip():
                words.append(segment.strip())
            continue
        structured = True
        value = match.group(2)
        if field in LIST_FIELDS:
            items = [item.strip() for item in _LIST_SPLIT.split(value) if item.strip()]
            request[field] = request.get(field, []) + items
        elif field in INT_FIELDS:
            try:
                request[field] = int(value)
            except ValueError:
                raise QuerySyntaxError(f"'{match.group(1)}' must be a whole number, got '{value}'") from None
        elif value:
            words.append(value)
    if not structured:
        return {"text": line}
    if words:
        request = {"text": " | ".join(words), **request}
    return request


def format_query(request: dict) -> str:
    """The query-bar line for a request (the inverse of :func:`parse_query` for what it produces)."""
    if set(request) <= {"text"}:
        return request.get("text") or ""
    parts = []
    for field, short in _SHORT.items():
        if field not in request or request[field] in (None, [], ""):
            continue
        value = request[field]
        parts.append(f"{short}: {', '.join(value) if isinstance(value, list) else value}")
    return " | ".join(parts)
