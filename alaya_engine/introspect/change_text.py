"""What a card's sentences say changed or disagrees: cues of a replaced value, and the names and quantities said.

An update is said in ordinary words: "moved from Redis to Postgres", "3:15 instead of 3:20", "no more pin",
"从今天起改成每天 2000 IU", "不再…", "之前是…". A sentence with such a cue that names, as the replaced value,
something an earlier card names (or gives, in the clause of the cue and a unit the earlier card used, another
number) says the earlier card's value is no longer current. What a sentence is about is not a replaced value:
"Harbor Dental moved to 14 Quay Street" does not make "my dentist is at Harbor Dental" stale. A bare "now" / "现在"
is weaker: it counts only with another number in the same unit, or a shared name between cards close in meaning.
A disagreement ("contrary to the docs", "跟 wiki 上写的对不上") is said as plainly, and is a contradiction to show
a person, not an update.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from ..distill.offline.text.chinese import CJK
from ..distill.offline.text.diff import resolve_diffs
from ..distill.offline.text.names import good_name, plain, proper_names
from ..distill.offline.text.romanised import cjk_runs, spelled_in

__all__ = ["Reading", "Said", "Statement", "card_text", "conflict_anchor", "conflict_overlap", "gives_another", "plain",
           "reading", "replacement", "said", "sentences", "changed_settings", "settings", "shared_value", "statement"]

WAS = r"(?:was|previously|formerly)\b"
"""What opens a bracket giving the value that was replaced: "30 (was 120)", "(previously 40)"."""
REPLACES = re.compile(
    r"\b(?:instead(?: of)?|no longer|no more|any ?more|not any more|used to|switch(?:ed|ing|es)? (?:to|from|over)|"
    r"mov(?:ed|es|ing) (?:to|from|her|him|them|it|us|me|you|over|off)|migrat(?:ed|es|ing)|replac(?:ed|es|ing)|"
    r"(?:mov|push|reschedul|shift)(?:ed|es|ing)? (?:\S+ ){1,3}to|"
    r"drop(?:ped|s|ping)?|remov(?:ed|es|ing)|(?:rais|lower|increas|decreas|bump|chang|upgrad|downgrad|scal)"
    r"(?:ed|es|ing)? (?:\S+ ){0,3}(?:from|to)|from \S+(?: \S+)? to|went from|"
    r"(?<!from )now (?:on|at|in|uses?|goes|owns?|is|are|runs?)|revert(?:ed|s|ing)?|rolled back|went back to|"
    r"(?:chang|set|turn)(?:ed|s|ing)? (?:\S+ ){0,3}back to)\b"
    r"|改回|换回|调回|改成|改为|改到|改用|换成|换到|换了|搬到|搬去|调到|调去|调成|调整为|调整到|挪到|推到|推迟到|提前到|"
    r"提高到|降低到|缩短到|延长到|扩到|扩容到|缩到|缩容到|迁到|迁移到|不再|不用(?=[^，。；！？,;!?]{1,30}了)|"
    r"不需要(?=[^，。；！？,;!?]{1,30}了)|之前是|以前是|原先是|取代|替换|加量|减量|加到|降到|升到|升级到|"
    rf"[(（] ?{WAS}|[,，] ?(?:not|而不是|不是)(?= ?\d)",
    re.IGNORECASE)
"""Cues that a value was replaced: the sentence says what it is now, or what it no longer is; "(was 120)" after the
value that replaced it, ", not 1 June" after the one that corrects it. Not a measure that rose or fell ("went up to",
涨到, 增加到): "p99 从 120ms 涨到了 3s" reports a symptom, and linked the demo's cause card to an unrelated card that
gave 120 for a timeout."""
NOW = re.compile(r"\b(?:now|from now on|starting|as of|since(?= (?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|"
                 r"dec|mon|tue|wed|thu|fri|sat|sun)[a-z]*\b|yesterday|last (?:week|month|year)))|"
                 r"(?:rais|lower|increas|decreas|bump|chang|updat)(?:ed|es|ing))\b|现在|从今天起|从今天（[^）]*）起|起改|"
                 r"从 ?[^\s，。；！？,;!?]{1,12}(?: [^\s，。；！？,;!?]{1,8})? ?起", re.IGNORECASE)
"""Weaker cues of a current value: they count only with a number that differs from the earlier card's. "since" only
before a time ("since 3 March", "since Monday"): "since we last spoke" opens half of a chat's news, "since she is
lactose intolerant" gives a reason."""
DAY_MOVED = re.compile(r"\b(?:now|moved?|moves|moving|rescheduled?|postponed?|pushed|brought forward|updated?|changed?)"
                       r"\b|改到|改期|改成|推迟|延期|提前|挪到|换到", re.IGNORECASE)
"""What a clause says for another day to be the new day of the same thing (not "since we last spoke … on 10 July")."""
CONFLICT = re.compile(
    r"\b(?:contradict\w*|conflicts? with|(?:does ?n[o']?t|do ?n[o']?t|does not|do not) match|contrary to|"
    r"inconsistent with|disagrees?|(?:runbook|docs?|documentation|wiki|spec|readme|manual) (?:is|was|are|were) "
    r"(?:wrong|outdated|out of date|stale)|(?:does ?n[o']?t|do ?n[o']?t|does not|do not) (?:line|add) up|"
    r"says? otherwise|tells? a (?:\w+ )?different story|(?:can ?not|can't) reconcile|at odds with|"
    r"one of (?:them|the two) (?:is|must be) wrong)\b|对不上|矛盾|不一致|不成立|反例|不相符|不符(?!合)|"
    r"跟 ?[^\s，。,]{1,12} ?不一样|说法(?:确实|也|又|完全)?(?:不一样|不同)|"
    r"(?:文档|runbook|wiki) ?(?:写错|错了|过时)", re.IGNORECASE)
"""Cues that two sources disagree, neither replacing the other ("contrary to the docs", "the runbook is wrong", "the
two numbers don't line up", "the task durations say otherwise", "跟 runbook 不一样", "两个人的说法确实不一样").
Not 不符合 ("不符合要求": a check that fails, not two sources)."""

IDENTIFIER_LIKE = re.compile(r"^(?=.{4,}$)[a-z][\w]*[_.:/-][\w.:/-]*$")
"""A mention that names one setting or thing and nothing else ("be_tracking_gw", "message-ttl", "pg-main-02")."""
KEY_VALUE = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+)\"?(?:\s*[:=]\s*\"?|[ \t]+)"
                       r"(\d+(?:\.\d+)?)(?:[a-z%]{1,3})?(?!\w|\.\d)")
