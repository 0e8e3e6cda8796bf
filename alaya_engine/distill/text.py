"""Text helpers for the offline distiller: blocks, sentences, cues, keywords, dates, titles.

Everything here is plain regular expressions plus jieba for Chinese words, so
it runs offline and gives the same answer for the same text every time.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache

# ---------------------------------------------------------------- characters

CJK = re.compile(r"[\u3400-\u9fff]")
CJK_WEIGHT = 7 / 3
"""A CJK character counts as 7/3 Latin ones, so 30 Chinese characters fill a 70-column title."""


def is_chinese(text: str, share: float = 0.3) -> bool:
    """Chinese enough (CJK share of letters) that labels and word splitting should be Chinese."""
    letters = sum(1 for ch in text if ch.isalpha())
    return letters > 0 and len(CJK.findall(text)) / letters > share


def title_width(text: str) -> float:
    """Display width for title limits: CJK characters count 7/3."""
    cjk = len(CJK.findall(text))
    return len(text) - cjk + cjk * CJK_WEIGHT


# ---------------------------------------------------------------- markdown

INLINE_CODE = re.compile(r"`([^`\n]+)`")
STRONG = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
ITALIC = re.compile(r"(?<![\w*])\*(?=\S)(.+?)(?<=\S)\*(?![\w*])")
LINK = re.compile(r"\[([^\]]+)\]\([^)]+\)")
LIST_MARK = re.compile(r"^\s*(?:\d+[.)、]|[-*•+])\s+")
TABLE_ROW = re.compile(r"^\s*\|")
FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s*#{1,6}\s+")


def outside_code(text: str, change) -> str:
    """Apply ``change`` to the prose only, leaving inline code spans exactly as written."""
    pieces = re.split(r"(`[^`\n]+`)", text)
    return "".join(piece if piece.startswith("`") and piece.endswith("`") and len(piece) > 1 else change(piece)
                   for piece in pieces)


def _plain_prose(prose: str) -> str:
    prose = STRONG.sub(r"\1", LINK.sub(r"\1", prose)).replace("**", "")
    return ITALIC.sub(r"\1", prose)


def strip_markdown(text: str) -> str:
    """Plain text for titles and matching: no emphasis, backticks, links or list marks."""
    text = LIST_MARK.sub("", HEADING.sub("", text))
    text = outside_code(text, _plain_prose)
    text = INLINE_CODE.sub(r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


@dataclass
class Block:
    """One piece of a message: a paragraph, a list item, a code block or a table."""

    kind: str
    """``para``, ``item``, ``code`` or ``table``."""
    text: str
    lead: str = ""
    """For list items: the paragraph that introduced the list (e.g. ``Root cause:``)."""
    list_id: int = -1


def split_blocks(text: str) -> list[Block]:
    """Cut Markdown into blocks, remembering which paragraph introduced each list."""
    blocks: list[Block] = []
    lines = text.splitlines()
    index = 0
    paragraph: list[str] = []
    list_state = {"id": -1, "lead": "", "open": False}

    def flush_paragraph() -> None:
        if paragraph:
            blocks.append(Block("para", "\n".join(paragraph).strip()))
            paragraph.clear()

    while index < len(lines):
        line = lines[index]
        if FENCE.match(line):
            flush_paragraph()
            end = index + 1
            while end < len(lines) and not FENCE.match(lines[end]):
                end += 1
            blocks.append(Block("code", "\n".join(lines[index:end + 1])))
            index = end + 1
            continue
        if TABLE_ROW.match(line):
            flush_paragraph()
            end = index
            while end < len(lines) and TABLE_ROW.match(lines[end]):
                end += 1
            blocks.append(Block("table", "\n".join(lines[index:end])))
            index = end
            continue
        if LIST_MARK.match(line):
            flush_paragraph()
            if not list_state["open"]:
                list_state.update(id=len(blocks), lead=_lead_before(blocks), open=True)
            item = [line]
            index += 1
            while index < len(lines) and lines[index].startswith((" ", "\t")) and lines[index].strip() \
                    and not LIST_MARK.match(lines[index]):
                item.append(lines[index].strip())
                index += 1
            blocks.append(Block("item", " ".join(item).strip(), list_state["lead"], list_state["id"]))
            continue
        if not line.strip():
            flush_paragraph()
            index += 1
            continue
        if list_state["open"] and not line.startswith((" ", "\t")):
            list_state["open"] = False
        paragraph.append(line)
        index += 1
    flush_paragraph()
    return blocks


def _lead_before(blocks: list[Block]) -> str:
    """The paragraph right before a list, if it introduces it (ends with a colon)."""
    if blocks and blocks[-1].kind == "para" and blocks[-1].text.rstrip("*_ ").endswith((":", "：")):
        return blocks[-1].text
    return ""


# ---------------------------------------------------------------- sentences

ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "Mr.", "Mrs.", "Ms.", "Dr.", "St.", "No.", "approx.")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[。！？!?；])|\n+")


def split_sentences(text: str) -> list[str]:
    """Sentences of English or Chinese text; inline code and abbreviations never split one."""
    protected: list[str] = []

    def protect(match: re.Match) -> str:
        protected.append(match.group(0))
        return f"\x00{len(protected) - 1}\x00"

    masked = INLINE_CODE.sub(protect, text)
    for abbreviation in ABBREVIATIONS:
        masked = masked.replace(abbreviation, abbreviation.replace(".", "\x01"))
    sentences: list[str] = []
    carry = ""
    for piece in SENTENCE_END.split(masked):
        piece = re.sub(r"\x00(\d+)\x00", lambda m: protected[int(m.group(1))], piece).replace("\x01", ".").strip()
        if re.fullmatch(r"\d+[.)]|[-*•]", piece):
            carry = f"{carry}{piece} "
        elif piece:
            sentences.append(carry + piece)
            carry = ""
    return sentences


# ---------------------------------------------------------------- cues


@lru_cache(maxsize=None)
def cue_pattern(cues: tuple[str, ...]) -> re.Pattern:
    """One regex for a cue tuple: word boundaries around English cues, none around Chinese ones."""
    ordered = sorted(cues, key=len, reverse=True)
    words = [re.escape(cue) for cue in ordered if not cue.startswith("re:") and not CJK.search(cue)]
    parts = [cue[3:] for cue in ordered if cue.startswith("re:")]
    parts += [re.escape(cue) for cue in ordered if not cue.startswith("re:") and CJK.search(cue)]
    if words:
        parts.append(r"(?<![\w-])(?:" + "|".join(words) + r")(?![\w-])")
    return re.compile("|".join(parts), re.IGNORECASE)


def find_cues(text: str, cues: tuple[str, ...]) -> list[str]:
    return [match.group(0) for match in cue_pattern(cues).finditer(text)]


def has_cue(text: str, cues: tuple[str, ...]) -> bool:
    return cue_pattern(cues).search(text) is not None


# ---------------------------------------------------------------- keywords

IDENTIFIER = re.compile(
    r"(?<![\w./-])("
    r"[A-Za-z][\w-]*(?:\.[A-Za-z_][\w-]*)+"          # dotted: plugins.allow, app.main
    r"|[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+"         # snake: proxy_read_timeout
    r"|[a-z][a-z0-9]*(?:-[a-z0-9]+)+"                  # kebab: reports-worker
    r"|[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+"              # Camel: QueuePool
    r"|[a-z]+[A-Z]\w*"                                 # camel: maxMemory
    r"|[A-Z][A-Z0-9]{2,}"                              # CAPS: OOM, SIGKILL
    r")(?![\w/-])"
)
CAPITALISED = re.compile(r"(?<![.!?:]\s)(?<!^)\b([A-Z][a-z]+(?:[A-Z][a-z]+)?)\b", re.MULTILINE)
WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
COMMAND = re.compile(r"^\s*(?:sudo\s+)?([a-z][\w.-]*)(?:\s+([a-z][a-z-]+))?")

STOPWORDS = frozenset("""
a about above after again against all almost also although always am among an and another any anyone anything
are aren't around as at away back be because been before being below between both but by can can't cannot
could couldn't did didn't do does doesn't doing don't done down during each either else enough even ever every
few for from further get gets getting got had hadn't has hasn't have haven't having he her here hers herself
him himself his how however i i'd i'll i'm i've if in instead into is isn't it it's its itself just keep kind
last least less let let's like likely lot lots made make makes many may maybe me might mine more most much must
my myself need needs never new next no nor not nothing now of off often oh ok okay on once one only onto or other
others our ours ourselves out over own per please quite rather really right same see seem seems shall she
should shouldn't since so some something sometimes still such sure than that that's the their theirs them
themselves then there there's these they they'd they're thing things think this those though through thus to
today too under until up upon us use used uses using very via want was wasn't way we we'd we'll we're we've
well were weren't what what's when where whether which while who whom whose why will with within without won't
would wouldn't yeah yes yet you you'd you'll you're you've your yours yourself yourselves
""".split())
FILLER_WORDS = frozenset("""
amazing awesome beautiful best better big bit cool definitely exciting fantastic feel feeling feels felt fun glad
good great happy hey hi hope incredible lately love loved lovely nice pretty proud really sounds super sweet
thank thanks totally true wonderful wow yep yeah guess mean means time times day days week weeks year years
yesterday tomorrow tonight morning evening weekend month months ago recently lately soon later already
going gonna tell told say said know knew think thought look looks looking take took come came give gave find
found try tried work works worked start started help helped first second able whole real stuff everything
someone everyone people person life world place part sense hard long little lot moment anyways anyway though
""".split())
COMMON_VERBS = frozenset("""
go goes going gone went get gets got gotten make makes made take takes took taken give gave given see saw seen
say says said tell told find found try tries tried want wanted need needed love loved like liked feel felt think
thought know knew keep kept start started help helped play played check checked hope hoped plan planned learn
learned look looked come came put run ran read write wrote bring brought buy bought leave left meet met call
called talk talked share shared show showed enjoy enjoyed visit visited join joined finish finished seem become
became remind reminds reminded realize realized believe believed wish hear heard happen happened turn turned
stay stayed spend spent decide decided lose lost win won catch caught mean meant let lets doing done did has
""".split())
ZH_STOPWORDS = frozenset("""
这个 那个 一个 一下 一些 一条 一次 没有 我们 你们 他们 自己 就是 可以 因为 所以 如果 但是 然后 现在 已经 还是
时候 不会 需要 直接 这次 之后 之前 看一下 问题 情况 东西 地方 时间 这样 那样 怎么 什么 为什么 这里 那里 其他
其实 还有 而且 或者 以及 以后 今天 昨天 明天 下次 注意 原因 导致 报错 决定 改用 选择 规则 每次 方案 结果
确认 总结 记录 建议 需要 应该 必须 不要 方式 部分 一样 里面 上面 下面 这种 那种 这些 那些 用户 通知
""".split())
ZH_NOUN_TAGS = ("n", "nz", "vn", "nr", "ns", "nt", "l", "i", "nrt", "nw", "eng")


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
    return bool(re.search(r"[A-Za-z]", name))


def english_keywords(text: str, limit: int) -> list[str]:
    """Identifiers, capitalised names, multi-word noun-like phrases, then frequent content words."""
    plain = strip_markdown(INLINE_CODE.sub(" ", text))
    names = [word for word in CAPITALISED.findall(plain)
             if word.lower() not in STOPWORDS and word.lower() not in FILLER_WORDS]
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


def is_content_word(word: str) -> bool:
    lower = word.lower()
    return len(lower) >= 4 and lower not in STOPWORDS and lower not in FILLER_WORDS and "'" not in lower


def chinese_keywords(text: str, limit: int) -> list[str]:
    """Identifiers plus jieba TF-IDF nouns (two or more characters) and product names (jieba loads lazily)."""
    import jieba.analyse

    _quiet_jieba()
    names = identifiers(text)
    words = jieba.analyse.extract_tags(INLINE_CODE.sub(" ", text), topK=limit * 3, allowPOS=ZH_NOUN_TAGS)
    found = [word for word in words if _good_chinese_keyword(word, names)]
    return unique([*names[: max(2, limit // 2)], *found])[:limit]


def _good_chinese_keyword(word: str, names: list[str]) -> bool:
    if CJK.search(word):
        return len(word) >= 2 and word not in ZH_STOPWORDS
    lower = word.lower()
    return len(word) >= 3 and lower not in STOPWORDS and not any(lower in name.lower() for name in names)


@lru_cache(maxsize=1)
def _quiet_jieba() -> None:
    import logging

    import jieba

    jieba.setLogLevel(logging.WARNING)
    jieba.initialize()


def keywords(text: str, limit: int = 6) -> list[str]:
    """Tags for a text: jieba words when it has a fair share of Chinese, else English heuristics."""
    return chinese_keywords(text, limit) if is_chinese(text, 0.15) else english_keywords(text, limit)


def unique(items) -> list[str]:
    """Items in first-seen order without case-insensitive repeats (never a set: order must not depend on hashing)."""
    seen: set[str] = set()
    result = []
    for item in items:
        key = item.lower()
        if key and key not in seen:
            seen.add(key)
            result.append(item)
    return result


def content_words(text: str) -> set[str]:
    """Lower-case words (or CJK bigrams) for overlap tests between sentences."""
    plain = strip_markdown(text).lower()
    words = {_stem(word) for word in WORD.findall(plain) if is_content_word(word)}
    cjk = "".join(CJK.findall(plain))
    words.update(cjk[i:i + 2] for i in range(len(cjk) - 1))
    words.update(name.lower() for name in identifiers(text))
    return words


def _stem(word: str) -> str:
    """Crude suffix stripping so 'painting', 'painted' and 'paints' meet."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def overlap(first: set[str], second: set[str]) -> float:
    """Share of the smaller set found in the other: 1.0 when one repeats the other."""
    if not first or not second:
        return 0.0
    return len(first & second) / min(len(first), len(second))


