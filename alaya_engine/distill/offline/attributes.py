"""Facts as data: the attributes a card's sentences state (``subject``'s ``attribute`` is ``value``).

Read offline from a few sentence shapes every language of ours uses for an attribute, English and Chinese:
a change ("raised the read timeout of report-export from 120 s to 300 s", "剂量改为每天 2000 IU"), a copula
("the timeout of report-export is 300 s", "Maya's school is Riverside", "X 的 Y 是 Z"), a relation verb
("shipnote uses procrastinate", "Maya attends Riverside Montessori"), a choice ("use Postgres instead of
Redis for the job queue") and a setting in code (``proxy-read-timeout: "300"``). A fact needs all three
parts and a value that is specific (a number, a name, an identifier, a quoted string): precision matters
more than recall, since a later fact with the same subject and attribute is read as an update of this one.
Where the sentence names no subject, the first name or identifier of the card's text stands in.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from ...foundations.domain import Fact
from .text.chinese import CJK
from .text.markdown import strip_markdown
from .text.names import good_name
from .text.sentences import split_sentences
from .text.tags import IDENTIFIER, compound_word, named_things
from .text.words import STOPWORDS, UNIT_WORDS

MAX_FACTS = 4
"""Per card: a card states one point; more matches than this are mostly the same point said again."""

_NUMBER = (r"\d{1,2}:\d{2}(?:\s?[ap]m\b)?|\d+(?:[.,_]\d+)*(?:%|[A-Za-z]{1,5}\b|\s(?:" + UNIT_WORDS
           + r")\b|\s?[\u4e00-\u9fff]{1,2})?")
_NAME = r"[A-Z][\w.+-]*(?:\s+(?:[A-Z][\w.+-]*|v?\d[\w.]*))*"
_CODE = r"[A-Za-z_][\w.+/-]*(?:[-_./][\w.+/-]+|\d[\w.]*)"
_QUOTED = r"[\"'`“‘](?P<quoted>[^\"'`”’]{1,60})[\"'`”’]"
_VALUE = rf"(?-i:{_QUOTED}|(?P<bare>v?{_NUMBER}|{_CODE}|{_NAME}))"
"""Case-sensitive inside case-insensitive patterns: a name is capitalised."""

_NOUN_PHRASE = (r"(?:the\s+|its\s+|their\s+|our\s+|my\s+|his\s+|her\s+|a\s+|an\s+)?"
                r"(?P<np>[\w.'’/-]+(?:\s+[\w.'’/-]+){0,4}?)")
"""At most five words: an attribute is named briefly ("the read timeout of report-export")."""
_CHANGE = re.compile(
    r"\b(?:raise[sd]?|increase[sd]?|bump(?:s|ed)?|lower(?:s|ed)?|reduce[sd]?|change[sd]?|set|sets|update[sd]?|"
    r"cut|cuts|(?P<moved>move[sd]?|switch(?:es|ed)?|migrate[sd]?|upgrade[sd]?|downgrade[sd]?))\s+"
    + _NOUN_PHRASE + r"\s+(?:from\s+(?P<old>.{1,40}?)\s+)?to\s+" + _VALUE, re.IGNORECASE)
_COPULA = re.compile(r"^" + _NOUN_PHRASE + r"\s+(?:is|are|was|were|=|stays at|remains|is now|are now|is set to|"
                     r"defaults to|default to)\s+(?:(?:on|at|in)\s+)?(?:the\s+)?" + _VALUE, re.IGNORECASE)
_RELATION_VERBS = ("uses", "runs on", "is on", "attends", "goes to", "lives in", "works at", "works for",
                   "owns", "is owned by", "belongs to", "depends on", "pins")
"""Verbs that state an attribute by themselves: "Maya attends X" is Maya's attends = X."""
_RELATION = re.compile(
    r"(?P<subject>" + _CODE + "|" + _NAME + r"|\b[a-z][\w-]{2,})\s+(?:now\s+|still\s+)?(?P<verb>"
    + "|".join(_RELATION_VERBS) + r")\s+(?:" + _VALUE
    + r"|(?:the\s+|an?\s+)?(?P<words>[a-z][\w-]{3,}(?:\s+[a-z][\w-]+){0,2}))")
