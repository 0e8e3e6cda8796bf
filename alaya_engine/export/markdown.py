"""Cards as Markdown files with YAML front matter, linked by ``[[wikilinks]]``: an Obsidian/memex vault.

File names: ``<title slug>-<card id without "card-">.md`` under ``cards/<type>/``, e.g.
``cards/gotcha/gateway-重启后-telegram-消息丢失-3ef7d74365696dbe.md``. The slug keeps letters of any
script, lowercases ASCII, turns runs of spaces, control characters (a NUL cannot be in a file name) and
characters that break file names or links (``/ \\ : * ? " < > | # ^ [ ] `` ``) into ``-``, drops the invisible
bidirectional controls (U+202E shows ``txt.exe`` as ``exe.txt``: a name must read as it is) and stops at 60
characters and 200 bytes (a name has at most 255; four-byte characters would pass it); the id makes every name
unique across folders (Obsidian resolves a ``[[name]]`` by file name wherever the file is) and stable
while the title does not change. Links are ``[[file name|title]]``.
"""

from __future__ import annotations

import re
from typing import Any

from ..foundations.domain import CARD_TYPES

FRONT_MATTER_FIELDS = ("id", "title", "type", "tags", "aliases", "temperature", "tier", "importance", "source",
                       "source_sessions", "created", "updated", "access_count", "last_accessed", "facts")
"""Front matter keys, in order; ``aliases`` holds the title, so ``[[title]]`` also finds the card in Obsidian."""
SLUG_CHARS = 60
SLUG_BYTES = 200
_BREAKS_NAMES = re.compile(r"[\s\x00-\x1f\x7f/\\:*?\"<>|#^\[\]`%!{}]+")
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def file_stem(card_id: str, title: str) -> str:
    slug = _name_part(_lower_ascii(title))
    slug = slug.strip("-.")[:SLUG_CHARS].encode("utf-8")[:SLUG_BYTES].decode("utf-8", "ignore").strip("-.")
    suffix = _name_part(card_id.removeprefix("card-")).strip(".")
    return f"{slug}-{suffix}" if slug else suffix


def type_folder(card_type: str) -> str:
    """``cards/<type>/``; a type outside the four (never written by Alaya itself) goes to ``other``."""
    return card_type if card_type in CARD_TYPES else "other"


def wikilink(stem: str, title: str) -> str:
    label = " ".join(title.replace("|", "/").replace("[", "(").replace("]", ")").split())
    return f"[[{stem}|{label}]]"


def card_document(card: dict[str, Any], outgoing: list[dict[str, Any]], stems: dict[str, str]) -> str:
    """One card file: front matter, title, content, and its outgoing relations as wikilinks."""
    import yaml

    front = {
        "id": card["id"], "title": card["title"], "type": card["type"], "tags": list(card["tags"] or []),
        "aliases": [card["title"]], "temperature": card["temperature"], "tier": card["tier"],
        "importance": card["importance"], "source": card["source"],
        "source_sessions": list(card["source_sessions"] or []), "created": card["created_at"],
        "updated": card["updated_at"], "access_count": card["access_count"], "last_accessed": card["last_accessed"],
        "facts": list(card["facts"] or []),
    }
    parts = ["---\n" + yaml.safe_dump(front, allow_unicode=True, sort_keys=False, width=1_000_000) + "---\n",
             f"# {' '.join(card['title'].split())}\n", card["content"].strip() + "\n"]
    if outgoing:
        lines = []
        for edge in sorted(outgoing, key=lambda e: (e["relation"], stems[e["target"]])):
            reason = f" — {' '.join(edge['reason'].split())}" if edge["reason"] else ""
            lines.append(f"- {edge['relation']} {wikilink(stems[edge['target']], edge['target_title'])}{reason}")
        parts.append("## Links\n\n" + "\n".join(lines) + "\n")
    return "\n".join(parts)


def index_document(cards: list[dict[str, Any]], stems: dict[str, str], header: str) -> str:
    """``index.md``: every card, grouped by type (the four types first), by title within a type."""
    by_type: dict[str, list[dict]] = {card_type: [] for card_type in CARD_TYPES}
    for card in cards:
        by_type.setdefault(card["type"], []).append(card)
    parts = ["# Alaya export\n", header + "\n"]
    for card_type, members in by_type.items():
        lines = [f"- {wikilink(stems[c['id']], c['title'])} · {c['tier']} · {c['temperature']:.2f}"
                 for c in sorted(members, key=lambda c: (c["title"].lower(), c["id"]))]
        parts.append(f"## {card_type} ({len(members)})\n" + ("\n" + "\n".join(lines) + "\n" if lines else ""))
    return "\n".join(parts)


def _name_part(text: str) -> str:
    return _BREAKS_NAMES.sub("-", _BIDI_CONTROLS.sub("", text))


def _lower_ascii(text: str) -> str:
    return "".join(ch.lower() if ch.isascii() else ch for ch in text)