# ---------------------------------------------------------------- dates

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "couple of": 2}
RELATIVE_DATE = re.compile(
    r"\b(?:(?P<prep>on|since|until|from|by|before|after)\s+)?(?:"
    r"(?P<yesterday>yesterday)|(?P<today>today|tonight|this morning|this afternoon|this evening)"
    r"|(?P<tomorrow>tomorrow)|(?P<lastnight>last night)|(?P<otherday>the other day)"
    r"|(?P<season_dir>last|this|next)\s+(?P<season>summer|winter|spring|fall|autumn)"
    r"|(?P<dir>last|next|this)\s+(?P<unit>week(?:end)?|month|year|"
    + "|".join(WEEKDAYS) + r")"
    r"|(?P<count>\d+|a couple of|couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<ago_unit>days?|weekends?|weeks?|months?|years?)\s+ago"
    r")\b(?P<possessive>'s)?",
    re.IGNORECASE,
)
ZH_RELATIVE_DATE = re.compile(r"前天|昨天|昨晚|今天|今晚|明天|后天|上周[一二三四五六日天]?|下周[一二三四五六日天]?|上个月|下个月|去年|明年")
ZH_WEEKDAY = "一二三四五六日"


def long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


def resolve_dates(text: str, today: date) -> tuple[str, list[str]]:
    """Rewrite relative dates ("yesterday", "last week", 昨天) as absolute ones; also return those dates."""
    found: list[str] = []

    def english(match: re.Match) -> str:
        phrase, absolute = _english_date(match, today)
        found.append(absolute)
        return f"the {absolute}" if match.group("possessive") else phrase

    def chinese(match: re.Match) -> str:
        absolute = _chinese_date(match.group(0), today)
        found.append(absolute)
        return f"{match.group(0)}（{absolute}）"

    def prose(piece: str) -> str:
        return ZH_RELATIVE_DATE.sub(chinese, RELATIVE_DATE.sub(english, piece))

    blocks = re.split(r"(```.*?```)", text, flags=re.DOTALL)
    text = "".join(block if block.startswith("```") else outside_code(block, prose) for block in blocks)
    return text, found