_CHOICE = re.compile(r"\b(?:use|go with|switch to|move to|pick|choose|adopt|stick with)\s+" + _VALUE
                     + r"(?P<more>(?:\s+[\w.-]+){0,4}?)\s+instead of\s+(?P<old>[^,;.]{1,40}?)"
                     r"(?:\s+for\s+(?:the\s+)?(?P<np>[\w .-]{2,40}?))?(?=[,;.]|\s+because\b|$)", re.IGNORECASE)
_PIN = re.compile(r"\bpin(?:s|ned)?\s+(?P<thing>" + _CODE + r"|[a-z][\w-]{2,})\s+(?:to|at)\s+" + _VALUE
                  + r"|(?P<thing2>" + _CODE + r"|[a-z][\w-]{2,}|(?-i:" + _NAME + r"))\s+(?:is|are)\s+"
                  r"(?:now\s+|still\s+)?pinned\s+(?:to|at)\s+"
                  + _VALUE.replace("quoted", "quoted2").replace("bare", "bare2"),
                  re.IGNORECASE)
"""A version pin, said as an action or a state ("we pin numpy to 1.26", "numpy is now pinned to 2.1"): the thing's
``pinned to`` value, so a later pin of the same thing replaces the earlier one."""
_KEY = r"(?<![\w:.-])[A-Za-z_][\w.-]{2,}(?:/[\w.-]+)?"
"""A setting's name (``proxy-read-timeout``, ``nginx.ingress.kubernetes.io/proxy-read-timeout``), not part of a
timestamp or a host:port."""
_SETTING = re.compile(r"(?P<key>" + _KEY + r")(?:\s*=\s*|:\s+)" + _QUOTED + r"|(?P<key2>" + _KEY
                      + r")(?:\s*=\s*|:\s+)(?P<plain>\d[\w.]*|[A-Za-z][\w.-]*\d[\w.-]*)")

_OUTER_KEY = re.compile(r"(?P<key>" + _KEY + r")\s*=\s*$")
_ZH_VALUE = r"(?P<value>[^，。；,;！!？?（(\n]{1,24})"
_ZH_VALUE_LIMIT = 24
"""A value that long ran on past its end (the clause had no comma): dropped rather than cut mid-word."""
_ZH_VERBS = (r"(?:改为|改成|改到|调到|调整为|调整到|换成|换为|定为|设为|设置为|提高到|提到|降到|降为|增加到|减少到|"
             r"减到|加到)")
_ZH_OWNED = re.compile(r"(?P<subject>[\u4e00-\u9fffA-Za-z0-9_.-]{1,12})的(?P<np>[\u4e00-\u9fffA-Za-z]{1,8}?)"
                       r"(?:" + _ZH_VERBS + r"|是|为)" + _ZH_VALUE)
_ZH_CHANGE = re.compile(r"(?P<np>[A-Za-z][\w.-]*[_.-][\w.-]*[A-Za-z0-9]|[\u4e00-\u9fffA-Za-z]{2,6}?)\s*(?:也|都|就)?\s*"
                        + _ZH_VERBS + _ZH_VALUE)
"""A Chinese change of an attribute: its Chinese name ("剂量改为…") or a setting's identifier
("IPHONEOS_DEPLOYMENT_TARGET 也改成 14.0")."""
_ZH_THING = r"(?P<subject>[A-Za-z][\w.-]*[A-Za-z0-9]|[\u4e00-\u9fff]{2,8}?)\s*(?:服务|集群|系统|项目|模块|仓库)?\s*"
_ZH_OWNER_NAME = (r"(?P<owner>[A-Z][\w.-]*(?: [A-Z][\w.-]*)?|[\u4e00-\u9fff]{2,4}?|[我你他她](?=（))"
                  r"(?:（(?P<named>[^）]{2,12})）)?")
