"""One memex card file → its parts: front matter, title, tags, type, times and wikilink targets.

Memex cards are Markdown with optional YAML front matter (``title``, ``created``,
``modified``, ``source``, ``category``, ``tags``, optional ``type``) and ``[[slug]]`` /
``[[slug|label]]`` links. Parsing is pure: no file system, no store.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

from ..foundations.domain import CARD_TYPES

TYPE_KEYWORDS: dict[str, tuple[str, ...]] = {
    "gotcha": ("gotcha", "pitfall", "bug", "error", "trap", "troubleshoot", "incident", "fix", "坑", "报错",
               "错误", "故障", "踩坑", "问题"),
    "decision": ("decision", "adr", "choice", "tradeoff", "trade-off", "决定", "决策", "选型", "取舍"),
    "pattern": ("pattern", "howto", "how-to", "recipe", "workflow", "playbook", "checklist", "practice",
                "procedure", "模式", "步骤", "流程", "套路", "最佳实践", "清单"),
}
"""Keywords that infer a card type when the front matter has no valid ``type`` (checked in this order)."""

ATTACHMENT_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp", ".pdf", ".mp3", ".mp4",
                                 ".webm", ".wav", ".ogg", ".m4a", ".mov", ".canvas", ".excalidraw", ".base"})
"""Links to these are attachments, not cards: neither links nor broken links."""

_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M)
_HEADING = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)
_FENCED_CODE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.S | re.M)
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_TAG_SPLIT = re.compile(r"[,，\s]+")


EARLIEST_MILLIS = int(datetime(1, 1, 1, tzinfo=timezone.utc).timestamp() * 1000)
LATEST_MILLIS = int(datetime(9999, 12, 31, 23, 59, 59, tzinfo=timezone.utc).timestamp() * 1000)
"""Times a card can carry: those datetime (and so the graph's conversions) can represent."""


class NoteError(ValueError):
    """The file cannot be read as a memex card; the message says why."""


@dataclass
class ParsedNote:
    title: str | None
    """From the front matter, else the first ``# heading``; None leaves it to the caller (the slug)."""
    body: str
    tags: list[str]
    type: str
    created_at: int | None
    """Epoch milliseconds from ``created`` when parseable, else None."""
    updated_at: int | None
    links: list[str] = field(default_factory=list)
    """Wikilink targets in order of first appearance, without label, heading or ``.md``."""


def parse_note(text: str) -> ParsedNote:
    """Split front matter from the body and read both; raises :class:`NoteError` for bad front matter."""
    front, body = split_front_matter(text)
    title = _text(front.get("title")) or _first_heading(body)
    tags = _tags(front.get("tags"))
    category = _text(front.get("category"))
    if category and category not in tags:
        tags.insert(0, category)
    return ParsedNote(
        title=title,
        body=body.strip(),
        tags=tags,
        type=infer_type(front.get("type"), category, tags, title or ""),
        created_at=parse_time(front.get("created"), "created"),
        updated_at=parse_time(front.get("modified", front.get("updated")), "modified"),
        links=wikilink_targets(body),
    )


def split_front_matter(text: str) -> tuple[dict[str, Any], str]:
    """``(front matter, body)``; a file without front matter has an empty one."""
    import yaml

    if not re.match(r"\A---[ \t]*\r?\n", text):
        return {}, text
    match = _FRONT_MATTER.match(text)
    if match is None:
        raise NoteError("front matter opened with --- is never closed")
    try:
        front = yaml.safe_load(match.group(1))
    except RecursionError:
        raise NoteError("front matter is nested too deeply to read") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 2}" if mark is not None else ""
        raise NoteError(f"front matter is not valid YAML{where}: {getattr(exc, 'problem', None) or exc}") from None
    if front is None:
        front = {}
    if not isinstance(front, dict):
        raise NoteError("front matter is not a YAML mapping of keys to values")
    return front, text[match.end():]