def compact_date(absolute: str) -> str:
    """'the week of 21 January 2023' → 'week of 21 Jan 2023', for titles."""
    text = re.sub(r"^the |^a few \w+ ", "", absolute)
    return re.sub(r"\b(January|February|March|April|June|July|August|September|October|November|December)\b",
                  lambda m: m.group(1)[:3], text)


def strip_dates(text: str) -> str:
    """The text without its relative dates, for a title that names the date separately."""
    text = ZH_RELATIVE_DATE.sub("", RELATIVE_DATE.sub("", text))
    text = re.sub(r"\s+([,.!?;:])", r"\1", re.sub(r"\s{2,}", " ", text)).strip()
    return re.sub(r"^[,.;:\s-]+", "", text)


def _english_date(match: re.Match, today: date) -> tuple[str, str]:
    """The replacement phrase and the bare absolute date for one English match."""
    prep = match.group("prep")
    if match.group("yesterday") or match.group("lastnight"):
        return _on(prep, long_date(today - timedelta(days=1)))
    if match.group("today"):
        return _on(prep, long_date(today))
    if match.group("tomorrow"):
        return _on(prep, long_date(today + timedelta(days=1)))
    if match.group("otherday"):
        absolute = f"a few days before {long_date(today)}"
        return f"{prep} {absolute}" if prep else absolute, absolute
    if match.group("ago_unit"):
        return _ago(match, today, prep)
    if match.group("season"):
        return _season(match.group("season_dir").lower(), match.group("season").lower(), today, prep)
    return _named_period(match.group("dir").lower(), match.group("unit").lower(), today, prep)