"""A setting given a number ("message-ttl":259200000, pool_size=20, max_connections = 100): a name with a separator
in it, so that a word and a number ("step: 2") are not read as one."""
IDENTIFIER = re.compile(r"[A-Za-z][\w.:/-]*[A-Za-z0-9]")
ACRONYM = re.compile(r"\b[A-Z][A-Z0-9]{1,5}\b")
LATIN_WORD = re.compile(r"(?<![\w.])[A-Za-z][\w.-]*[A-Za-z0-9](?![\w])")
"""In Chinese text a Latin word is nearly always a name: a product, a host, a person's English name."""
SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[。！？；])")
MAGNITUDES = {"万": 10_000, "千": 1_000, "亿": 100_000_000, "k": 1_000}
"""Words of a number's size: "阈值从 5 万改成 2 万" replaces the 50000 an earlier card gave, "50k" is 50000 (the
Latin "k" only written onto the number: "12 kg" is no 12000)."""
NOT_MAGNITUDE = re.compile(r"千[米克瓦]")
"""千 as part of a unit: 千米 (km), 千克 (kg), 千瓦 (kW)."""
QUANTITY = re.compile(r"(?<![A-Za-z0-9_.])(\d+(?:[.,]\d+)?)\s?"
                      rf"([{''.join(word for word in MAGNITUDES if not word.isascii())}]\s?)?"
                      r"((?:minute|second|hour|week|month)s?|"
                      r"[A-Za-z]{1,5}(?:/[A-Za-z]{1,3})?|[天小时分钟秒岁次个周]{1,2}|"
                      r"[澳美欧港日人]?元|英?镑|块钱?|毫克|公斤|毫升|pounds?|euros?|dollars?|%)"
                      r"(?![A-Za-z])"
                      r"|(?<![\d:])(\d{1,2}):(\d{2})(?![\d:])")
"""A number in a unit (its Chinese word of size read by :func:`_magnitude`: "5 万元" is 50000 元; 千米 and 千克 are
no unit here, so their 千 is never read as one), or a time of day."""
DATE_UNITS = frozenset({"st", "nd", "rd", "th", "am", "pm", "a", "p", "x"})
"""Units a number takes in a list or a time of day ("2nd", "9 am"): another number there is no new value. A month's name
("23 Mar") makes the number a day (:func:`_month`)."""


MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTH_WORD = (r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
              r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)")
DAY_OF_MONTH = re.compile(
    rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month>{MONTH_WORD})\b|\b(?P<month_first>{MONTH_WORD})\.?\s+"
    r"(?P<day_after>\d{1,2})(?:st|nd|rd|th)?\b|(?P<zh_month>\d{1,2})\s?月\s?(?P<zh_day>\d{1,2})\s?[日号]",
    re.IGNORECASE)
"""A day of a month, read as the quantity ("date", "5-12"): "Tuesday 12 May", "May 12th", "4 月 28 日". An
appointment moved to another day is another value of the same thing, when the two sentences name the same thing
(:data:`DATED_THING`)."""
DATED_THING = re.compile(r"[A-Z]{2,}|[._:/-]|\d")
"""What two sentences must both name for another day to be a new value: an acronym or an identifier ("CKA",
"PSI", "killer.sh"), not a person's name, which every card of a chat names."""
NEAR = 40
"""Characters after a cue that names the replaced value ("moving her from Elmwood", "no more Redis") in which a name
is read as that value: a name elsewhere in a long sentence is what the sentence is about, not what was replaced."""
OLD_VALUE = re.compile(
    r"\b(?:from(?! now on\b)|off|instead of|no longer|no more|not any more|used to|drop(?:ped|s|ping)?|"
    r"remov(?:ed|es|ing)?|"
    rf"replac(?:ed|es|ing|e)?)\b|(?<=[(（]){WAS}|(?<=[(（] ){WAS}|"
    r"(?<=,) ?not(?= \d)|(?<=，) ?(?:而不是|不是)(?= ?\d)|"
    r"不再|不用(?=[^，。；！？,;!?]{1,30}了)|不需要(?=[^，。；！？,;!?]{1,30}了)|之前是|以前是|原先是|原来是|原定|"
    r"原来(?= ?\d)|从|把(?=[^，。；！？,;!?从]{1,40}?(?:换成|改成|改为|换为|替换成|替换为))", re.IGNORECASE)
"""Cues followed by the value that no longer holds. "X moved to Y" / "X 搬到 Y" are not among them: X is what the
sentence is about (a clinic that moves, a person who changes teams), Y the new value; neither is a value an earlier
card gave that is now replaced, so the earlier card that merely names X is not replaced by it."""
OLD_VALUE_BEFORE = re.compile(r"\b(?:any ?more|(?:was|were|is|are|been|got|gets?) (?:replaced|dropped|removed))\b",
                              re.IGNORECASE)
"""Cues preceded by the value that no longer holds ("we don't use Redis anymore", "Redis was replaced by …")."""
NEW_VALUE = re.compile(r"\b(?:to|with|for|by)\b|[到成为用]|,(?!\d{3}(?!\d))|[;，；：。()（）]|(?<!\d):|:(?!\d)",
                       re.IGNORECASE)
"""Where the replaced value's words end: "from 120 s to 300 s", "从 Redis 换成 Postgres", a clause's end (not the
colon of a time: "instead of 3:30", nor the comma of a thousand: "instead of 3,000")."""
VALUE_NUMBER = re.compile(r"(?<![A-Za-z0-9_.:/-])(\d+(?::\d{2}|[.,]\d+)?)([a-z%]{1,3}(?![A-Za-z0-9_]))?"
                          r"(?![A-Za-z0-9_:/-]|\.\d|\s?[月日号年])", re.IGNORECASE)
"""A number that can be a value, a unit written onto it allowed ("30s", "512Mi"): not a date's day or month ("5 月",
"15 日"), not part of an identifier or a version ("v2", "4.18.0"). Chinese writes a number against its words
("从100改为120"), which are no part of it."""
ORDINAL = frozenset({"st", "nd", "rd", "th"})
WEEKDAY_WORD = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs)?|fri|sat(?:ur)?|sun)(?:day)?"
DAY_BEFORE = re.compile(rf"\b(?:{MONTH_WORD}|{WEEKDAY_WORD})\.?,?\s*$", re.IGNORECASE)
DAY_AFTER = re.compile(rf"^\s*{MONTH_WORD}\b", re.IGNORECASE)
"""A month or weekday name beside a number makes it a day ("Monday 20 April", "Jan 12")."""
OLD_DAY = re.compile(
    r"\b(?:instead of|rather than|no longer|(?:mov|push|postpon|reschedul|shift|bump)(?:ed|es|ing|e)? "
    rf"(?:(?!to\b|until\b)\S+ ){{0,3}}from)\b|(?<=[(（]){WAS}|"
    rf"(?<=[(（] ){WAS}|(?<=,) ?not\b|(?<=，) ?不是|原来|原定|原本|之前是|以前是|而不是",
    re.IGNORECASE)
