"""Tags for a card: identifiers, names, noun phrases and frequent words (jieba TF-IDF for Chinese)."""

from __future__ import annotations

import re
from collections import Counter

from .chinese import CJK, CLAUSE_BREAK, is_chinese, quiet_jieba, tagged_clause, words_of
from .markdown import INLINE_CODE, strip_markdown
from .memo import within_session
from .sentences import ABBREVIATIONS
from .words import COMMON_VERBS, COMPOUND_PARTS, FILLER_WORDS, STOPWORDS, WORD, ZH_STOPWORDS, is_content_word, unique

IDENTIFIER = re.compile(
    r"(?<![\w./-])("
    r"[A-Za-z][\w-]*(?:\.[A-Za-z_][\w-]*)+"          # dotted: plugins.allow, app.main
    r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"         # snake: proxy_read_timeout
    r"|[a-z][a-z0-9]*(?:-[a-z0-9]+)+"                  # kebab: reports-worker
    r"|[A-Z][a-z0-9]+(?:[A-Z]+[a-z0-9]*)+"             # Camel: QueuePool, RabbitMQ, MySQL, OpenAI
    r"|[a-z]+[A-Z]\w*"                                 # camel: maxMemory
    r"|[A-Z][A-Z0-9]{2,}"                              # CAPS: OOM, SIGKILL
    r")(?![\w/-])"
)
CAPITALISED = re.compile(r"(?:(?<=\b(?:Dr|Mr|Ms|St)\.\s)|(?<=\bMrs\.\s)|(?<=\bProf\.\s)|(?<![.!?:]\s))(?<!^)\b"
                         r"([A-Z][a-z]+(?:[A-Z][a-z]+)?)\b", re.MULTILINE)
"""A capitalised word that does not open a sentence; after a title's full stop ("Dr. Okonkwo") it is the name."""
TITLES = frozenset("dr mr mrs ms prof st".split())
"""Titles before a name: no name themselves."""
COMMAND = re.compile(r"^\s*(?:sudo\s+)?([a-z][\w.-]*)(?:\s+([a-z][a-z-]+))?")
ZH_NOUN_TAGS = ("n", "nz", "vn", "nr", "ns", "nt", "l", "i", "nrt", "nw", "eng")


def tags_for(text: str) -> list[str]:
    """A card's tags: its keywords, else its identifiers, else (a short Chinese sentence) its longer words."""
    text = ROLE_WORDS.sub(" ", text)
    return keywords(text, 6) or identifiers(text)[:6] or \
        unique(word for word in words_of(text) if len(word) >= 2 and word not in ZH_STOPWORDS)[:4]


ROLE_WORDS = re.compile(r"\b[Tt]he (?:user|assistant)\b|用户|助手")
"""How cards name people known only by role: on every such card, so no tag."""


def keywords(text: str, limit: int = 6) -> list[str]:
    """Tags for a text: jieba words when it has a fair share of Chinese, else English heuristics."""
    return chinese_keywords(text, limit) if is_chinese(text, 0.15) else english_keywords(text, limit)


@within_session
def identifiers(text: str) -> list[str]:
    """Code-like names in order of appearance: backticked terms first, then bare identifiers."""
    found: list[str] = []
    for span in INLINE_CODE.findall(text):
        found.extend(_names_in_code(span))
    plain = INLINE_CODE.sub(" ", text)
    found.extend(match.group(1).rstrip(".") for match in IDENTIFIER.finditer(plain))
    return unique(name for name in found if _good_identifier(name))


def _names_in_code(span: str) -> list[str]:
    """``proxy_read_timeout 120s`` → ``proxy_read_timeout``; ``docker compose restart`` → ``docker compose``."""
    span = span.strip()
    if " " not in span:
        return [span.split("=", 1)[0].rstrip("():;,")]
    match = COMMAND.match(span)
    if not match:
        return []
    head, sub = match.group(1), match.group(2)
    return [f"{head} {sub}" if sub and len(span.split()) > 1 and head.isalpha() else head]


def _good_identifier(name: str) -> bool:
    if len(name) < 2 or len(name) > 40 or name.lower() in STOPWORDS or f"{name.lower()}." in ABBREVIATIONS:
        return False
    if re.fullmatch(r"[\d.,:%/+-]+[a-zA-Z]{0,3}", name):
        return False
    return bool(re.search(r"[A-Za-z]", name)) and not compound_word(name)