"""Who: a name, or a pronoun with the name in brackets after it ("归我（嘉明）管")."""
_ZH_OWNER = (
    re.compile(_ZH_THING + r"(?:现在|目前|以后|从[^，。；,;]{1,10}?(?:起|开始))?\s*(?:还|也|都|就|一直)?\s*"
               r"(?P<by>是\s*由|由|归|是)\s*" + _ZH_OWNER_NAME + r"\s*(?:来)?(?P<verb>负责|管|接手|维护)"),
    re.compile(_ZH_THING + r"的?\s*(?:负责人|[Oo]wner)\s*(?:记为|改为|改成|换成|是|为|[:：])?\s*" + _ZH_OWNER_NAME
               + r"(?=[，。；,;.\s]|$)"),
)
"""Who owns a thing, in Chinese: "order-notify 服务由林晓雯负责", "os-search 从这周开始归我（嘉明）管" (the name in
brackets is the person's), "order-notify 现在是 Dmitri 接手", "order-notify 负责人林晓雯": the thing's ``owner``, as
"Y owns X" gives it."""
_ZH_GENERIC_THINGS = frozenset("项目 服务 系统 集群 模块 仓库 团队 工作 事情 部分 方面".split())
"""A kind of thing, not one thing: "项目负责人是张伟" names no project whose owner a later card may change."""
_ZH_NOT_IN_ATTRIBUTES = re.compile(r"[要会说想去了在把被让给就再也还都那这从起后前候天所因但而我你他她们可]")
"""Characters of verbs, adverbs and times: a phrase holding one is a clause, not the name of an attribute."""

_ZH_VERB_IN_SUBJECT = re.compile(r"[用写看做有是]")
"""Verbs that end a clause before 的 ("两边用的", "里写的"): with :data:`_ZH_NOT_IN_ATTRIBUTES`, what a subject may not
hold (an attribute may: "用量", "写入速度")."""
_ZH_CLAUSE = re.compile(r"[的了吧呢吗在说要会想把被让给就再也还都因但而]")
"""Particles and verbs in a Chinese value: a clause ("在复查时直接问孙医生", "包含在包场价里的"), not a value. Not
:data:`_ZH_NOT_IN_ATTRIBUTES`: a value may hold times ("每天两次", "3 天后", "从周一起")."""

_NOT_ATTRIBUTES = frozenset(
    "cause reason problem issue fix solution error catch thing point question answer idea plan rule result "
    "it this that there what which who one way case part goal step trick lesson catch takeaway answer decision "
    "default output message log logs note".split()) | frozenset(
    "原因 问题 办法 方法 结果 答案 决定 计划 规则 建议 意思 关键 重点 东西 事情 情况".split())
_WEAK_VALUES = frozenset("the a an it this that not no yes now also still just then there done fine ok true "
                         "false none null i".split())
_CLAUSE_BREAK = re.compile(r"[,;:]\s+|[—–()]\s*|\s+(?:and|but|so|because|which|while|since|although)\s+")
_DETERMINERS = re.compile(r"^(?:the|its|their|our|my|his|her|a|an|this|that|these|those)\s+", re.IGNORECASE)
_DATE = re.compile(
    r"\b(?:from|since|starting|as of|effective|on)\s+(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day\s+)?"
    r"(?:(?P<day>\d{1,2})\s+(?P<month>[A-Z][a-z]+)\s+(?P<year>\d{4})|(?P<iso>\d{4}-\d{2}-\d{2}))", re.IGNORECASE)
