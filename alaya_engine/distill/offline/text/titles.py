"""Title width (a CJK character counts 7/3) and cutting text to a width at the best kind of break."""

from __future__ import annotations

import re

from .chinese import BOOK_TITLE, CJK, is_chinese, quiet_jieba
from .words import UNIT_WORDS

CJK_WEIGHT = 7 / 3
"""A CJK character counts as 7/3 Latin ones, so 30 Chinese characters fill a 70-column title."""
CLAUSE_BREAKS = {
    ", because ": 1.6, " because ": 1.5, "，因为": 1.6, ", so that ": 1.3, "，所以": 1.2,
    ". ": 1.0, "。": 1.0, "! ": 1.0, "！": 1.0, "; ": 1.0, "；": 1.0, " — ": 0.95, " – ": 0.95, " - ": 0.95,
    ": ": 0.9, "：": 0.9, ", so ": 0.9, ", which ": 0.9, ", but ": 0.9, " but ": 0.85, "，": 0.85,
    ", and ": 0.8, " and ": 0.75, ", ": 0.7, " (": 0.6, "（": 0.6,
}
"""Where a title may be cut and how good each cut is (it weights the length kept).

Cutting before a reason ("…, because …") is preferred: a title names the thing, the card gives the why.
"""
PHRASE_CUT = 0.75
WORD_CUT = 0.55
CHINESE_WORD_CUT = 0.45
PHRASE_STARTS = frozenset("in for with at on by from during after before because while and but which that who "
                          "when where since until so as".split())
TRAILING_WORDS = frozenset("a an the and or but of to in on at for with from by as is are was were so that "
                           "which this its their his her my your our than then into will be been has have had can "
                           "could would should not very more most between about over under after before during "
                           "without within through like just also instead too again now here there".split())
ZH_TRAILING = re.compile(r"[的地得了着过和跟与及或在把被对给向从是就也还都又很太更最而但]|以及|或者|但是|而且|"
                         r"因为|所以|如果|虽然|一起|[一两几这那每某][个场部本次件只位首道种些条张家款]?")
"""Chinese words a title cannot end on: particles, prepositions, conjunctions, a number or 'this' without its noun."""
PUNCTUATION = "。.！!？?:：;；，,、()（）“”\"' "
PARENTHETICAL = re.compile(r"\s+\([^()]*\)|\s*（[^（）]*）")
NEW_CLAUSE = re.compile(r"\s*(?:I|he|she|we|they|it|my|his|her|our|their|[A-Z][\w-]*(?:'s)?)\b")


def title_width(text: str) -> float:
    """Display width for title limits: CJK characters count 7/3."""
    cjk = len(CJK.findall(text))
    return len(text) - cjk + cjk * CJK_WEIGHT


def shorten(text: str, limit: float = 70) -> str:
    """Cut plain text to ``limit`` width: drop asides, then keep the most text at the best kind of break."""
    text = _trim_end(text)
    if title_width(text) <= limit:
        return text
    text = _trim_end(PARENTHETICAL.sub("", text))
    if title_width(text) <= limit:
        return text
    depths = _bracket_depths(text)
    cuts = [(title_width(head) * (weight + _new_clause_bonus(text, head, separator)), head)
            for separator, weight in CLAUSE_BREAKS.items() for head in _heads_before(text, depths, separator, limit)]
    word_cut, at_phrase = _cut_words(text, limit)
    weight = PHRASE_CUT if at_phrase else CHINESE_WORD_CUT if is_chinese(text) else WORD_CUT
    cuts.append((title_width(word_cut) * weight, word_cut))
    return max(cuts, key=lambda cut: cut[0])[1]


def _new_clause_bonus(text: str, head: str, separator: str) -> float:
    """A comma or 'and' followed by a new subject ends a whole clause: as good a cut as a semicolon."""
    if separator not in (", ", " and ", ", and "):
        return 0.0
    rest = text[len(head):].lstrip(",").lstrip()
    rest = rest[4:] if rest.startswith("and ") else rest
    return 0.2 if NEW_CLAUSE.match(rest) else 0.0


def _heads_before(text: str, depths: list[int], separator: str, limit: float) -> list[str]:
    """Texts before a top-level ``separator`` that fit and are not too short to say much."""
    heads = []
    for position in _top_level(text, depths, separator):
        if separator == ". " and re.search(r"(?:\.|\be\.g|\bi\.e|\bvs|\betc)$", text[:position]):
            continue
        head = _trim_end(text[:position])
        if title_width(head) > limit:
            break
        if title_width(head) >= limit * 0.3:
            heads.append(head)
    return heads


def _bracket_depths(text: str) -> list[int]:
    """How deep inside brackets or quotes each character is."""
    depths = []
    depth = 0
    for char in text:
        if char in ")]}）」”" and depth:
            depth -= 1
        depths.append(depth)
        if char in "([{（「“":
            depth += 1
    return depths


def _top_level(text: str, depths: list[int], separator: str) -> list[int]:
    """Positions of ``separator`` outside brackets and quotes."""
    positions = []
    position = text.find(separator, 1)
    while position > 0:
        if depths[position] == 0:
            positions.append(position)
        position = text.find(separator, position + 1)
    return positions


def _trim_end(text: str) -> str:
    return text.strip().rstrip("。.！!？?:：;；，,、 ")