def _on(prep: str | None, absolute: str, default: str = "on") -> tuple[str, str]:
    return f"{prep or default} {absolute}", absolute


def _ago(match: re.Match, today: date, prep: str | None) -> tuple[str, str]:
    unit = match.group("ago_unit").lower().rstrip("s")
    if match.group("count").lower() == "a few":
        absolute = f"a few {unit}s before {long_date(today)}"
        return f"{prep} {absolute}" if prep else absolute, absolute
    count = NUMBERS.get(match.group("count").lower()) or int(match.group("count"))
    if unit == "day":
        return _on(prep, long_date(today - timedelta(days=count)))
    if unit == "week":
        return _on(prep, f"the week of {long_date(today - timedelta(weeks=count))}", "in")
    if unit == "weekend":
        return _on(prep, f"the weekend of {long_date(today + timedelta(days=5 - today.weekday(), weeks=-count))}")
    if unit == "month":
        month = _shift_month(today, -count)
        return _on(prep, f"{month:%B %Y}", "in")
    return _on(prep, str(today.year - count), "in")


def _named_period(direction: str, unit: str, today: date, prep: str | None) -> tuple[str, str]:
    step = {"last": -1, "next": 1, "this": 0}[direction]
    if unit in WEEKDAYS:
        return _on(prep, long_date(_weekday(today, WEEKDAYS.index(unit), step)))
    if unit == "week":
        return _on(prep, f"the week of {long_date(today + timedelta(weeks=step))}", "in")
    if unit == "weekend":
        saturday = today + timedelta(days=5 - today.weekday(), weeks=step)
        return _on(prep, f"the weekend of {long_date(saturday)}")
    if unit == "month":
        return _on(prep, f"{_shift_month(today, step):%B %Y}", "in")
    return _on(prep, str(today.year + step), "in")