def infer_type(declared: Any, category: str | None, tags: list[str], title: str) -> str:
    """A valid declared ``type`` wins; else the first of category, tags, title holding a type keyword; else concept."""
    if isinstance(declared, str) and declared.strip().lower() in CARD_TYPES:
        return declared.strip().lower()
    for text in [category or "", *tags, title]:
        for card_type, matcher in _TYPE_MATCHERS.items():
            if matcher.search(text.lower()):
                return card_type
    return "concept"


def _keyword_matcher(keywords: tuple[str, ...]) -> re.Pattern:
    """English keywords as whole words (plural allowed: ``bugs``, not ``debug``); Chinese ones anywhere."""
    words = [re.escape(k) for k in keywords if k.isascii()]
    others = [re.escape(k) for k in keywords if not k.isascii()]
    return re.compile("|".join([rf"(?<![a-z0-9])(?:{'|'.join(words)})(?:s|es)?(?![a-z0-9])", *others]))


_TYPE_MATCHERS = {card_type: _keyword_matcher(keywords) for card_type, keywords in TYPE_KEYWORDS.items()}


def parse_time(value: Any, key: str = "time") -> int | None:
    """Epoch milliseconds from a YAML date/datetime, an ISO string or an epoch number (s or ms); None when absent
    or not a time. A number that is no moment between the years 1 and 9999 (``.inf``, ``.nan``, 10**30) is
    refused (:class:`NoteError`): the graph cannot store it, and one such file must not abort the others."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        millis = value if abs(value) > 1e11 else value * 1000
        if not EARLIEST_MILLIS <= millis <= LATEST_MILLIS:  # also false for NaN
            raise NoteError(f"{key}: {value!r} is not a time between the years 1 and 9999")
        return int(millis)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=timezone.utc)
        return _bounded(int(moment.timestamp() * 1000), key, value)
    if isinstance(value, date):
        return _bounded(int(datetime(value.year, value.month, value.day, tzinfo=timezone.utc).timestamp() * 1000),
                        key, value)
    return None


def _bounded(millis: int, key: str, value: Any) -> int:
    """A date can still fall outside the range once moved to UTC (0001-01-01T00:00+01:00)."""
    if not EARLIEST_MILLIS <= millis <= LATEST_MILLIS:
        raise NoteError(f"{key}: {value!r} is not a time between the years 1 and 9999")
    return millis


def wikilink_targets(body: str) -> list[str]:
    """``[[target]]``, ``[[target|label]]``, ``[[target#heading]]`` and note embeds ``![[target]]``, outside code."""
    prose = _INLINE_CODE.sub("", _FENCED_CODE.sub("", body))
    targets: list[str] = []
    for _embed, inner in _WIKILINK.findall(prose):
        target = normalise_target(inner)
        if target and target not in targets:
            targets.append(target)
    return targets


def normalise_target(inner: str) -> str | None:
    """The card a link's inside points at; None for a same-card heading link or an attachment."""
    target = re.split(r"[|#^]", inner, maxsplit=1)[0].strip().replace("\\", "/").strip("/")
    suffix = target[target.rfind("."):].lower() if "." in target.rsplit("/", 1)[-1] else ""
    if suffix == ".md":
        target = target[:-3]
    elif suffix in ATTACHMENT_SUFFIXES:
        return None
    return target or None


def _text(value: Any) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    text = str(value).strip()
    return text or None


def _tags(value: Any) -> list[str]:
    items = value if isinstance(value, list) else _TAG_SPLIT.split(value) if isinstance(value, str) else []
    tags: list[str] = []
    for item in items:
        tag = _text(item)
        tag = tag.lstrip("#") if tag else None
        if tag and tag not in tags:
            tags.append(tag)
    return tags


def _first_heading(body: str) -> str | None:
    match = _HEADING.search(_FENCED_CODE.sub("", body))
    return match.group(1).strip() if match else None
