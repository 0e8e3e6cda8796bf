"""Titles for agent cards: the first specific phrase among lead, item heads and first sentences."""

from __future__ import annotations

import re

from ..candidate import TITLE_LIMIT
from ..cues import ANAPHORA
from ..text.chinese import is_chinese
from ..text.markdown import LIST_MARK, strip_markdown
from ..text.sentences import split_sentences
from ..text.tags import chinese_keywords, identifiers, named_things
from ..text.titles import shorten, title_width
from ..text.words import STOPWORDS, is_content_word
from .transcript import Unit, drop_label

DETERMINER = re.compile(r"^(this|that|these|those)\s+(?=([a-z]\w*))", re.IGNORECASE)
NOT_NOUN = frozenset("is was are were means one will would can could should has have had did does a an the it its "
                     "his her their our my your we they he she i you".split())
"""Words after "this"/"that" that make it no determiner: a verb follows, or "that" joins a clause ("so that a
forgotten slot …" is no "The a forgotten slot")."""
CONNECTIVE = re.compile(r"^(?:so|also|but|however|and|this means|that means|which means|in short|这也说明|这说明|"
                        r"所以|因此|另外|而且|也就是说)[,，:：\s]*", re.IGNORECASE)
BOLD_HEAD = re.compile(r"^\s*(?:[-*]|\d+[.)])?\s*\*\*(.+?)\*\*")


def agent_title(units: list[Unit], card_type: str, tags: list[str]) -> str:
    """The first specific phrase among lead, item heads and first sentences; else the best one, named by a tag."""
    options = [option for unit in units[:2] for option in _title_options(unit, card_type)]
    options = [shorten(option, TITLE_LIMIT) for option in options if title_width(option) >= 12]
    if not options:
        return ""
    good = next((option for option in options if _title_score(option) >= 1), None)
    if good:
        return _capitalise_plain(good)
    best = max(options, key=lambda option: (_title_score(option), title_width(option)))
    tag = next((tag for tag in tags if tag.lower() not in best.lower()), "")
    return shorten(f"{tag}: {best}", TITLE_LIMIT) if tag else best


def _title_options(unit: Unit, card_type: str) -> list[str]:
    """Candidate titles in order of preference, as plain text."""
    if not unit.items:
        return [_clean_sentence(sentence) for sentence in split_sentences(drop_label(unit.text))[:3]]
    heads = [_bold_head(item) for item in unit.items]
    joined = ""
    if len(heads) >= 2 and all(heads[:2]):
        joiner = " vs " if card_type == "concept" else "; "
        joined = joiner.join(head.rstrip(".。:：") for head in heads[:3])
    lead = _specific_lead(unit.lead)
    options = [joined, lead] if card_type == "concept" else [lead, joined]
    options.extend(_clean_sentence(split_sentences(item)[0]) for item in unit.items[:3] if item.strip())
    return [option for option in options if option]


def _with_the(sentence: str) -> str:
    """"this timeout …" → "The timeout …", out of the context that said which; "that explains …" and "this is …"
    stay: a verb follows (a singular determiner before a word ending in a single s is a verb's third person)."""
    found = DETERMINER.match(sentence)
    if not found:
        return sentence
    word = found.group(2).lower()
    if word in NOT_NOUN or (found.group(1).lower() in ("this", "that") and re.search(r"[^su]s$", word)):
        return sentence
    return "The " + sentence[found.end():]


def _clean_sentence(text: str) -> str:
    """A sentence as a title: no label, short generic "X:" head, connective, emphasis or long call arguments."""
    text = re.sub(r"`([^`]*?)\s+\.\.\.\s+[^`]*`", r"`\1`", LIST_MARK.sub("", text))
    plain = strip_markdown(drop_label(text)).strip("*_ ")
    plain = _with_the(CONNECTIVE.sub("", plain).strip())
    head = re.match(r"^(.{2,16}?)(?::\s|：)", plain)
    if head and not identifiers(head.group(1)) and title_width(plain) - title_width(head.group(0)) >= 24:
        plain = plain[head.end():].strip()
    return re.sub(r"(\w)\([^()]{16,}\)", r"\1()", plain)


def _capitalise_plain(title: str) -> str:
    """'the JVM heap…' → 'The JVM heap…', 'we'll use X' → 'Use X'; identifiers such as 'docker' stay as written."""
    title = re.sub(r"^(?:we'll|we will|we should|let's)\s+", "", title, flags=re.IGNORECASE)
    first = title.split(" ", 1)[0]
    if first.isalpha() and first.islower() and (first in STOPWORDS or first in ("use", "don't", "never")):
        return title[:1].upper() + title[1:]
    return title


def _title_score(title: str) -> float:
    """Specific titles name things (identifiers, products, real words); anaphora and fragments score low."""
    chinese = is_chinese(title)
    score = 2.0 if identifiers(title) else 0.0
    score += 1 if named_things(title) else 0
    if chinese:
        score += 1 if chinese_keywords(title, 4) else 0
    else:
        score += 1 if len([w for w in re.findall(r"[A-Za-z]+", title) if is_content_word(w)]) >= 3 else 0
    score -= 3 if ANAPHORA.match(title) else 0
    score -= 2 if title_width(title) < 20 else 0
    return score


def _specific_lead(lead: str) -> str:
    """A list lead that names its subject ("Rules for JVM services on k8s:"), else ''."""
    plain = strip_markdown(drop_label(lead)).rstrip(":： ")
    if is_chinese(plain):
        return plain if len(chinese_keywords(plain, 4)) >= 2 else ""
    return plain if identifiers(plain) or named_things(plain) else ""


def _bold_head(item: str) -> str:
    """'**Vectors: LanceDB.** Embedded, …' → 'Vectors: LanceDB.' (short bold openings only)."""
    bold = BOLD_HEAD.match(item)
    return strip_markdown(bold.group(1)) if bold and title_width(bold.group(1)) <= 36 else ""
