"""A card says each sentence once.

A card is put together from several readings: the point a statement makes, what the assistant added, the details
kept from its turns, the paragraphs of another card joined into its episode. Each reading quotes the sentences it
rests on, so one sentence could come back two or three times ("**The assistant added:** 8:40 fits the user's
morning rule." and then "**Rule:** 8:40 fits the user's morning rule."). A repeated sentence stays where it is the
point (a paragraph labelled with a kind: cause, fix, decision, rule…), else where it was said first; a paragraph
left with nothing is dropped. Code, lists and paragraphs of several lines are left as they are.
"""

from __future__ import annotations

import re

from .candidate import attribution
from .stated.kinds import LABELS
from .text.sentences import join_sentences, split_sentences

LABEL = re.compile(r"^\*\*([^*\n]{1,24})[:：]\*\*\s*")
POINTS = frozenset(label for pair in LABELS.values() for label in pair)
"""The labels of a paragraph that states the card's point (:data:`.stated.kinds.LABELS`)."""
SHORTEST = 8
"""Characters of a sentence worth finding in another paragraph: "Yes." or "好的。" may well be said in two."""


def said_once(content: str) -> str:
    """``content`` with each sentence of its plain paragraphs said once."""
    closing = attribution(content)
    paragraphs = content.split("\n\n")[:-1] if closing else content.split("\n\n")
    read = [_read(paragraph) for paragraph in paragraphs]
    owner: dict[str, int] = {}
    for point_first in (True, False):
        for index, parsed in enumerate(read):
            if parsed is not None and (parsed[0] in POINTS) == point_first:
                for sentence in parsed[1]:
                    owner.setdefault(_key(sentence), index)
    kept, changed = [], False
    for index, (paragraph, parsed) in enumerate(zip(paragraphs, read)):
        own = None if parsed is None else _own(parsed[1], index, owner)
        if own is None or own == parsed[1]:
            kept.append(paragraph)
            continue
        changed = True
        if own:
            kept.append(f"**{parsed[0]}:** {join_sentences(own)}" if parsed[0] else join_sentences(own))
    return "\n\n".join(kept + ([closing] if closing else [])) if changed else content


def _own(sentences: list[str], index: int, owner: dict[str, int]) -> list[str]:
    """The sentences paragraph ``index`` keeps: each once, and only those said nowhere it yields to."""
    own, seen = [], set()
    for sentence in sentences:
        key = _key(sentence)
        if key not in seen and (len(key) < SHORTEST or owner[key] == index):
            own.append(sentence)
        seen.add(key)
    return own


def _read(paragraph: str) -> tuple[str, list[str]] | None:
    """A plain paragraph's label ("" for none) and sentences; None for code, lists and lines."""
    if "\n" in paragraph or "`" * 3 in paragraph or paragraph.lstrip().startswith(("- ", "* ", "|")):
        return None
    label = LABEL.match(paragraph)
    text = paragraph[label.end():] if label else paragraph
    return (label.group(1) if label else "", split_sentences(text))


def _key(sentence: str) -> str:
    return sentence.replace("`", "").strip().rstrip(".。!！").casefold()