def _cut_words(text: str, limit: float) -> tuple[str, bool]:
    """Cut at the last whole word (or jieba word) that fits, before a preposition if one is near the end.

    Also says whether the cut fell before a phrase ("… store | in hopes of …"), which reads better. The cut
    never ends on a word that needs what follows ("the", "of", 的, 一场).
    """
    tokens = _chinese_tokens(text) if is_chinese(text) else re.findall(r"\S+\s*", text)
    kept: list[str] = []
    phrase_end = 0
    next_token = ""
    for token in tokens:
        if title_width("".join(kept) + token) > limit:
            next_token = token
            break
        if token.strip().lower() in PHRASE_STARTS and title_width("".join(kept)) >= limit * 0.55:
            phrase_end = len(kept)
        kept.append(token)
    at_phrase = next_token.strip().lower() in PHRASE_STARTS or bool(phrase_end)
    if at_phrase and next_token.strip().lower() not in PHRASE_STARTS:
        kept = kept[:phrase_end]
    if 1 < len(kept) < len(tokens) and NUMBER.fullmatch(kept[-1].strip()) and \
            UNIT.fullmatch(tokens[len(kept)].strip()):
        unit = tokens[len(kept)]  # "slower than 60 | s." said 60 of nothing: the unit comes along, or the number goes
        kept = kept + [unit] if title_width("".join(kept) + unit.rstrip()) <= limit + UNIT_OVERRUN else kept[:-1]
    while len(kept) > 1 and _dangles(kept[-1]):
        kept.pop()
    cut = "".join(kept).rstrip()
    fragment = LONE_LAST_WORD.search(cut)
    if fragment and not _bracket_depths(cut)[fragment.start()] and title_width(cut[:fragment.start()]) >= limit * 0.5:
        cut = cut[:fragment.start()]
    return cut.rstrip("。.！!？?:：;；，,、(（"), at_phrase


NUMBER = re.compile(r"[~≈<>]?\d+(?:[.,]\d+)*")
UNIT = re.compile(rf"(?:{UNIT_WORDS}|[µu]s|hrs?|d|%|px|rps|qps|[kKMG]|percent)[.,;:)]?")
"""A unit after a number: a title cut between the two keeps both or neither."""
LONE_LAST_WORD = re.compile(r"(?:[,;:]|\s[—–])\s+\S+$")
"""One word after a cut clause's last comma ("…fans out into 16 worker processes, each | with …"): the start of
what the cut left out, dropped with its comma."""
UNIT_OVERRUN = 6
"""How far past its limit a title may run to keep a number's unit (a title's limit is 70, the most is 80)."""


def _dangles(token: str) -> bool:
    """A token a title cannot end on: punctuation, "the", "of", 的, 一场."""
    word = token.strip().lower()
    return not word.strip(PUNCTUATION) or word.strip(",.;:") in TRAILING_WORDS or bool(ZH_TRAILING.fullmatch(word))


def _chinese_tokens(text: str) -> list[str]:
    """jieba words, with each 《title》 kept whole so no cut falls inside one."""
    import jieba

    quiet_jieba()
    tokens: list[str] = []
    for piece in re.split(f"({BOOK_TITLE.pattern})", text):
        tokens.extend([piece] if BOOK_TITLE.fullmatch(piece) else jieba.cut(piece))
    return tokens


SEGUE = re.compile(r"^(?:(?:(?i:one more thing|another thing|also|and|btw|by the way|first|second|third|then|so|"
                   r"ok(?:ay)?|hmm+|um+|oh|well|alright|let'?s do (?:that|it)|note|fyi|heads up|"
                   r"hi|hey|hello|(?:good )?morning|(?:a )?(?:quick |small )?update|"
                   r"yeah|yes|yep|yup|right|sure|thx|thanks|great|cool|perfect|got it|sounds good|next|"
                   r"(?:a )?happier topic|"
                   r"(?:decision|rule|fact|preference|plan)s? (?:recorded|noted|saved|logged)|"
                   r"另外|还有|对了|顺便说一下|第[一二三]件事|嗯|哦|记一下|好的?|行|对|可以|没问题|收到|"
                   r"(?:跟\S{1,6})?同步一下)"
                   r"\s*[,，:：—-]\s*)|(?:and|also|so|but|btw|ok(?:ay)?|hmm+|um+|oh|well|yeah|yep|yup|thx)\s+)+")
"""How a message moves to its next point ("One more thing, …", "first: …", "另外，…"), announces it ("Heads up:",
"记一下：", "跟你同步一下，", an assistant's "Decision recorded:"), answers the message before ("yeah, …", "thx, …",
"好，…") or opens in chat ("ok Lisbon is booked", "hmm TAP just emailed", "and from now on …"): no part of a
title. A bare capitalised "And …" or "But …" stays: dropping it changed LoCoMo's titles, and their vectors, for no
gain (recall@10 0.835 → 0.834); a lower-case one is a chat message's informal start."""


TITLE_MARKUP = re.compile(r"```\w*|(?<=[:：])\s*[-*•]\s+(?=\S)")
"""What a title that took a message's lead with its list or code shows as written: a code fence ("方案： ```python
SOFT_TTL = 300"), a list's mark after the lead's colon ("Root cause: - This cert was issued …")."""


def without_markup(title: str) -> str:
    """The title without Markdown's code fences and list marks: they say how a message was laid out."""
    return " ".join(TITLE_MARKUP.sub(" ", title).split()) or title


def without_segue(title: str) -> str:
    """The title without the words that only lead into it, capitalised again; one a chat message opened in lower
    case with a plain word ("the hotel is …", "i always …") is capitalised too (an identifier keeps its case)."""
    rest = SEGUE.sub("", title)
    if rest and (rest != title or LOWER_OPENING.match(rest)):
        return rest[:1].upper() + rest[1:]
    return title


LOWER_OPENING = re.compile(r"(?:the|a|an|i|we|my|our|it|its|this|that|these|there|they|he|she|you|your|one|"
                           r"every|all|no|some|each|from)\b(?![\w.-])")