def compound_word(name: str) -> bool:
    """An English compound written with hyphens ("knock-on", "follow-up", "server-side"), not a kebab name."""
    parts = name.split("-")
    return len(parts) > 1 and name.islower() and name.replace("-", "").isalpha() and any(
        part in COMPOUND_PARTS for part in parts)


def named_things(sentence: str) -> list[str]:
    """Capitalised words that are not sentence starts, pronouns or common exclamations."""
    return [word for word in CAPITALISED.findall(sentence)
            if word.lower() not in STOPWORDS and word.lower() not in FILLER_WORDS and word.lower() not in TITLES]


def english_keywords(text: str, limit: int) -> list[str]:
    """Identifiers, capitalised names, multi-word noun-like phrases, then frequent content words."""
    plain = strip_markdown(INLINE_CODE.sub(" ", text))
    names = named_things(plain)
    phrases = noun_phrases(plain)
    counts = Counter(word.lower() for word in WORD.findall(plain) if is_content_word(word))
    frequent = [word for word, count in counts.most_common()
                if (count > 1 or len(word) >= 6) and _phrase_word(word)]
    found = unique([*identifiers(text), *names, *[p for p in phrases if " " in p], *frequent])
    return _drop_contained(found)[:limit]


def noun_phrases(plain: str) -> list[str]:
    """Runs of up to three content words ("LGBTQ support group"), in order of appearance."""
    runs: list[str] = []
    current: list[str] = []
    for token in re.findall(r"[A-Za-z][\w'’-]*|[^\sA-Za-z]+", plain):
        if token[0].isascii() and token[0].isalpha() and _phrase_word(token.lower()):
            current.append(token)
            continue
        if current:
            runs.append(" ".join(current[-3:]))
        current = []
    if current:
        runs.append(" ".join(current[-3:]))
    return unique(runs)


def _phrase_word(word: str) -> bool:
    return (len(word) >= 3 and word not in STOPWORDS and word not in FILLER_WORDS and word not in COMMON_VERBS
            and "'" not in word and "’" not in word and not word.endswith("ly")
            and not (word.endswith("ed") and len(word) > 4))


def _drop_contained(keywords: list[str]) -> list[str]:
    """Drop a single word already inside a longer keyword ("group" after "support group")."""
    phrases = [f" {keyword.lower()} " for keyword in keywords if " " in keyword]
    return [keyword for keyword in keywords
            if not any(f" {keyword.lower()} " in phrase and phrase.strip() != keyword.lower() for phrase in phrases)]


def chinese_keywords(text: str, limit: int) -> list[str]:
    """Identifiers plus jieba TF-IDF nouns (two or more characters) and product names (jieba loads lazily)."""
    names = identifiers(text)
    found = [word for word in _weighted_nouns(INLINE_CODE.sub(" ", text), limit * 3)
             if _good_chinese_keyword(word, names)]
    return unique([*names[: max(2, limit // 2)], *found])[:limit]


def _weighted_nouns(text: str, top: int) -> list[str]:
    """jieba's TF-IDF keywords among nouns (its ``extract_tags`` with ``allowPOS``: each noun's count times its
    inverse document frequency, the highest first), over words tagged clause by clause (:func:`tagged_clause`)."""
    import jieba.analyse

    quiet_jieba()
    model = jieba.analyse.default_tfidf
    counts = Counter(word for clause in CLAUSE_BREAK.split(text) for word, flag in tagged_clause(clause)
                     if flag in ZH_NOUN_TAGS and len(word.strip()) >= 2 and word.lower() not in model.stop_words)
    total = sum(counts.values())
    weights = {word: count * model.idf_freq.get(word, model.median_idf) / total for word, count in counts.items()}
    return sorted(weights, key=weights.__getitem__, reverse=True)[:top]


def _good_chinese_keyword(word: str, names: list[str]) -> bool:
    if CJK.search(word):
        return len(word) >= 2 and word not in ZH_STOPWORDS
    lower = word.lower()
    return len(word) >= 3 and lower not in STOPWORDS and not any(lower in name.lower() for name in names)