"""Cues followed by a day that no longer holds ("now starts on 8 June instead of 1 June", "原来 6 月 6 号那班来不及",
"moved the exam from 12 May"). Not a bare "from" / "从": after it a day is most often when something starts
("moved to Thursdays from the week of 3 May", "5 月 22 日起")."""
PLAIN_CUE = re.compile(r"\b(?:no longer|no more|not any more|stop(?:ped|ping|s)?)\b|停掉|停用|"
                       r"不用(?=[^，。；！？,;!?]{1,30}了)|不需要(?=[^，。；！？,;!?]{1,30}了)", re.IGNORECASE)
"""The cues after which a plain word (not a name: the first word after the cue that is not a stop word) is read as
the replaced value, when the earlier card says it too: "no more pin" against "pin pydantic below 2", "不用 twice a
day 了" against "twice a day, around 7am and 9pm" ("不用…了", no longer needed: "不用担心" is no change), "stop
amlodipine，改成 perindopril" (a stop counts only beside a cue of what replaces it: "stop nginx" alone is an
everyday step of operations, heads are read only in a sentence with a cue of :data:`REPLACES`). Only these say
that what follows held before: after "instead of", "replaces", "drop", a plain word is as often an alternative or
a mechanism ("instead of per role", "a reload replaces the worker processes"; the demo store), after "from", "used
to" a place, a time or a verb ("used to love", "from home"; LoCoMo)."""
PLAIN_WORD = re.compile(r"(?<![\w.-])[a-z][a-z0-9_]{2,}(?![\w-])")
STOPWORDS = frozenset("""
the this that these those its our my your their his her we you they them any some all one more than been are was
were for with and but just need needed have has had does did can could will would should there here longer about
like really very time times thing things way much many also even still get got going feel felt think thought want
wanted make made lot bit kind sort other another such same own new old now then when what who how why where which
while too not out off up down over into onto from because since after before until unless though although whether
if else than via per each every both either neither
""".split())
"""Words too common to be a replaced value ("no more than", "instead of the")."""
CLAUSE = re.compile(r",(?!\d{3}(?!\d))|[;，；（）()—–]")
"""Within a sentence, the pieces a number and its change cue must share ("3 月 12 日凌晨 02:00，要把 X 迁到新机器上":
the time is when X moves, not a new time; "someone already raised it — the ALB won't cut a 300 s request": 300 s
is no raised value)."""
NOT_CHANGED = re.compile(
    r"\bnot doing\b|\b(?:won't|will not|didn't|did not|don't|do not|not going to|decided not to|never)\s+"
    r"(?:\w+\s+){0,2}?"
    r"(?:rais|lower|increas|decreas|bump|chang|mov|switch|migrat|upgrad|downgrad|scal|replac)\w*|"
    r"不做|先不|没(?:有)?(?:改|换|调|加|升|降|扩|迁|挪)", re.IGNORECASE)
"""A change said not to be made ("Not doing: 把 partition 从 12 加到 24", "we decided not to move the queue to
Redis", "先不扩容"): its cue replaces nothing. A value no longer held is said with its own cue ("not on Redis any
more", "不再"), which this leaves alone."""


@dataclass(frozen=True)
class Said:
    """What a text says: ``names`` (identifiers, proper names; casefolded), ``mentions`` (those plus acronyms and,
    in Chinese text, any Latin word: enough to tell two sources speak of one thing, too loose to say which
    value was replaced: ``SET``, ``PR``, ``client``) and quantities (unit, number)."""

    names: frozenset[str]
    quantities: frozenset[tuple[str, str]]
    mentions: frozenset[str] = frozenset()
    words: frozenset[str] = frozenset()
    """Every Latin word, casefolded: what a plain word a cue names as replaced ("no more pin") is looked up in."""
    numbers: frozenset[str] = frozenset()
    """Every number that can be a value (:func:`value_numbers`): what a number a cue names as replaced is looked
    up in."""
    chinese: bool = False
    """Said in Chinese: its Latin words are names, which the other language may write as plain words."""
    runs: tuple[str, ...] = ()
    """Its runs of Chinese characters, in which a name the other language writes in Latin letters is looked up."""
    measured: frozenset[tuple[str, str]] = frozenset()
    """What each quantity measures, as (unit, words) (:func:`_measured_by`): how a sentence that names nothing says
    which earlier value it replaces ("metoprolol succinate 12.5 mg" against "metoprolol succinate 25 mg")."""


@dataclass(frozen=True)
class Statement:
    """What a card says, as a whole (for contradictions) and sentence by sentence (for replacements)."""

    whole: Said
    sentences: tuple[Said, ...]


def said(text: str, names: frozenset[str] | None = None) -> Said:
    """``names``: the text's names when already read (a card's: those of its sentences, see :func:`statement`)."""
    if names is None:
        names = _names(text)
    mentions = {name.casefold() for name in ACRONYM.findall(text) if good_name(name)}
    chinese = CJK.search(text) is not None
    if chinese:
        mentions.update(word.casefold() for word in LATIN_WORD.findall(text) if good_name(word))
    measured: set[tuple[str, str]] = set()
    return Said(frozenset(names), frozenset(_quantities(text, measured)),
                frozenset(names | mentions),
                frozenset(PLAIN_WORD.findall(text.casefold())), frozenset(value_numbers(text)), chinese,
                cjk_runs(text) if chinese else (), frozenset(measured))


@functools.lru_cache(maxsize=4096)
def _names(text: str) -> frozenset[str]:
    """A sentence's names, casefolded; kept: a new card's sentences are read against each of its candidates."""
    return frozenset(name.casefold() for name in proper_names(text))


def statement(text: str) -> Statement:
    """The card's names are its sentences' (reading names, jieba's tagging above all, is most of what supersede
    costs: once a sentence, not again for the whole)."""
    parts = tuple(said(sentence) for sentence in sentences(text))
    return Statement(said(text, frozenset().union(*(part.names for part in parts))), parts)