_ZH_DATE = re.compile(r"(?P<year>\d{4})\s*年\s*(?P<month>\d{1,2})\s*月\s*(?P<day>\d{1,2})\s*[日号](?=\s*(?:起|开始))")
_NOBODY_IN_PARTICULAR = frozenset("everyone everybody everything nobody someone somebody something anyone anybody "
                                  "people we they you he she it this that which who what".split())
_JOINERS = frozenset("and or but so if then i ll since when while because after before until once".split())
_UNIT = re.compile(UNIT_WORDS)
"""A unit ("MiB", "GB"): written like a name, the subject of nothing."""
_NOT_NAMES = frozenset("from on since until in at by and but so then now today monday tuesday wednesday thursday "
                       "friday saturday sunday january february march april may june july august september october "
                       "november december".split())
_MONTHS = {name: number for number, name in enumerate("jan feb mar apr may jun jul aug sep oct nov dec".split(),
                                                      start=1)}


def stated_facts(text: str, said_at: int, speaker: str) -> list[Fact]:
    """The facts ``text`` (a card's own words) states; ``said_at`` (ms) dates the ones with no date of their
    own, ``speaker`` is the subject of a Chinese change said without one ("剂量改为…" by 林舒). A value that
    is the key of another setting (``billing_worker = pool_size=30``) is no value."""
    plain = strip_markdown(text)
    found = [(sentence, triple) for sentence in split_sentences(plain) for triple in _triples(sentence)]
    found += [(text, triple) for triple in _settings(text)]
    attributes = {attribute.casefold() for _, (_, attribute, _) in found}
    found = [(sentence, triple) for sentence, triple in found if triple[2].casefold() not in attributes]
    unnamed = any(subject is None for _, (subject, _, _) in found)
    subjects = [name for name in _subjects(plain) if name.casefold() not in attributes
                and name.casefold() not in _NOT_NAMES and good_name(name) and not _UNIT.fullmatch(name)
                ] if unnamed else []
    facts: dict[tuple, Fact] = {}
    for sentence, (subject, attribute, value) in found:
        fallback = subjects[0] if subjects else speaker
        fact = _clean(subject or fallback, attribute, value, _date_in(sentence) or said_at)
        if fact is not None:
            facts.setdefault((fact.key(), fact.value.casefold()), fact)
    return list(facts.values())[:MAX_FACTS]


def _triples(sentence: str) -> list[tuple[str | None, str, str]]:
    """(subject or None, attribute, value) for every shape the sentence matches, most telling first."""
    if CJK.search(sentence):
        owners = [(match["subject"], "owner", match["named"] or match["owner"])
                  for pattern in _ZH_OWNER for match in pattern.finditer(sentence) if _one_owned_thing(match)]
        found = [(match["subject"], match["np"], match["value"]) for match in _ZH_OWNED.finditer(sentence)]
        found = found or [(None, match["np"], match["value"]) for match in _ZH_CHANGE.finditer(sentence)]
        return owners + [(subject, attribute, value) for subject, attribute, value in found
                         if not _ZH_NOT_IN_ATTRIBUTES.search(attribute) and len(value) < _ZH_VALUE_LIMIT
                         and (subject is None or _zh_subject(subject)) and not _ZH_CLAUSE.search(value)]
    found: list[tuple[str | None, str, str]] = []
    for match in _CHANGE.finditer(sentence):
        subject, attribute = _owner_and_attribute(match["np"], _subject_before(sentence, match.start()))
        if not (match["moved"] and _is_name(attribute)):  # "moved billing-api to v2": what moved, not an attribute
            found.append((subject, attribute, _value(match)))
    for match in _RELATION.finditer(sentence):
        subject, value = _last_name(match["subject"]), _value(match) or _noun_words(match["words"])
        if {subject.lower(), value.lower()} & (STOPWORDS | _NOBODY_IN_PARTICULAR):
            continue
        if match["verb"] == "owns":
            found.append((value, "owner", subject))
        elif match["verb"] == "is owned by":
            found.append((subject, "owner", value))
        else:
            found.append((subject, match["verb"], value))
    for match in _PIN.finditer(sentence):
        value = match["bare"] or match["quoted"] or match["bare2"] or match["quoted2"]
        found.append((match["thing"] or match["thing2"], "pinned to", value))
    for match in _CHOICE.finditer(sentence):
        if match["np"]:
            found.append((match["np"], "choice", _value(match) + match["more"]))
    if not found:
        for clause in _CLAUSE_BREAK.split(sentence):
            match = _COPULA.match(clause.strip())
            if match:
                found.append((*_owner_and_attribute(match["np"], None), _value(match)))
    return found