SEASON_MONTHS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}


def _season(direction: str, season: str, today: date, prep: str | None) -> tuple[str, str]:
    """'last summer' in December 2023 → summer 2023; in May 2023 → summer 2022."""
    start = SEASON_MONTHS[season]
    year = today.year
    if direction == "last":
        year -= 0 if today.month >= start + 3 else 1
    elif direction == "next":
        year += 0 if today.month < start else 1
    return _on(prep, f"{season} {year}", "in")


def _weekday(today: date, weekday: int, step: int) -> date:
    """The given weekday before (step -1), after (1) or in the week of (0) ``today``."""
    if step < 0:
        back = (today.weekday() - weekday) % 7 or 7
        return today - timedelta(days=back)
    if step > 0:
        ahead = (weekday - today.weekday()) % 7 or 7
        return today + timedelta(days=ahead)
    return today + timedelta(days=weekday - today.weekday())


def _shift_month(today: date, months: int) -> date:
    index = today.year * 12 + today.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


def _chinese_date(phrase: str, today: date) -> str:
    offsets = {"前天": -2, "昨天": -1, "昨晚": -1, "今天": 0, "今晚": 0, "明天": 1, "后天": 2}
    if phrase in offsets:
        return (today + timedelta(days=offsets[phrase])).isoformat()
    if phrase in ("上个月", "下个月"):
        return f"{_shift_month(today, -1 if phrase == '上个月' else 1):%Y-%m}"
    if phrase in ("去年", "明年"):
        return str(today.year + (-1 if phrase == "去年" else 1))
    step = -1 if phrase.startswith("上") else 1
    if len(phrase) == 3:
        weekday = ZH_WEEKDAY.index("日" if phrase[2] == "天" else phrase[2])
        monday = today - timedelta(days=today.weekday()) + timedelta(weeks=step)
        return (monday + timedelta(days=weekday)).isoformat()
    return f"{(today + timedelta(weeks=step)).isoformat()} 那周"


