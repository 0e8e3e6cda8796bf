"""A card's content as the card screen renders it: memex wikilinks as links, and no second copy of the title.

Memex cards keep their Markdown verbatim, with Obsidian's ``[[slug]]`` / ``[[slug|label]]`` links, which a
Markdown renderer shows as bracket soup; and a note whose title came from its ``# heading`` starts with that
heading, right under the title the screen already shows. The stored content is left as it is (``alaya trace`` and
export show it verbatim); only the rendering changes. A link's target is ``wikilink:<slug>``, resolved by the card
screen against the card's own edges.
"""

from __future__ import annotations

import re

WIKILINK_SCHEME = "wikilink:"
_WIKILINK = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
_LEADING_HEADING = re.compile(r"\A\s*#[ \t]+(.+?)[ \t#]*(?:\n|\Z)")
_CODE = re.compile(r"(^[ \t]*(```|~~~).*?^[ \t]*\2[^\n]*$|`[^`\n]*`)", re.S | re.M)


def card_markdown(title: str, content: str) -> str:
    """``content`` without a leading heading equal to ``title``, its wikilinks (outside code) as Markdown links."""
    heading = _LEADING_HEADING.match(content)
    if heading and heading.group(1).strip() == title.strip():
        content = content[heading.end():].lstrip("\n")
    parts = _CODE.split(content)
    # re.split with two groups yields: text, code, fence marker, text, code, fence marker, ...
    return "".join(_links(part) if position % 3 == 0 else part or ""
                   for position, part in enumerate(parts) if position % 3 != 2)


def _links(text: str) -> str:
    return _WIKILINK.sub(_link, text)


def _link(match: re.Match) -> str:
    embed, inner = match.group(1), match.group(2)
    target, _, label = inner.partition("|")
    target = target.strip()
    if embed:
        return f"📎 `{target}`"
    slug = target.split("#", 1)[0].removesuffix(".md")
    return f"[{_escape(label.strip() or target)}]({WIKILINK_SCHEME}{slug.replace(' ', '%20')})"


def _escape(label: str) -> str:
    return label.replace("[", "\\[").replace("]", "\\]")


def wikilink_slug(href: str) -> str | None:
    """The slug of a ``wikilink:`` target, None for any other link."""
    if not href.startswith(WIKILINK_SCHEME):
        return None
    return href.removeprefix(WIKILINK_SCHEME)  # Textual unquotes the href (``%20`` → space)