def card_text(card: dict) -> str:
    """A card's words as introspect reads them: without its labels, a diff it quotes read as the lines it adds and
    the values they replace (:func:`resolve_diffs`), not as removed lines that seem to hold."""
    return plain(card["title"], resolve_diffs(card["content"]))


def sentences(text: str) -> list[str]:
    return [piece.strip() for piece in SENTENCE_END.split(text) if piece and piece.strip()]


@dataclass(frozen=True)
class Reading:
    """What a sentence says of a change, whatever it is compared with: read once, since a new card's sentences are
    compared with up to eight earlier cards each (the regular expressions alone were a third of supersede's time)."""

    says_now: bool
    """A cue of a current value (:data:`NOW`), with or without one of a replaced value (:data:`REPLACES`)."""
    strong: bool
    """A cue of a replaced value (:data:`REPLACES`)."""
    said: Said
    changing: frozenset[tuple[str, str]]
    """The quantities said in a clause that has a cue."""
    replacing: frozenset[tuple[str, str]]
    """Of those, the ones said in a clause with a cue of a replaced value: the new value, before a "now" of the
    situation ("大客户现在要 40 秒了，timeout 改成 60s")."""
    replaced: str
    """The words a cue names as the replaced value (:func:`_replaced_values`)."""
    plain_heads: tuple[str, ...]
    """The first plain word after each "no longer", "no more"… (see :data:`PLAIN_CUE`)."""
    replaced_numbers: tuple[str, ...] = ()
    """The numbers a cue names as the replaced value ("from 900 to 300", "3:15 instead of 3:30", "从 30s 改成")."""
    replaced_days: tuple[str, ...] = ()
    """The days of a month a cue names as the replaced value (:data:`OLD_DAY`), as ``_quantities`` writes them."""


@functools.lru_cache(maxsize=16384)
def reading(sentence: str) -> Reading | None:
    """What ``sentence`` says changed; None when it has no cue of a change at all."""
    strong, weak = REPLACES.search(sentence), NOW.search(sentence)
    if not (strong or weak) or NOT_CHANGED.search(sentence):
        return None
    changing: set[tuple[str, str]] = set()
    replacing: set[tuple[str, str]] = set()
    for clause in CLAUSE.split(sentence):
        replaces = REPLACES.search(clause) is not None
        if replaces or NOW.search(clause):
            quantities = _quantities(clause)
            changing |= quantities
            if replaces:
                replacing |= quantities
    heads = [next((word for word in PLAIN_WORD.findall(span) if _plain_value(word)), None)
             for span in (_replaced_values(sentence, PLAIN_CUE) if strong else "").split("\n")
             if not span.lstrip().startswith("than")]  # "no more than 5 minutes": a bound, not a value
    replaced = _replaced_values(sentence) if strong else ""
    return Reading(says_now=bool(weak), strong=bool(strong), said=said(sentence), changing=frozenset(changing),
                   replacing=frozenset(replacing), replaced=replaced,
                   plain_heads=tuple(word for word in heads if word),
                   replaced_numbers=tuple(number for span in replaced.split("\n") for number in value_numbers(span)
                                          if _telling(number)),
                   replaced_days=tuple(sorted(day for unit, day in _quantities(_replaced_values(sentence, OLD_DAY))
                                              if unit == "date")) if strong else ())


def replacement(sentence: str, earlier: Statement, close: bool) -> tuple[int, str | None]:
    """How strongly ``sentence`` says it replaces a value ``earlier`` stated (0: not at all), and what shows it.

    - another number, in the clause of a change cue, in the unit a sentence of ``earlier`` gave, which also mentions
      something ``sentence`` mentions: 1; 2 when, after a cue of a replaced value (not a bare "now"), the thing both
      mention is an identifier ("be_tracking_gw 的 timeout server 改成 60s"); 3 when ``sentence`` also repeats the
      earlier number ("raised from 120 s to 300 s"): of two earlier cards in that unit, the one whose value it
      names is the one it replaces;
    - another day of a month, the same way, when what both sentences mention is an acronym or an identifier
      ("Exam now Tuesday 12 May (PSI)" against "CKA 考试约在 4 月 28 日，PSI 线上监考"): 1;
    - a number ``earlier`` says, where a cue names the replaced value ("TTL 从 900 降到 300", "3:15 instead of
      3:30"): 3 when the sentence gives it a unit or mentions something ``earlier`` mentions, else 1 (a bare
      "…, not 60" also ends "the drift was only ~35 s when the 401s started, not 60", which replaces no relay that
      "retries every 60 s": only a card close in meaning is read as replaced by it);
    - a day ``earlier`` says, where a cue names it as the replaced day ("8 June instead of 1 June"): 3 when the
      sentence of ``earlier`` that says it mentions something ``sentence`` mentions, else 1;
    - a name ``earlier`` says, where a cue names the replaced value ("moving her from Elmwood", "drop Redis", "从
      Redis 换成"; not "Harbor Dental moved to …", whose name is what moves): 1;
    - a name both say after a bare "now", only when the two cards are ``close`` in meaning: 1.
    """
    read = reading(sentence)
    if read is None:
        return 0, None
    mine = read.said
    for other in earlier.sentences:
        shared = _shared_mentions(mine, other) or _measured_alike(mine, other, read.changing, earlier.whole)
        if not shared:
            continue
        units = {unit for unit, _ in other.quantities}
        changed = sorted(((unit, number) for unit, number in read.changing
                          if unit in units and (unit, number) not in other.quantities),
                         key=lambda item: (item not in read.replacing, item))
        if unit_dates := [item for item in changed if item[0] == "date"]:
            specific = any(DATED_THING.search(name_case(name, sentence)) for name in shared) and any(
                DAY_MOVED.search(clause) and ("date", day) in _quantities(clause)
                for clause in CLAUSE.split(sentence) for _, day in unit_dates)
            changed = [item for item in changed if item[0] != "date"] + (unit_dates if specific else [])
            if specific:  # a new day of the month brings its day of the week along
                changed = [item for item in changed if item[0] != "weekday"]
        if changed:
            unit, number = changed[0]
            repeated = any(quantity in other.quantities for quantity in mine.quantities if quantity[0] == unit)
            named = read.strong and any(IDENTIFIER_LIKE.search(name) for name in shared)
            return 3 if repeated else 1 + named, _shown(sentence, unit, number)
    numbers = [number for number in read.replaced_numbers
               if number in earlier.whole.numbers and _in_its_unit(number, read, earlier.whole)]
    if numbers:
        plain = any(value == numbers[0] for _, value in mine.quantities) or _shared_mentions(mine, earlier.whole)
        return 3 if plain else 1, numbers[0]
    for day in read.replaced_days:
        holding = [other for other in earlier.sentences if ("date", day) in other.quantities]
        if holding:
            return 3 if any(_shared_mentions(mine, other) for other in holding) else 1, day
    own_names = mine.mentions if mine.chinese else mine.names  # in Chinese text a Latin word is a name
    named = sorted((name for name in own_names & (earlier.whole.names | earlier.whole.words) if name in read.replaced
                    and name not in _before_cue(sentence)), key=lambda name: (read.replaced.find(name), name))
    if named and _same_subject(sentence, read, earlier.whole):
        return 1, named[0]
    plain_words = [word for word in read.plain_heads if word in earlier.whole.words]
    if plain_words:
        return 1, plain_words[0]
    shared = sorted(mine.names & earlier.whole.names)
    return (1, shared[0]) if len(shared) >= 2 and close and read.says_now else (0, None)