def _zh_subject(subject: str) -> bool:
    """Whether what "的" follows names a thing ("ClickHouse 的告警阈值"), not the end of a clause ("两边用的",
    "里写的") or one character ("新的")."""
    return len(subject) >= 2 and not _ZH_NOT_IN_ATTRIBUTES.search(subject) and not _ZH_VERB_IN_SUBJECT.search(subject)


def _one_owned_thing(match: re.Match) -> bool:
    """Whether an owner match names one thing and its owner: not a pronoun or a kind of thing ("这个项目",
    "项目负责人"), nor "是 … 管" ("预算是两万管够": enough, not owned)."""
    parts = match.groupdict()
    return (not re.search(r"[这那它他她]", match["subject"]) and match["subject"] not in _ZH_GENERIC_THINGS
            and (parts.get("by"), parts.get("verb")) != ("是", "管"))


def _settings(text: str) -> list[tuple[str | None, str, str]]:
    """``key: "value"`` and ``KEY=value`` in the card's code: the key's last path part is the attribute; in a
    nested setting (``billing_worker = pool_size=30``) the outer key is the subject."""
    found = []
    for match in _SETTING.finditer(text):
        key = match["key"] or match["key2"]
        value = match["quoted"] if match["key"] else match["plain"]
        outer = _OUTER_KEY.search(text, 0, match.start())
        found.append((outer["key"] if outer else None, key.rsplit("/", 1)[-1], value))
    return found


def _owner_and_attribute(phrase: str, subject: str | None) -> tuple[str | None, str]:
    """"timeout of report-export" → (report-export, timeout); "Maya's school" → (Maya, school); "api-gateway read
    timeout" → (api-gateway, read timeout)."""
    phrase = _DETERMINERS.sub("", phrase.strip())
    possessive = re.match(r"(?P<owner>.+?)['’]s\s+(?P<attribute>.+)$", phrase)
    if possessive:
        return possessive["owner"], possessive["attribute"]
    of = re.match(r"(?P<attribute>.+?)\s+(?:of|for|on|at|in)\s+(?P<owner>.+)$", phrase)
    if of:
        return _DETERMINERS.sub("", of["owner"]), of["attribute"]
    named = re.match(r"(?P<owner>\S+)\s+(?P<attribute>[a-z].*)$", phrase)
    if named and re.search(r"[-_.]", named["owner"]) and IDENTIFIER.fullmatch(named["owner"]):
        return named["owner"], named["attribute"]  # "the api-gateway read timeout": api-gateway's read timeout
    return subject, phrase


def _subject_before(sentence: str, position: int) -> str | None:
    """The last name or identifier before the verb: the sentence's subject, roughly."""
    before = sentence[:position]
    names = [*_identifiers(before), *named_things(before)]
    return max(names, key=before.rfind) if names else None


def _identifiers(text: str) -> list[str]:
    """Every identifier-like word, in order and repeated, but English compounds ("knock-on", "half-term")."""
    return [match.group(1) for match in IDENTIFIER.finditer(text) if not compound_word(match.group(1))]


def _noun_words(phrase: str) -> str:
    """"payments service every day" → "payments service": the words before the first small word."""
    words = phrase.split()
    end = next((index for index, word in enumerate(words) if word in STOPWORDS or word in _NOT_NAMES), len(words))
    return " ".join(words[:end])


