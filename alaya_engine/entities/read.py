"""A card's entities: the names its title and content say (not its labels nor its attribution line), each with
a kind, and the aliases the text declares. Offline and deterministic: the same card always reads the same.

Names come from :mod:`..distill.offline.text.names` (identifiers, capitalised names, jieba-tagged Chinese
names: the reading introspect compares cards with), plus paths, repositories and runs of capitalised words
("Wang Feng"), which name one thing together. Left out: all-caps words (``API``, ``OOM``, ``SELECT``: vocabulary,
not things), days and months, and a capitalised word that only starts a sentence, unless a person's verb follows it
("Caroline went …") or the text also writes it capitalised elsewhere.
"""

from __future__ import annotations

import re

from ..distill.offline.text.chinese import CJK, tagged_chinese_names
from ..distill.offline.text.markdown import INLINE_CODE
from ..distill.offline.text.names import good_name, plain, speaker_of, without_attribution
from ..distill.offline.text.tags import identifiers
from ..distill.offline.text.words import COMMON_VERBS, FILLER_WORDS, STOPWORDS
from ..foundations.domain import Card
from ..foundations.entities import Mention, Reading, entity_key, stronger_kind
from .aliases import declared, domain_aliases
from .kinds import CHINESE_KINDS, KNOWN_SERVICES, PATH, PERSON_AFTER, REPOSITORY, is_host, kind_of