def _in_its_unit(number: str, read: Reading, earlier: Said) -> bool:
    """Whether ``earlier`` gives a replaced number in the unit the sentence gives it, when both give it one: "Get
    went from 48 ns to 3 ns" replaces no "48 hours" rule."""
    mine = {unit for unit, value in read.changing if value == number and unit in MEASURES}
    theirs = {unit for unit, value in earlier.quantities if value == number and unit in MEASURES}
    return not (mine and theirs) or bool(mine & theirs)


def _shown(sentence: str, unit: str, number: str) -> str:
    """A changed quantity as a person reads it: a time or a weekday as the sentence writes it ("22:00", "Fridays"),
    a day of a month as it is read ("6-18"), a version after its name ("Go 1.23"), else the number and its unit
    ("300 s", "9 attempt")."""
    if unit == "clock":
        return as_written(sentence, number)
    if unit == "weekday":
        return next((day.group(0) for day in WEEKDAY.finditer(sentence) if _weekday(day.group(0)) == number), number)
    if unit.startswith("v:"):
        return f"{name_case(unit[2:], sentence)} {number}"
    if unit == "date":
        return number
    if unit.startswith("@"):  # a number named by the words before it
        return f"{unit[1:]} {number}"
    plural = next((match.group(3).casefold() for match in QUANTITY.finditer(_numbers_written_out(sentence))
                   if match.group(3) and match.group(3).casefold() == f"{unit}s"), None)  # "5 times" as written
    return f"{number} {plural or unit.removeprefix('#')}"


def _shared_mentions(mine: Said, other: Said) -> frozenset[str]:
    """What two sentences both mention. Across languages a Latin word of the Chinese sentence ("feed 缓存改回 5 分钟")
    is a plain word of the English one ("the feed cache is 2 minutes"), which names nothing there, and a Chinese
    name is written in Latin letters (朵朵 and "Duoduo", 周岚 and "Zhou Lan"; :mod:`romanised`)."""
    shared = mine.mentions & other.mentions
    if mine.chinese == other.chinese:
        return shared
    chinese, english = (mine, other) if mine.chinese else (other, mine)
    shared |= {word for word in chinese.mentions & english.words if word not in STOPWORDS}
    return shared | spelled_in(english.mentions - shared, chinese.runs)


def _measured_alike(mine: Said, other: Said, changing: frozenset[tuple[str, str]], card: Said) -> frozenset[str]:
    """What a changing quantity of ``mine`` and one of ``other`` in its unit both measure, when ``mine`` names
    nothing or its earlier card (``card``) names what ``mine`` names: the words around a number say which earlier
    value it replaces where the sentences share no name ("metoprolol succinate 12.5 mg each morning", "1¼ cups of
    kibble a day from now on"; "imgproxy 已经扩到 5 个副本了" against a card about imgproxy whose answer was "对，3 个
    副本")."""
    if mine.mentions and not _shared_mentions(mine, card):
        return frozenset()
    units = {unit for unit, _ in changing}
    named = {unit for unit in units if unit.startswith("@")} & {unit for unit, _ in other.quantities}
    return frozenset(words for unit, words in mine.measured & other.measured if unit in units) | named


def name_case(name: str, text: str) -> str:
    """``name`` (casefolded) as ``text`` writes it."""
    at = text.casefold().find(name)
    return text[at:at + len(name)] if at >= 0 else name


def _before_cue(sentence: str) -> str:
    """What a sentence says before its first cue of a replaced value, casefolded: what it is about, whose names are
    no replaced value ("Maria's aunt … used to help Maria's family")."""
    if OLD_VALUE_BEFORE.search(sentence):  # "Redis was replaced by …": the value comes first
        return ""
    cue = OLD_VALUE.search(sentence.casefold())
    return sentence[:cue.start()].casefold() if cue else ""


def _same_subject(sentence: str, read: Reading, earlier: Said) -> bool:
    """Whether ``earlier`` speaks of what the sentence changes, when the sentence names it before the cue: "Olu
    repoints amqp.kestrel.internal from mq-syd-02 to mq-mel" replaces where that name pointed, not a card about
    mq-syd-02's disk; "moving her from Elmwood" names no subject, and the school card it replaces holds. In Chinese
    text a Latin word is a name ("把 tariff-calc 从 Poetry 换成 uv"), which the earlier card may say in any case."""
    cue = OLD_VALUE.search(sentence.casefold())
    if not cue:
        return True
    head, replaced = sentence[:cue.start()], set(read.replaced.split())
    before = _names(head) - replaced
    latin = {word.casefold() for word in LATIN_WORD.findall(head)} - replaced if CJK.search(sentence) else set()
    return not (before or latin) or bool(before & earlier.mentions) or bool(latin & (earlier.mentions | earlier.words))


def settings(text: str) -> dict[str, list[tuple[str, frozenset[str]]]]:
    """The numbers ``text`` gives each setting (:data:`KEY_VALUE`), by name casefolded, each with what its sentence
    names besides settings (identifiers: ``dlq-limits``, ``pg-main-02``), which tells whose setting it is: one name
    is set for many things ("pool_size=20" for the app, "pool_size=30" in the pooler)."""
    found: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for line in sentences(text):
        given = KEY_VALUE.findall(line)
        if not given:
            continue
        keys = {key.casefold() for key, _ in given}
        named = frozenset(word for word in map(str.casefold, IDENTIFIER.findall(line))
                          if IDENTIFIER_LIKE.search(word) and word not in keys)
        for key, value in given:
            found.setdefault(key.casefold(), []).append((value, named))
    return found