def _is_name(phrase: str) -> bool:
    return bool(IDENTIFIER.fullmatch(phrase) or re.fullmatch(_NAME, phrase))


def _last_name(phrase: str) -> str:
    """"From Monday 2 March 2026 Maya" → "Maya": the name that ends a run of capitalised words."""
    words = phrase.split()
    start = len(words)
    while start > 0 and words[start - 1][:1].isupper() and words[start - 1].lower() not in _NOT_NAMES:
        start -= 1
    return " ".join(words[start:]) or words[-1]


def _subjects(text: str) -> list[str]:
    """What the card may be about when a sentence does not say, best first: service-like names (report-export,
    billing-worker), then other code names (billing_api, values-prod.yaml), then names, then other identifiers. None
    in Chinese text: the names jieba tags there were seldom what a card is about (卡顿, 高峰, 连接池 stood in for the
    subject of "IPHONEOS_DEPLOYMENT_TARGET 也改成 14.0", "max ack pending 也降到 500"), and the speaker stands in."""
    if CJK.search(text):
        return []
    found = _identifiers(text)
    services = [name for name in found if "-" in name and "." not in name]
    code = [name for name in found if name not in services and re.search(r"[-_.]|[a-z][A-Z]", name)]
    return services + code + named_things(text) + [name for name in found if name not in services + code]


def _value(match: re.Match) -> str:
    return match["bare"] or match["quoted"] or ""



def _clean(subject: str | None, attribute: str, value: str, when: int) -> Fact | None:
    """The fact, tidied, or None when a part is missing, the attribute is a kind of statement ("the cause")
    or the value is vague; a relation verb's object ("uses procrastinate") needs no capital or digit."""
    subject = " ".join((subject or "").split()).strip(" ,.:;")
    attribute = _DETERMINERS.sub("", " ".join(attribute.split()).strip(" ,.:;"))
    value = " ".join(value.split()).strip(" ,.:;")
    if not subject or not attribute or not value or len(attribute) > 40 or "(" in value:
        return None
    words = set(attribute.casefold().replace("'", " ").split())
    if attribute.casefold() in _NOT_ATTRIBUTES | STOPWORDS or words & _NOBODY_IN_PARTICULAR or words & _JOINERS:
        return None
    if value.casefold() in _WEAK_VALUES:
        return None
    if not (_specific(value) or attribute in _RELATION_VERBS + ("owner",)) or subject.casefold() in value.casefold():
        return None
    return Fact(subject=subject, attribute=attribute.casefold() if attribute.isascii() else attribute, value=value,
                valid_from=when)


def _specific(value: str) -> bool:
    """A number, a name, an identifier or Chinese text: what can be compared with a later value."""
    return bool(re.search(r"\d", value) or CJK.search(value) or value[:1].isupper() or IDENTIFIER.fullmatch(value)
                or " " not in value and len(value) >= 3 and re.search(r"[-_./]", value))


def _date_in(sentence: str) -> int | None:
    """When the sentence says its value takes effect ("from 2 March 2026", "从 2026 年 3 月 2 日起")."""
    match = _DATE.search(sentence)
    if match:
        if match["iso"]:
            return _millis(*map(int, match["iso"].split("-")))
        month = _MONTHS.get(match["month"].lower()[:3])
        return _millis(int(match["year"]), month, int(match["day"])) if month else None
    match = _ZH_DATE.search(sentence)
    return _millis(int(match["year"]), int(match["month"]), int(match["day"])) if match else None


def _millis(year: int, month: int, day: int) -> int | None:
    """The day in ms, or None for no such day or one before 1970 (times the store keeps start there)."""
    try:
        return int(datetime(year, month, day, tzinfo=timezone.utc).timestamp() * 1000) if year >= 1970 else None
    except ValueError:
        return None