# ---------------------------------------------------------------- titles

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
PHRASE_STARTS = frozenset("in for with to at on by from during after before because while and but which that who "
                          "when where since until so as".split())
TRAILING_WORDS = frozenset("a an the and or but of to in on at for with from by as is are was were so that "
                           "which this its their his her my your our than then into will be been has have had can "
                           "could would should not very more most between about over under after before during "
                           "without within through like just also instead too again now here there".split())


PARENTHETICAL = re.compile(r"\s+\([^()]*\)|\s*（[^（）]*）")


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


NEW_CLAUSE = re.compile(r"\s*(?:I|he|she|we|they|it|my|his|her|our|their|[A-Z][\w-]*(?:'s)?)\b")


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

    Also says whether the cut fell before a phrase ("… store | in hopes of …"), which reads better.
    """
    if is_chinese(text):
        import jieba

        _quiet_jieba()
        tokens = list(jieba.cut(text))
    else:
        tokens = re.findall(r"\S+\s*", text)
    kept = ""
    phrase_end = ""
    next_token = ""
    for token in tokens:
        if title_width(kept + token) > limit:
            next_token = token
            break
        if token.strip().lower() in PHRASE_STARTS and title_width(kept) >= limit * 0.55:
            phrase_end = kept
        kept += token
    at_phrase = next_token.strip().lower() in PHRASE_STARTS or bool(phrase_end)
    if at_phrase and next_token.strip().lower() not in PHRASE_STARTS:
        kept = phrase_end
    words = kept.rstrip().split(" ")
    while len(words) > 1 and words[-1].lower().strip(",.;:") in TRAILING_WORDS:
        words.pop()
    return " ".join(words).rstrip("。.！!？?:：;；，,、(（"), at_phrase