def changed_settings(given: dict[str, list[tuple[str, frozenset[str]]]], earlier: str) -> list[str]:
    """The settings a new card gives (``given``, its :func:`settings`) a number ``earlier`` never gives them, in a
    sentence naming something the earlier card's sentence for that setting names too (the same policy, host or
    service), or where neither names anything besides settings: one name set for two things (``pool_size`` of an
    app and of its pooler) is told by what its sentences name."""
    before = settings(earlier)
    return sorted(key for key in given.keys() & before.keys()
                  if not {value for value, _ in given[key]} & {value for value, _ in before[key]}
                  and (any(named & other for _, named in given[key] for _, other in before[key])
                       or not any(named for _, named in given[key]) and not any(other for _, other in before[key])))


def gives_another(line: str, value: str) -> bool:
    """Whether ``line`` gives another number than ``value``, in ``value``'s unit when it has one ("donepezil 5 mg —
    at bedtime" against "10 mg"; "keep the default concurrency at 4" against "8")."""
    mine = _quantities(value)
    if mine:
        units = {unit for unit, _ in mine}
        theirs = {quantity for quantity in _quantities(line) if quantity[0] in units}
        return bool(theirs) and not theirs & mine
    numbers, others = set(value_numbers(value)), set(value_numbers(line))
    return bool(numbers and others) and not numbers & others


def value_numbers(text: str) -> list[str]:
    """The numbers of ``text`` that can be values (:data:`VALUE_NUMBER`), a day after a month name left out."""
    return [_magnitude(match.group(1).replace(",", ""), match.group(2), text[match.end():match.end() + 3])
            for match in VALUE_NUMBER.finditer(text)
            if (match.group(2) or "").casefold() not in ORDINAL
            and not DAY_BEFORE.search(text[max(0, match.start() - 12):match.start()])
            and not DAY_AFTER.match(text[match.end():match.end() + 12])]


def _magnitude(number: str, unit: str | None, after: str) -> str:
    """``number`` written out when a word of size follows it ("5 万", "2.5k"); as it is otherwise. ``after``: the
    few characters right after the number."""
    word = (unit or after.lstrip()[:1]).casefold()
    if word not in MAGNITUDES or ":" in number or (word == "k" and not unit) or NOT_MAGNITUDE.match(after.lstrip()):
        return number
    value = float(number) * MAGNITUDES[word]
    return str(int(value)) if value.is_integer() else str(value)


def _telling(number: str) -> bool:
    """A number too particular to be shared by chance: two digits or more, or a time or a decimal ("3:30", "1.5")."""
    return len(number) >= 2


def _plain_value(word: str) -> bool:
    return word not in STOPWORDS and not word.endswith("ing")


def _replaced_values(sentence: str, cues: re.Pattern | None = None) -> str:
    """The words of ``sentence`` that name a value no longer holding (after "from", "instead of", "no more", "不再",
    "从"…, up to the new value or :data:`NEAR` characters; before "anymore"), casefolded and joined; ``cues``:
    which cues (default :data:`OLD_VALUE`, and the ones before)."""
    folded = sentence.casefold()
    spans = []
    for cue in (cues or OLD_VALUE).finditer(folded):
        aside = _aside(folded, cue.start(), cue.end())
        if aside is not None:
            spans.append(aside)
            continue
        rest = folded[cue.end():cue.end() + NEAR]
        end = NEW_VALUE.search(rest, 1)
        spans.append(rest[:end.start()] if end else rest)
    if cues is not None:
        return "\n".join(spans)
    spans.extend(folded[max(0, cue.start() - NEAR):cue.start()] for cue in OLD_VALUE_BEFORE.finditer(folded))
    return "\n".join(spans)


OPENING, CLOSING = "(（[{", ")）]}"
ASIDE = 300
"""Characters read, at most, of a replaced value given in brackets."""


def _aside(folded: str, start: int, end: int) -> str | None:
    """A replaced value given in brackets right after its cue ("= 20000 （之前是 sum(lag) > 50000）", "(was 120)"):
    all of it to the closing bracket, which a value quoted from code may hold brackets and commas before; None when
    the cue opens no bracket."""
    before = folded[max(0, start - 2):start].rstrip()
    if not before or before[-1] not in "(（":
        return None
    depth = 0
    for at in range(end, min(len(folded), end + ASIDE)):
        char = folded[at]
        if char in OPENING:
            depth += 1
        elif char in CLOSING:
            if depth == 0:
                return folded[end:at]
            depth -= 1
    return folded[end:end + ASIDE]


def conflict_anchor(sentence: str, earlier: Said, around: Said | None = None, close: bool = False) -> str | None:
    """When ``sentence`` says two sources disagree: a name it shares with ``earlier``, or, when the cards are
    ``close`` in meaning, a quantity (or another number in a unit ``earlier`` used); else None. ``around``: what
    the rest of the card says, whose names count for a sentence that points back at it ("跟俊峰说的对不上", "这次就是
    反例", "that contradicts it"): always when the cards are close, else only when the sentence names nothing
    itself. A unit alone says nothing of which earlier card the sources disagree with: "the timer and the runbook
    disagree: Saturdays at 22:00" found a card of another time of day."""
    if not CONFLICT.search(sentence):
        return None
    mine = said(sentence)
    shared = _telling_names(mine.mentions & earlier.mentions)
    if not shared and around is not None and (close or not _telling_names(set(mine.mentions))):
        shared = _telling_names(around.mentions & earlier.mentions)
    if shared or not close:
        return shared[0] if shared else None
    units = {unit for unit, _ in earlier.quantities}
    return next((_quantity_shown(sentence, unit, number)
                 for unit, number in sorted(mine.quantities, key=lambda quantity: quantity not in earlier.quantities)
                 if unit in units), None)


def shared_value(sentence: str, earlier: Said) -> str | None:
    """A quantity ``sentence`` gives that ``earlier`` gives too ("runbook says 60 s" against "tolerates 60 seconds"),
    as the sentence writes it; else None."""
    return next((_quantity_shown(sentence, unit, number)
                 for unit, number in sorted(said(sentence).quantities & earlier.quantities)), None)


def _quantity_shown(sentence: str, unit: str, number: str) -> str:
    return f"{as_written(sentence, number) if unit == 'clock' else number} {unit}"