CAPITALISED_RUN = re.compile(r"(?<![\w.'’-])[A-Z][a-z'’]+(?:[ ][A-Z][a-z'’]+){0,2}(?![\w'’-])")
SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|\n\s*(?:[-*>]|\d+[.)])?\s*|\*\*\s*|[（(“\"]\s*)$")
CAPS_WORD = re.compile(r"[A-Z]+")
INSTALLED = re.compile(r"\b(?:pip3?|uv pip|poetry|npm|pnpm|yarn|cargo|gem|go get|brew) (?:install|add)\s+"
                       r"(?:-\S+\s+)*([A-Za-z@][\w.@/-]*\w)")
"""A package being installed: ``pip install requests``, ``npm install @scope/pkg``."""
IMAGE = re.compile(r"(?<![\w/.:-])(?P<namespace>(?:[a-z0-9][\w.-]*/)+)?(?P<name>[a-z][\w.-]*[a-z0-9]):"
                   r"(?P<tag>\w*\d[\w.-]*\w|\d)(?![\w:/-])")
"""A container image and its tag: ``pybase:3.11``, ``fernwood/pybase:3.11`` (one image: the longer names the
shorter)."""
LATIN_WORD = re.compile(r"(?<![\w.-])[A-Za-z][\w-]*[A-Za-z0-9](?![\w.-])")
"""In Chinese text a Latin word is nearly always a name: a product, a tool, a person's English name."""
GIT_HOST = re.compile(r"^(?:https?://)?(?:github\.com|gitlab\.com|bitbucket\.org|codeberg\.org)/", re.IGNORECASE)
WORD = re.compile(r"(?<![\w./-])[A-Za-z]\w*(?![\w/-]|\.\w)")
NOT_NAMES = frozenset({"a.k.a", "e.g", "i.e", "etc", "vs", "n/a"})
ROLE_NAMES = frozenset({"user", "assistant", "ai", "用户", "助手"})
START_VERBS = frozenset("ask tell call check see use run add make send ping email contact thank meet remind let "
                        "please ensure note".split())
"""Imperatives that open a sentence before a name ("Ask Xiao Wang before…"): not part of it."""
CONTEXT = 40
"""Characters read on each side of a name to tell its kind."""


def read_card(card: Card) -> Reading:
    """The entities of a card: what the graph writes as its ``MENTIONS``."""
    return read_text(without_attribution(plain(card.title, card.content)), speaker_of(card.content))


def read_text(text: str, speaker: str | None = None) -> Reading:
    """The entities of a text; ``speaker``: who said it (whom "call me X" names), when the text does not say."""
    found: dict[str, str] = {}

    def add(name: str, kind: str) -> None:
        name = name.strip().strip("`'\"“”‘’.,;:!?()[]{}").lstrip("-")
        if not good_name(name) or not entity_key(name) or name.casefold() in ROLE_NAMES:
            return
        found[name] = stronger_kind(found[name], kind) if name in found else kind

    code_spans = INLINE_CODE.findall(text)
    for match in PATH.finditer(text):
        if re.search(r"[A-Za-z]", match.group(1)) and match.group(1).count("/") >= 1 and len(match.group(1)) > 2:
            add(match.group(1), "file")
    for match in INSTALLED.finditer(text):
        add(match.group(1), "library")
    for match in REPOSITORY.finditer(text):
        add(GIT_HOST.sub("", match.group(1) or match.group(2)), "repository")
    for name in identifiers(text):
        if CAPS_WORD.fullmatch(name) or name.casefold() in NOT_NAMES:
            continue
        before, after = _around(text, name)
        add(name, kind_of(name, before, after, in_code=any(name in span for span in code_spans)))
    for name in _capitalised(INLINE_CODE.sub(" ", text)):
        before, after = _around(text, name)
        add(name, kind_of(name, before, after))
    for match in WORD.finditer(text):
        if match.group().casefold() in KNOWN_SERVICES and match.group() not in found:
            before, after = _around(text, match.group())
            add(match.group(), kind_of(match.group(), before, after))
    aliases = []
    for match in IMAGE.finditer(text):
        if is_host(match["name"]):
            continue  # host:port
        short = f"{match['name']}:{match['tag']}"
        add(short, "other")
        if match["namespace"]:
            add(match.group(), "other")
            aliases.append((match.group(), short))
    if CJK.search(text):
        for name, tag in tagged_chinese_names(text, fast=True):
            add(name, CHINESE_KINDS.get(tag, "other"))
        for match in LATIN_WORD.finditer(text):
            word = match.group()
            if len(word) > 2 and word.casefold() not in STOPWORDS and not CAPS_WORD.fullmatch(word) \
                    and word not in found:
                before, after = _around(text, match.group())
                add(match.group(), kind_of(match.group(), before, after))
    names = list(found)
    for alias, name, kind in declared(text, speaker, names):
        add(name, kind or found.get(name, "other"))
        add(alias, kind or found.get(name, "other"))
        aliases.append((alias, name))
    aliases.extend(domain_aliases(found))
    return Reading(tuple(Mention(name, kind) for name, kind in found.items()), tuple(aliases))


def _around(text: str, name: str) -> tuple[str, str]:
    at = text.find(name)
    if at < 0:
        return "", ""
    return text[max(0, at - CONTEXT):at], text[at + len(name):at + len(name) + CONTEXT]


def _capitalised(text: str) -> list[str]:
    """Runs of capitalised words that name something (see the module's doc for what is left out)."""
    runs: list[str] = []
    later = {match.group() for match in CAPITALISED_RUN.finditer(text)
             if not SENTENCE_START.search(text[:match.start()])}
    for match in CAPITALISED_RUN.finditer(text):
        words = match.group().split(" ")
        at_start = bool(SENTENCE_START.search(text[:match.start()]))
        while words and (_common(words[0]) or at_start and len(words) > 1 and words[0].casefold() in START_VERBS):
            words, at_start = words[1:], False
        while words and _common(words[-1]):
            words = words[:-1]
        if not words:
            continue
        name = " ".join(words)
        if at_start and len(words) == 1 and name not in later and name.casefold() not in KNOWN_SERVICES \
                and not PERSON_AFTER.match(text[match.start() + len(name):match.start() + len(name) + 20]):
            continue
        runs.append(name)
    return list(dict.fromkeys(runs))


def _common(word: str) -> bool:
    lower = word.casefold()
    return lower in STOPWORDS or lower in FILLER_WORDS or lower in COMMON_VERBS