def conflict_overlap(sentence: str, earlier: Said) -> tuple[int, int]:
    """How much of what ``sentence`` says ``earlier`` says too: the quantities both give, then the telling names
    both name. Of the earlier cards a disagreement may be with, the one it speaks of gives the value disagreed
    about ("康复师说 4 周，孙医生说 6 周" is with the card that gave 6 weeks, not with a card of the same clinic) and
    names most of it ("JAVA_TOOL_OPTIONS 写的是 60，但 JVM 报告 MaxRAMPercentage=75" is with the card that set both,
    not with one that named the JVM's default)."""
    mine = said(sentence)
    return (len(mine.quantities & earlier.quantities), len(_telling_names(mine.mentions & earlier.mentions)))


def _telling_names(names: set[str]) -> list[str]:
    """Names that can tell what two sources disagree about, the longest first: two letters ("ci", "db") name a
    whole field, not the one thing both speak of."""
    return sorted((name for name in names if len(name) >= 3 or CJK.search(name)), key=lambda name: (-len(name), name))


def _month(unit: str) -> bool:
    """A month's name ("24 July"): a day, read as a date below, not a quantity in "july"."""
    return re.fullmatch(MONTH_WORD, unit, re.IGNORECASE) is not None


UNITS = {"minute": "min", "minutes": "min", "mins": "min", "分钟": "min", "second": "s", "seconds": "s", "sec": "s",
         "secs": "s", "秒": "s", "hour": "h", "hours": "h", "hr": "h", "hrs": "h", "小时": "h", "day": "d",
         "days": "d", "天": "d", "week": "w", "weeks": "w", "周": "w", "month": "mo", "months": "mo",
         "元": "cny", "块": "cny", "块钱": "cny", "yuan": "cny", "rmb": "cny", "cny": "cny", "英镑": "gbp", "镑": "gbp",
         "pound": "gbp", "pounds": "gbp", "gbp": "gbp", "欧元": "eur", "euro": "eur", "euros": "eur", "eur": "eur",
         "美元": "usd", "dollar": "usd", "dollars": "usd", "usd": "usd"}
"""One name for a unit however it is written ("2 minutes", "2 min", "2 分钟"; "5,000 yuan", "3000 元"): an update
may say the value in other words, or in the other language, than the card it replaces."""


MEASURES = frozenset(UNITS.values()) | frozenset("""ms ns us µs kb mb gb tb kib mib gib tib % rps qps mg kg ml
km cm mm 毫克 公斤 毫升""".split())
"""Units that measure (the word after a number may be any: "from 600 to 240 seconds" reads a unit "to")."""


CLOCK_WORDS = re.compile(
    r"(?<![A-Za-z0-9_.:])(?P<hour>\d{1,2})(?::(?P<minute>\d{2}))?\s?(?:[ap]\.?m\b\.?)"
    r"|(?:(?:早上|早晨|上午|中午|下午|傍晚|晚上|夜里|凌晨)\s?(?P<zh_hour>\d{1,2})\s?[点時时]|"
    r"(?P<zh_hour_only>\d{1,2})\s?点(?=钟|半|\s?\d{1,2}\s?分))(?:\s?(?P<half>半)|\s?(?P<zh_minute>\d{1,2})\s?分)?",
    re.IGNORECASE)
"""A time of day said in words: "10am", "8 pm", "下午 2 点", "晚上 8 点半", "7 点钟"."""


NAMED_NUMBER = re.compile(r"\b([A-Za-z][a-z_-]{2,})\s+([A-Za-z][a-z_-]{2,})\s+(?:to|at|is|of|=|:)\s*(\d{1,6})"
                          r"(?!\d|[.,:]\d|%|\s?[\u4e00-\u9fff])(?:\s?([A-Za-z]+))?")
"""A number with no unit after two words that name it and a small word ("the default concurrency to 8", "keep the
default concurrency at 4"): its unit is the two words. Not a decimal, a thousand or a time ("8.5", "1,000",
"8:30"); a sentence's full stop after it is no decimal point."""
COUNTED = re.compile(r"(?<![A-Za-z0-9_.:/-])(\d+(?:,\d{3})*)\s+(?:(?:parallel|concurrent|more|extra|total|max)\s+)?"
                     r"([A-Za-z]{4,12})\b")
"""A count of things ("12 attempts", "8 parallel parts"): its word is its unit, another count of the same word a new
value of it."""
NOT_COUNTED = frozenset("""than with from that this more less each per into over about times years year ago later
earlier before after other""".split())
VERSIONED = re.compile(r"(?<![\w.-])([A-Za-z][A-Za-z+#]{1,15}) v?(\d+(?:\.\d+){1,2}|\d{1,3})(?!\w|\.\d)")
"""A named thing and its version ("Go 1.23", "iOS 14", "JDK 21"): the version is a value of that thing, another
version of it a new value ("moved pricing-svc to Go 1.23" against "still Go 1.22.6")."""
NOT_VERSIONED = frozenset("""step steps day days week weeks year years room rooms page pages line lines item items
part parts phase phases level levels round rounds chapter section table figure option version v top tier""".split())
"""Words a number follows that are no product's name ("Step 2", "Year 3", "Room 12")."""
WEEKDAY = re.compile(rf"\b{WEEKDAY_WORD}s?\b|(?:周|星期|礼拜)[一二三四五六日天]", re.IGNORECASE)
"""A day of the week: a weekly thing moved to another day ("physio moved to Tuesdays", "课从周三挪到周四")."""
WEEKDAYS = {"mon": "1", "tue": "2", "wed": "3", "thu": "4", "fri": "5", "sat": "6", "sun": "7", "一": "1", "二": "2",
            "三": "3", "四": "4", "五": "5", "六": "6", "日": "7", "天": "7"}


def _product_version(name: str, number: str) -> bool:
    """Whether ``name number`` is a product's version: a dotted number after any name not in :data:`NOT_VERSIONED`
    ("Go 1.22"), a plain one only after a name written like a product's ("iOS 14", "JDK 21", "macOS 15"), never
    after a month ("May 12"), a weekday or a common word ("and 1.25 cups")."""
    folded = name.casefold()
    if folded in NOT_VERSIONED or folded in STOPWORDS or _month(name) or WEEKDAY.fullmatch(name) or folded in UNITS:
        return False
    return "." in number or sum(char.isupper() for char in name) >= 2


def _weekday(word: str) -> str:
    folded = word.casefold()
    return WEEKDAYS[folded[-1] if CJK.search(folded) else folded[:3]]


def _clock(hour: int, minute: int) -> tuple[str, str]:
    """A time of day on a 12-hour dial: "下午 4:30", "16:30" and "4:30pm" are one time; so are 7am and 7pm, which a
    sentence rarely moves one to the other (an update missed), where reading 4:30 against 16:30 would find changes
    that are none."""
    return "clock", f"{hour % 12}:{minute:02d}"


def as_written(text: str, time: str) -> str:
    """A time of day of :func:`_clock` as ``text`` writes it ("22:00" for "10:00"), to show a person."""
    for match in itertools.chain(CLOCK_WORDS.finditer(text), QUANTITY.finditer(text)):
        if time in {value for unit, value in _quantities(match.group(0)) if unit == "clock"}:
            return match.group(0).strip()
    return time


MEASURED_BEFORE = re.compile(r"([A-Za-z][a-z-]{2,})\s+([A-Za-z][a-z-]{2,})\s+$")
"""The two words right before a number, the thing it measures when neither is a common word ("metoprolol
succinate 12.5 mg")."""
MEASURED_OF = re.compile(r"^\s*of\s+([a-z][a-z-]{2,})", re.IGNORECASE)
"""The word after a unit and "of" ("1 cup of kibble")."""
MEASURED_COUNTED = re.compile(r"^\s*([\u4e00-\u9fff]{2})")
"""The two characters after a Chinese measure word ("5 个副本")."""
COUNTING_UNITS = frozenset("个台条家位")
VULGAR = re.compile(r"(\d*)\s?([¼½¾])")
FRACTIONS = {"¼": 0.25, "½": 0.5, "¾": 0.75}
MONEY = re.compile(r"(?:US)?([$£€¥￥])\s?(\d+(?:,\d{3})*(?:\.\d+)?)(?![\d,]*\.?\d)")
CURRENCY_SIGNS = {"$": "usd", "£": "gbp", "€": "eur", "¥": "cny", "￥": "cny"}
PER_SECOND = re.compile(r"[kmgt]?i?bps|[kmgt]?[qr]ps|k?i?ops|fps")
"""Rates whose final s is "per second", not a plural ("Gbps", "iops"; "drops" is a plural)."""


def _unit(written: str) -> str:
    """A unit as compared: its usual name ("secs" is s), a Latin one in the singular ("cups" is cup; not a rate per
    second: "Gbps" is no pound sterling)."""
    unit = written.casefold()
    return _singular(UNITS.get(unit, unit))


def _singular(word: str) -> str:
    """A Latin word of four letters or more in the singular ("cups", "attempts"), not one in "ss" or a rate."""
    plural = len(word) > 3 and word.isascii() and word.endswith("s") and not word.endswith("ss")
    return word[:-1] if plural and not PER_SECOND.fullmatch(word) else word


def _numbers_written_out(text: str) -> str:
    """Vulgar fractions as decimals ("1¼ cups" is 1.25 cups, "½ cup" 0.5) and sums after a currency sign with their
    unit after them ("£2,100" is 2,100 gbp, "$300" 300 usd): how :data:`QUANTITY` reads a quantity."""
    text = VULGAR.sub(lambda match: f"{int(match.group(1) or 0) + FRACTIONS[match.group(2)]:g}", text)
    return MONEY.sub(lambda match: f"{match.group(2)} {CURRENCY_SIGNS[match.group(1)]}", text)


def _measured_by(text: str, match: re.Match, unit: str) -> set[tuple[str, str]]:
    """(unit, words) for a quantity of ``text`` (``match``, in ``unit``) whose words say what it measures: the two
    words before its number when neither is a common word, the word after "of" (English), the characters after a
    measure word (Chinese)."""
    found = set()
    before = MEASURED_BEFORE.search(text[max(0, match.start() - 40):match.start()])
    if before and not {word.casefold() for word in before.groups()} & STOPWORDS:
        found.add((unit, " ".join(before.groups()).casefold()))
    after = (MEASURED_COUNTED if unit in COUNTING_UNITS else MEASURED_OF).match(text[match.end():])
    if after:
        found.add((unit, after.group(1).casefold()))
    return found


def _quantities(text: str, measured_words: set[tuple[str, str]] | None = None) -> set[tuple[str, str]]:
    """The quantities of ``text`` as (unit, number); with ``measured_words``, what each measures is added to it in
    the same pass (:func:`_measured_by`)."""
    text = _numbers_written_out(text)
    found = set()
    for match in CLOCK_WORDS.finditer(text):
        hour = match.group("hour") or match.group("zh_hour") or match.group("zh_hour_only")
        minute = 30 if match.group("half") else int(match.group("minute") or match.group("zh_minute") or 0)
        if int(hour) <= 24 and minute < 60:
            found.add(_clock(int(hour), minute))
    measured = set()
    for match in QUANTITY.finditer(text):
        measured.add(match.start())
        if match.group(4):
            found.add(_clock(int(match.group(4)), int(match.group(5))))
        elif match.group(3).casefold() not in DATE_UNITS and not _month(match.group(3)):
            unit = _unit(match.group(3))
            found.add((unit, _magnitude(match.group(1).replace(",", ""), None, match.group(2) or "")))
            if measured_words is not None:
                measured_words |= _measured_by(text, match, unit)
    for match in COUNTED.finditer(text):
        word = _singular(match.group(2).casefold())
        if match.start() not in measured and word not in NOT_COUNTED and not _month(word) and word not in UNITS:
            found.add((f"#{word}", match.group(1).replace(",", "")))
    for match in NAMED_NUMBER.finditer(text):
        words = (match.group(1).casefold(), match.group(2).casefold())
        unit = (match.group(4) or "").casefold()  # a number with a unit is read above
        if not set(words) & STOPWORDS and (not unit or unit in STOPWORDS):
            found.add((f"@{' '.join(words)}", match.group(3)))
    for match in VERSIONED.finditer(text):
        if _product_version(*match.groups()):
            found.add((f"v:{match.group(1).casefold()}", match.group(2)))
    for match in WEEKDAY.finditer(text):
        found.add(("weekday", _weekday(match.group(0))))
    for match in DAY_OF_MONTH.finditer(text):
        month = match.group("month") or match.group("month_first") or match.group("zh_month")
        day = match.group("day") or match.group("day_after") or match.group("zh_day")
        number = int(month) if month.isdigit() else MONTHS.index(month[:3].casefold()) + 1
        if 1 <= number <= 12 and 1 <= int(day) <= 31:
            found.add(("date", f"{number}-{int(day)}"))
    return found
