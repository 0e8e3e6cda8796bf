"""The offline distiller: cards from cue phrases and message structure, no LLM.

The default install must distill with no network and no model download, and
the same session must always give the same cards. So this distiller reads the
shape of a conversation instead of its meaning: headers such as "Root cause:"
or "规则：", numbered lists, cue phrases ("decided", "because", 导致, 每次…),
error lines in tool output, and, in casual chats between people, first-person
statements about events, plans and preferences, rewritten in the third person.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ..domain import Session, Turn
from . import text as tx
from .base import CardDraft, Distillation, LinkDraft

# ---------------------------------------------------------------- cue lists (tune here)

GOTCHA_STRONG = ("root cause", "gotcha", "caveat", "pitfall", "the catch", "careful", "watch out", "silently",
                 "by mistake", "counter-intuitive", "counterintuitive", "trap", "the bug", "actual bug",
                 "原因", "根因", "导致", "坑", "注意", "报错", "反直觉", "地雷", "潜伏", "不生效", "不支持")
GOTCHA_WEAK = ("because", "caused", "due to", "instead", "don't", "doesn't", "didn't", "isn't", "won't", "can't",
               "never", "error", "errors", "fail", "fails", "failed", "wrong", "breaks", "broke", "killed",
               "ignored", "ignoring", "only", "no longer", "不会", "不能", "失败", "错误", "因为", "不要", "先别", "千万别", "别用",
               "否则", "丢弃", "断开")
DECISION_STRONG = ("decision", "decided", "we'll use", "we will use", "we'll go with", "going with", "go with",
                   "chose", "settled on", "rejected", "决定", "改用", "选用", "就这么定", "定了", "不选", "采用")
DECISION_WEAK = ("recommend", "proposal", "propose", "prefer", "i'd", "switch to", "replace", "replaces",
                 "instead of", "rather than", "trade-off", "倾向", "建议", "方案", "替代", "换成", "选择")
PATTERN_STRONG = ("re:(?<!almost )\\balways\\b", "whenever", "every time", "each time", "rule of thumb", "make it a rule",
                  r"re:\brules?\b(?=\s*(?:[:：(（]|for\b|of thumb|recorded|i'm recording|i am recording))",
                  "rule recorded", "pattern for", "the pattern is", "checklist", "step by step", "triage", "runbook", r"re:每次[^。]{0,40}?(?:都要|必须|务必|先|之前|以后|要)", "凡是", "规则", "规矩", "步骤",
                  "一律", "流程", r"re:先[^。！？\n]{1,40}再")
PATTERN_WEAK = ("before", "after every", "after each", "first", "then", "must", "make sure", "never",
                "必须", "务必", "先", "之前", "确保")
CONCEPT_STRONG = ("means", "i.e.", "refers to", "is defined as", "works by", "under the hood", "the difference",
                  "是指", "意思是", "也就是", "区别", "概念", "原理", "指的是", "本质")
CONCEPT_WEAK = ("is a", "is the", "are the", "defaults to", "by default", "only exists", "默认", "就是")
GOTCHA_LEADS = ("problems", "problem", "issues", "what went wrong", "两类问题", "问题", "separate problems")
FIX_CUES = ("fix", "the fix", "proposed fix", "solution", "mitigation", "workaround", "修复", "解决", "修法",
            "改成", "改为", "修好")
OPTION_CUES = ("options", "alternatives", "选项", "对比", "几种")
REASON_CUES = ("because", "since", "so that", "to avoid", "to prevent", "that's why", "due to", "which is why",
               "given", "therefore", "so the", "so we", "因为", "由于", "为了", "为了避免", "所以", "因此", "以免",
               "避免", "于是")
PREVENTION_CUES = ("never", "don't", "do not", "always", "must", "avoid", "prevent", "so that", "不要", "必须", "避免",
                   "防止", "一律", "禁止")
CAUSE_CUES = ("causes", "caused", "leads to", "led to", "results in", "导致", "引起", "造成")
NARRATION_CUES = ("let me", "let's see", "checking", "i'll", "i will", "looking at", "on it", "running", "applying",
                  "rolling it out", "writing it", "done", "noted", "resolved it", "now", "ok to ship", "yes",
                  "先看", "我先", "看一下", "确认一下", "查一下", "再看", "接下来", "记下了", "加好了", "好的", "都好了",
                  "恢复好了", "我来", "我还是")
REPORT_CUES = ("已更新", "已生效", "已完成", "已删除", "已启用", "已恢复", "已经是", r"re:\bPR #\d+", "is open",
               "is in `", "updated", "now passes", "all hooks pass")
APPROVALS = ("yes", "ok", "okay", "do it", "go ahead", "sounds good", "great", "nice", "perfect", "thanks", "thx",
             "好", "行", "可以", "同意", "收到", "👍", "merged", "agree")
LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:"
    r"(?:(?:one|a|another|two|the)\s+)?(?:root cause|decision(?: proposal| recorded)?|gotcha(?: worth remembering)?|"
    r"caveats?|note|rules?(?: recorded| i'm recording)?|pattern|proposed fix|fix)[^:：\n]{0,12}[:：]"
    r"|[^:：\n]{0,8}(?:原因|根因|决定|结论|规则|注意|修复方案|坑|总结)[^:：\n]{0,8}[:：]"
    r"|(?:confirmed|found it|找到了|确认了|对上了|情况清楚了|符合预期)[^:：。\n]{0,6}[:：。，,.!！])"
    r"\s*(?:\*\*)?",
    re.IGNORECASE,
)
STRONG_ERROR = re.compile(r"killed|refused|timed out|repeated too quickly|too many|exception|fatal|"
                          r"out of memory|does not exist|already exists|unknown key|prematurely", re.IGNORECASE)
ERROR_LINE = re.compile(r"error|exception|fatal|failed|failure|refused|denied|killed|timed out|too many|"
                        r"not found|unknown key|cannot|repeated too quickly|报错|失败|错误", re.IGNORECASE)

EVENT_VERBS = ("went", "visited", "started", "joined", "finished", "bought", "adopted", "took", "moved", "won",
               "lost", "signed up", "launched", "opened", "painted", "attended", "volunteered", "tried", "learned",
               "met", "celebrated", "quit", "graduated", "applied", "received", "planted", "baked", "built",
               "traveled", "travelled", "hiked", "camped", "organized", "hosted", "performed", "competed",
               "completed", "created", "published", "released", "passed", "injured", "married", "got", "saw",
               "watched", "played", "taught", "became", "decided", "explored", "returned", "donated", "raised",
               "earned", "landed", "ran", "read", "wrote", "had", "found", "gave", "cooked", "visited",
               "been to", "just", "since we last")
PLAN_CUES = ("off to", "heading to", "planning", "plan to", "plans to", "going to", "gonna", "want to", "hoping to", "hope to",
             "thinking of", "thinking about", "keen on", "looking forward", "can't wait", "next", "soon",
             "upcoming", "goal", "dream", "someday")
PREFERENCE_CUES = ("love", "like", "favorite", "favourite", "enjoy", "passionate", "fan of", "hate", "prefer",
                   "into", "hobby", "fun way", "way to relax", "helps me", "express", "outlet", "therapeutic")
STATE_CUES = ("swamped", "busy with", "stressed", "working on", "studying", "learning", "training", "recovering",
              "struggling", "saving up", "been doing", "been working")
PERSONAL_CUES = ("kids", "children", "husband", "wife", "son", "daughter", "mom", "dad", "mother", "father",
                 "family", "partner", "boyfriend", "girlfriend", "dog", "cat", "pet", "brother", "sister",
                 "parents", "grandma", "grandpa", "job", "work as", "boss", "team", "school", "years old",
                 "grew up", "live in", "home")
DECIDED_CUES = ("decided", "made the decision", "chose", "決定", "决定")
HABIT_CUES = ("every morning", "every day", "every week", "every weekend", "each morning", "routine", "whenever")
SMALL_TALK = ("sounds like", "thanks", "thank you", "congrats", "congratulations", "good to see", "how are you",
              "how have you been", "talk soon", "talk to you", "take care", "bye", "see you", "good luck",
              "have a good", "nice to", "long time no see", "hey", "hi", "hello")
FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I'd|I'll|my|My|me|mine|myself)\b")
ANAPHORA = re.compile(r"^(?:it|they|so|also|after that|then|(?:this|that|these|those)(?=\s+(?:is|was|are|were|"
                      r"means|one|will|would|can|should|has|have)\b)|that's|this's)\b|^(?:这|那|它|也)",
                      re.IGNORECASE)
DETERMINER = re.compile(r"^(?:this|that|these|those)\s+(?!(?:is|was|are|were|means|one|will|would|can|should|has|"
                        r"have)\b)(?=[a-z])", re.IGNORECASE)
CONNECTIVE = re.compile(r"^(?:so|also|but|however|and|this means|that means|which means|in short|这也说明|这说明|所以|因此|另外|而且|"
                        r"也就是说)[,，:：\s]*", re.IGNORECASE)
BOLD = re.compile(r"\*\*(.+?)\*\*")
INTERJECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|oh|ooh|hey|hi|hello|wow|whoa|well|so|btw|anyway|anyways|haha|lol|ah|aw+|omg|ok|okay|"
    r"by the way|honestly|actually|guess what|thanks|thank you|sure|totally|definitely|cool|nice|great|"
    r"besides that|apart from that|on another note|speaking of [\w\s]{1,30}?(?=,)|since we last (?:spoke|talked))"
    r"(?:\s+[A-Z][a-z]+)?[,!.…]*\s+)+",
    re.IGNORECASE,
)
FACT_THRESHOLD = 0.8
FACT_ANAPHORA = re.compile(r"^(?:it|that|this|those|these|they|moments like|like these|seeing|there)\b",
                           re.IGNORECASE)
SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've|yours)\b", re.IGNORECASE)
IMAGE = re.compile(r"\s*\[shared image:[^\]]*\]")

TYPE_BASE = {"gotcha": 0.62, "decision": 0.6, "pattern": 0.58, "concept": 0.5}
CONTENT_LIMIT = 1400
TITLE_LIMIT = 70


# ---------------------------------------------------------------- internal records


@dataclass
class _Unit:
    """A sentence, a list item, or a whole list under a typed lead, inside one assistant turn."""

    turn: int
    position: int
    text: str
    lead: str = ""
    items: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


@dataclass
class _Candidate:
    """A card before titles are made unique and the set is cut to size."""

    type: str
    title: str
    content: str
    tags: list[str]
    importance: float
    turns: list[int]
    order: tuple[int, int]
    words: set[str]
    body: str
    """What the card itself says (its content without the borrowed problem/error context)."""

    def draft(self) -> CardDraft:
        return CardDraft(title=self.title, content=self.content, type=self.type, tags=self.tags,
                         importance=round(min(1.0, max(0.0, self.importance)), 2), turns=sorted(set(self.turns)))


# ---------------------------------------------------------------- the distiller


class OfflineDistiller:
    """Rule-based distiller: deterministic, offline, fast; the default ``distill.llm_provider``."""

    name = "offline-1"

    def __init__(self, min_session_tokens: int = 200, max_cards_per_session: int = 10):
        self.min_session_tokens = min_session_tokens
        self.max_cards_per_session = max_cards_per_session

    def distill(self, session: Session) -> Distillation:
        tokens = session.tokens
        if tokens < self.min_session_tokens:
            return Distillation([], [], skipped_reason=(
                f"session has {tokens} tokens, below distill.min_session_tokens ({self.min_session_tokens})"))
        if _is_conversation(session):
            candidates = _conversation_candidates(session)
        else:
            candidates = _technical_candidates(session)
        kept = _cut(_merge_duplicates(candidates), self.max_cards_per_session)
        if not kept:
            return Distillation([], [], skipped_reason="no reusable knowledge found")
        _make_titles_unique(kept)
        return Distillation([candidate.draft() for candidate in kept], _links(kept))


def _is_conversation(session: Session) -> bool:
    """People talking (LoCoMo-style speakers, or no tools and no code at all), not an agent at work."""
    if any(_speaker_of(turn) for turn in session.turns):
        return True
    if any(turn.role == "tool" or turn.tool_calls for turn in session.turns):
        return False
    return not any("`" in turn.content for turn in session.turns)


def _speaker_of(turn: Turn) -> str | None:
    speaker = getattr(turn, "extra", {}).get("speaker")
    return speaker if isinstance(speaker, str) and speaker.strip() else None


# ================================================================ technical sessions


def _technical_candidates(session: Session) -> list[_Candidate]:
    chinese = tx.is_chinese(_prose(session))
    today = session.started_at.date()
    openers = _episode_openers(session.turns)
    candidates = []
    for unit_group, card_type in _seed_groups(session.turns):
        candidate = _technical_candidate(session, unit_group, card_type, openers, chinese, today)
        if candidate:
            candidates.append(candidate)
    return candidates


def _prose(session: Session) -> str:
    """What the people wrote (no tool output, no code), to decide the card language."""
    texts = [turn.content for turn in session.turns if turn.role in ("user", "assistant")]
    return tx.INLINE_CODE.sub(" ", re.sub(r"```.*?```", " ", "\n".join(texts), flags=re.DOTALL))


def _episode_openers(turns: list[Turn]) -> list[int | None]:
    """For each turn, the user turn that asked what it answers (short approvals don't open episodes)."""
    openers: list[int | None] = []
    current = None
    for index, turn in enumerate(turns):
        if turn.role == "user" and not _is_approval(turn.content):
            current = index
        openers.append(current)
    return openers


def _is_approval(text: str) -> bool:
    plain = tx.strip_markdown(text).lower()
    return len(plain) < 60 and tx.has_cue(plain, APPROVALS) and "?" not in plain and "？" not in plain


def _seed_groups(turns: list[Turn]) -> list[tuple[list[_Unit], str]]:
    """Typed units, with neighbours of the same type in the same turn grouped into one card."""
    groups: list[tuple[list[_Unit], str]] = []
    for index, turn in enumerate(turns):
        if turn.role != "assistant" or not turn.content.strip():
            continue
        previous_type, previous_position = None, -2
        answers_question = index > 0 and turns[index - 1].role == "user" and _asks(turns[index - 1].content)
        for unit in _units(index, turn.content):
            card_type = _classify(unit)
            if card_type is None and answers_question and unit.position == 0 and _answer_like(unit):
                card_type = "concept"
            joins = card_type == previous_type and unit.position == previous_position + 1
            if card_type is None:
                previous_type = None
                continue
            if joins and not unit.items and not groups[-1][0][-1].items:
                groups[-1][0].append(unit)
            else:
                groups.append(([unit], card_type))
            previous_type, previous_position = card_type, unit.position
    return groups


def _asks(text: str) -> bool:
    return "?" in text or "？" in text


def _answer_like(unit: _Unit) -> bool:
    """A direct answer worth keeping: a few sentences that name something, not a one-liner."""
    plain = tx.strip_markdown(unit.text)
    return tx.title_width(plain) >= 80 and bool(tx.identifiers(unit.text) or "`" in unit.text)


def _units(turn_index: int, content: str) -> list[_Unit]:
    """Paragraphs (minus narration), list items, and whole lists whose lead names their type."""
    units: list[_Unit] = []
    blocks = tx.split_blocks(content)
    leads = {block.lead for block in blocks if block.kind == "item" and block.lead}
    whole_lists: set[int] = set()
    for block in blocks:
        if block.kind == "code" and units:
            units[-1].code.append(block.text)
        elif block.kind == "para" and block.text not in leads:
            text = _substance(block.text)
            if text:
                units.append(_Unit(turn_index, len(units), text))
        elif block.kind == "item" and block.list_id not in whole_lists:
            if _lead_type(block.lead):
                whole_lists.add(block.list_id)
                items = [other.text for other in blocks if other.kind == "item" and other.list_id == block.list_id]
                units.append(_Unit(turn_index, len(units), block.lead, lead=block.lead, items=items))
            else:
                units.append(_Unit(turn_index, len(units), block.text, lead=block.lead))
    return units


def _substance(paragraph: str) -> str:
    """The paragraph without narration ("Let me check…") or questions at its ends."""
    sentences = tx.split_sentences(paragraph)
    while sentences and _is_filler(sentences[0]):
        sentences.pop(0)
    while sentences and (_is_filler(sentences[-1]) or sentences[-1].rstrip("*_ ").endswith((":", "："))):
        sentences.pop()
    return _join(sentences)


def _is_filler(sentence: str) -> bool:
    """Questions, narration of what the agent is doing, and short progress reports."""
    plain = tx.strip_markdown(sentence)
    if plain.endswith(("?", "？")) or tx.has_cue(plain[:16], NARRATION_CUES) or tx.title_width(plain) < 8:
        return True
    return tx.title_width(plain) < 60 and tx.has_cue(plain, REPORT_CUES)


def _join(sentences: list[str]) -> str:
    text = ""
    for sentence in sentences:
        text += sentence if not text or text.endswith(("。", "！", "？", "；", "：")) else " " + sentence
    return text


def _lead_type(lead: str) -> str | None:
    """The card type a list's lead-in announces ("Root cause:", "规则：", "Rules for …:")."""
    if not lead:
        return None
    scores = _cue_scores(tx.strip_markdown(lead))
    scores["gotcha"] += 2 * len(tx.find_cues(lead, GOTCHA_LEADS))
    best = max(scores, key=scores.get)
    return best if scores[best] >= 2 else None


def _cue_scores(text: str) -> dict[str, float]:
    return {
        "gotcha": 2 * len(tx.find_cues(text, GOTCHA_STRONG)) + len(tx.find_cues(text, GOTCHA_WEAK)),
        "decision": 2 * len(tx.find_cues(text, DECISION_STRONG)) + len(tx.find_cues(text, DECISION_WEAK)),
        "pattern": 2 * len(tx.find_cues(text, PATTERN_STRONG)) + len(tx.find_cues(text, PATTERN_WEAK)),
        "concept": 2 * len(tx.find_cues(text, CONCEPT_STRONG)) + len(tx.find_cues(text, CONCEPT_WEAK)),
    }


def _classify(unit: _Unit) -> str | None:
    """The unit's card type, or None when it is too thin, anaphoric, or carries no cue."""
    if unit.items:
        return _lead_type(unit.lead)
    plain = tx.strip_markdown(unit.text)
    if tx.title_width(plain) < 24 or (ANAPHORA.match(plain) and tx.title_width(plain) < 70):
        return None
    scores = _cue_scores(plain)
    label = LABEL.match(unit.text)
    if label:
        scores = {name: score + 3 * bool(value) for (name, score), value in
                  zip(scores.items(), _cue_scores(label.group(0)).values())}
    if unit.lead:
        lead_scores = _cue_scores(tx.strip_markdown(unit.lead))
        if tx.has_cue(unit.lead, OPTION_CUES):
            return "gotcha" if scores["gotcha"] >= 2 else None
        scores = {name: score + lead_scores[name] for name, score in scores.items()}
    best = max(scores, key=scores.get)
    return best if scores[best] >= 2 else None


# ---------------------------------------------------------------- building one technical card


def _technical_candidate(session: Session, units: list[_Unit], card_type: str, openers: list[int | None],
                         chinese: bool, today: date) -> _Candidate | None:
    turn = units[0].turn
    opener = openers[turn]
    body = _unit_body(units)
    sections = _sections(session, units, card_type, opener, chinese)
    content, _ = tx.resolve_dates(_render(sections, body, card_type, chinese), today)
    tags = tx.keywords(body, 6)
    title = _technical_title(units, card_type, tags)
    if not title:
        return None
    source_turns = [turn] + ([opener] if opener is not None else []) + _context_turns(session, units, opener)
    return _Candidate(
        type=card_type, title=title, content=content[:CONTENT_LIMIT].rstrip(),
        tags=tags,
        importance=_technical_importance(units, card_type, content),
        turns=source_turns, order=(turn, units[0].position), words=tx.content_words(body),
        body=body,
    )


def _unit_body(units: list[_Unit]) -> str:
    """The Markdown the units say, with their list items and at most one short code block."""
    parts = []
    for unit in units:
        if unit.items:
            numbered = [f"{n}. {tx.LIST_MARK.sub('', item)}" for n, item in enumerate(unit.items, start=1)]
            lead = _drop_label(unit.lead)
            parts.append("\n".join(([lead] if len(lead) > 3 else []) + numbered))
        else:
            parts.append(tx.LIST_MARK.sub("", _drop_label(unit.text)).strip())
    code = next((block for unit in units for block in unit.code if block.count("\n") <= 14), "")
    joined = "\n".join(parts) if any(unit.items for unit in units) else _join(parts)
    return joined + (f"\n\n{code}" if code else "")


def _sections(session: Session, units: list[_Unit], card_type: str, opener: int | None,
              chinese: bool) -> list[tuple[str, str]]:
    """Context a card needs to stand alone: the problem asked, the error seen, the fix, reason or options."""
    sections = []
    problem = _problem(session, opener)
    if problem and card_type in ("gotcha", "decision"):
        sections.append(("问题" if chinese else "Problem", problem))
    error = _error_line(session, opener, units[0].turn)
    if error and card_type == "gotcha":
        sections.append(("报错" if chinese else "Error", f"`{error}`"))
    if card_type == "gotcha":
        fix = _following(session, units, FIX_CUES)
        if fix:
            sections.append(("修复" if chinese else "Fix", fix))
    if card_type == "decision":
        reason = _following(session, units, REASON_CUES, same_turn_only=True)
        if reason:
            sections.append(("理由" if chinese else "Why", reason))
        options = _options_before(session, units[0])
        if options:
            sections.append(("备选" if chinese else "Options considered", options))
    return sections


def _options_before(session: Session, first: _Unit) -> str:
    """The list of options weighed just before a decision in the same message, one line each."""
    items = [unit for unit in _units(first.turn, session.turns[first.turn].content)
             if unit.position < first.position and unit.lead and tx.has_cue(unit.lead, OPTION_CUES)]
    lines = [f"- {tx.shorten(tx.strip_markdown(unit.text), 110)}" for unit in items]
    return "\n" + "\n".join(lines) if lines else ""


def _render(sections: list[tuple[str, str]], body: str, card_type: str, chinese: bool) -> str:
    labels = {"gotcha": ("原因", "Cause"), "decision": ("决定", "Decision"), "pattern": ("做法", "How"),
              "concept": ("说明", "What")}
    label = labels[card_type][0 if chinese else 1]
    head = [section for section in sections if section[0] in ("问题", "Problem", "报错", "Error")]
    tail = [section for section in sections if section not in head]
    lines = [f"**{name}:** {text}" for name, text in head]
    lines.append(f"**{label}:** {body}" if "\n" not in body else f"**{label}:**\n{body}")
    lines.extend(f"**{name}:** {text}" for name, text in tail)
    return "\n\n".join(lines)


def _problem(session: Session, opener: int | None) -> str:
    """What the user asked about: the episode's opener if it states a problem, else the session's first ask."""
    first_user = next((index for index, turn in enumerate(session.turns) if turn.role == "user"), None)
    for index in (opener, first_user):
        if index is None:
            continue
        text = session.turns[index].content
        if index == first_user or "?" in text or "？" in text or tx.has_cue(text, GOTCHA_WEAK + GOTCHA_STRONG):
            sentences = tx.split_sentences(text)
            return tx.shorten(_join(sentences[:2]), 260) if sentences else ""
    return ""


def _error_line(session: Session, opener: int | None, last: int) -> str:
    """The most telling error line in tool output (or a backticked error the user pasted) before the card."""
    start = opener if opener is not None else 0
    lines: list[str] = []
    for turn in session.turns[start:last + 1]:
        if turn.role == "user":
            lines.extend(span for span in tx.INLINE_CODE.findall(turn.content))
        elif turn.role == "tool":
            lines.extend(_strip_log_prefix(line.strip()) for line in turn.content.splitlines())
    scored = [(_error_score(line), -position, line) for position, line in enumerate(lines)]
    best = max(scored, default=(0, 0, ""))
    return tx.shorten(re.sub(r"\s{2,}", " ", best[2]), 160) if best[0] > 0 else ""


def _error_score(line: str) -> int:
    """Error lines with a message worth quoting: several words and a specific failure phrase."""
    if not ERROR_LINE.search(line) or len(re.findall(r"[A-Za-z\u3400-\u9fff]+", line)) < 4:
        return 0
    return 1 + len(ERROR_LINE.findall(line)) + (2 if STRONG_ERROR.search(line) else 0)


def _strip_log_prefix(line: str) -> str:
    """Drop timestamps and host/process prefixes so the quote starts at the message."""
    line = re.sub(r"^\[?[\w\s:/.-]*\d{2}:\d{2}:\d{2}[.\d]*\]?\s*", "", line)
    return re.sub(r"^[\w.-]+ [\w.-]+\[\d+\]:\s*", "", line)


def _following(session: Session, units: list[_Unit], cues: tuple[str, ...], same_turn_only: bool = False) -> str:
    """The first sentence or list after the units that carries one of ``cues`` (a fix, a reason)."""
    last = units[-1]
    for index in range(last.turn, min(len(session.turns), last.turn + 4)):
        turn = session.turns[index]
        if index > last.turn and (same_turn_only or turn.role == "user"):
            break
        if turn.role != "assistant":
            continue
        for unit in _units(index, turn.content):
            if index == last.turn and unit.position <= last.position:
                continue
            text = unit.lead if unit.items else unit.text
            if tx.has_cue(tx.strip_markdown(text), cues):
                return _unit_body([unit])[:500]
    return ""


def _context_turns(session: Session, units: list[_Unit], opener: int | None) -> list[int]:
    """Tool turns between the question and the card: they hold the evidence the card relies on."""
    if opener is None:
        return []
    last = units[-1].turn
    return [index for index in range(opener + 1, last) if session.turns[index].role == "tool"
            and ERROR_LINE.search(session.turns[index].content)][:3]


def _drop_label(text: str) -> str:
    """Text without its leading label ("Root cause:", "找到了。"), keeping bold markers paired."""
    stripped = LABEL.sub("", text, count=1).strip()
    if stripped.count("**") % 2:
        stripped = stripped.replace("**", "", 1)
    return stripped


def _technical_title(units: list[_Unit], card_type: str, tags: list[str]) -> str:
    """The first specific phrase among lead, item heads and first sentences; else the best one, named by a tag."""
    options = [option for unit in units[:2] for option in _title_options(unit, card_type)]
    options = [tx.shorten(option, TITLE_LIMIT) for option in options if tx.title_width(option) >= 12]
    if not options:
        return ""
    good = next((option for option in options if _title_score(option) >= 1), None)
    if good:
        return good
    best = max(options, key=_title_score)
    tag = next((tag for tag in tags if tag.lower() not in best.lower()), "")
    return tx.shorten(f"{tag}: {best}", TITLE_LIMIT) if tag else best


def _title_options(unit: _Unit, card_type: str) -> list[str]:
    """Candidate titles in order of preference, already plain text."""
    if not unit.items:
        sentences = [_clean_sentence(sentence) for sentence in tx.split_sentences(_drop_label(unit.text))[:3]]
        return sentences
    heads = [_bold_head(item) for item in unit.items]
    joined = ""
    if len(heads) >= 2 and all(heads[:2]):
        joiner = " vs " if card_type == "concept" else "; "
        joined = joiner.join(head.rstrip(".。:：") for head in heads[:3])
    lead = _specific_lead(unit.lead)
    options = [joined, lead] if card_type == "concept" else [lead, joined]
    options.extend(_clean_sentence(tx.split_sentences(item)[0]) for item in unit.items[:3] if item.strip())
    return [option for option in options if option]


def _clean_sentence(text: str) -> str:
    """A sentence as a title: no label, short generic "X:" head, connective, emphasis or long call arguments."""
    text = re.sub(r"`([^`]*?)\s+\.\.\.\s+[^`]*`", r"`\1`", tx.LIST_MARK.sub("", text))
    plain = tx.strip_markdown(_drop_label(text)).strip("*_ ")
    plain = DETERMINER.sub("The ", CONNECTIVE.sub("", plain).strip())
    head = re.match(r"^(.{2,16}?)(?::\s|：)", plain)
    if head and not tx.identifiers(head.group(1)) and tx.title_width(plain) - tx.title_width(head.group(0)) >= 24:
        plain = plain[head.end():].strip()
    return re.sub(r"(\w)\([^()]{16,}\)", r"\1()", plain)


def _title_score(title: str) -> float:
    """Specific titles name things (identifiers, products, real words); anaphora and fragments score low."""
    score = 0.0
    if tx.identifiers(title):
        score += 2
    if _named_things(title):
        score += 1
    if tx.is_chinese(title) and tx.chinese_keywords(title, 4):
        score += 1
    if not tx.is_chinese(title) and len([w for w in re.findall(r"[A-Za-z]+", title) if tx._content_word(w)]) >= 3:
        score += 1
    if ANAPHORA.match(title):
        score -= 3
    if tx.title_width(title) < 20:
        score -= 2
    return score


def _specific_lead(lead: str) -> str:
    """A list lead that names its subject ("Rules for JVM services on k8s:"), else ''."""
    plain = tx.strip_markdown(_drop_label(lead)).rstrip(":： ")
    if tx.is_chinese(plain):
        return plain if len(tx.chinese_keywords(plain, 4)) >= 2 else ""
    return plain if tx.identifiers(plain) or _named_things(plain) else ""


def _bold_head(item: str) -> str:
    bold = re.match(r"^\s*(?:[-*]|\d+[.)])?\s*\*\*(.+?)\*\*", item)
    return tx.strip_markdown(bold.group(1)) if bold and tx.title_width(bold.group(1)) <= 36 else ""


def _technical_importance(units: list[_Unit], card_type: str, content: str) -> float:
    score = TYPE_BASE[card_type]
    if any(LABEL.match(unit.lead or unit.text) for unit in units):
        score += 0.15
    if any(unit.items for unit in units):
        score += 0.08
    if "`" in content:
        score += 0.05
    if len(content) > 400:
        score += 0.05
    return score


# ================================================================ conversations between people


@dataclass
class _Fact:
    turn: int
    speaker: str
    sentence: str
    score: float
    asked_by: int | None


def _conversation_candidates(session: Session) -> list[_Candidate]:
    today = session.started_at.date()
    names = _participants(session)
    threads = _fact_threads(_facts(session), session)
    return [_fact_candidate(thread, names, session, today) for thread in threads]


def _participants(session: Session) -> list[str]:
    names: list[str] = []
    for turn in session.turns:
        name = _speaker_of(turn) or _role_name(turn)
        if name not in names:
            names.append(name)
    return names


def _role_name(turn: Turn) -> str:
    return {"user": "The user", "assistant": "The assistant"}.get(turn.role, turn.role.title())


def _facts(session: Session) -> list[_Fact]:
    """First-person statements that say something about the speaker's life."""
    facts = []
    names = tuple(_participants(session))
    for index, turn in enumerate(session.turns):
        if turn.role not in ("user", "assistant"):
            continue
        speaker = _speaker_of(turn) or _role_name(turn)
        asked_by = index - 1 if index and _asks(session.turns[index - 1].content) else None
        for sentence in tx.split_sentences(IMAGE.sub("", turn.content)):
            sentence = _without_interjection(sentence, names)
            score = _fact_score(sentence)
            if score >= FACT_THRESHOLD:
                facts.append(_Fact(index, speaker, sentence, score, asked_by))
    return facts


def _without_interjection(sentence: str, names: tuple[str, ...] = ()) -> str:
    """'Oh, I went…' → 'I went…'; 'Hey Maria, since…' → 'since…'; 'Dave, I had…' → 'I had…'."""
    text = INTERJECTION.sub("", sentence).strip()
    for name in names:
        text = re.sub(rf"^{re.escape(name)}[,!]\s+", "", text)
    return text


def _fact_score(sentence: str) -> float:
    """How much a sentence tells about its speaker: events and dates count most, small talk nothing."""
    lower = sentence.lower()
    words = re.findall(r"[\w'’]+", sentence)
    if len(words) < 5 or sentence.rstrip().endswith("?") or not FIRST_PERSON.search(sentence):
        return 0.0
    score = 0.3 if tx.noun_phrases(sentence) else 0.0
    score += 1.0 if tx.has_cue(lower, EVENT_VERBS) else 0.0
    score += 0.8 if tx.has_cue(lower, PLAN_CUES) else 0.0
    score += 0.6 if tx.has_cue(lower, PREFERENCE_CUES) else 0.0
    score += 0.6 if tx.has_cue(lower, PERSONAL_CUES) else 0.0
    score += 0.5 if tx.has_cue(lower, STATE_CUES) else 0.0
    score += 1.0 if tx.RELATIVE_DATE.search(sentence) else 0.0
    score += min(1.0, 0.5 * len(_named_things(sentence)))
    score += 0.3 if re.search(r"\d", sentence) else 0.0
    if tx.has_cue(lower, SMALL_TALK) and len(words) < 12:
        score -= 1.5
    if SECOND_PERSON.search(sentence):
        score -= 0.8
    if FACT_ANAPHORA.match(sentence):
        score -= 0.5
    return score


def _named_things(sentence: str) -> list[str]:
    """Capitalised words that are not sentence starts, pronouns or common exclamations."""
    return [word for word in tx.CAPITALISED.findall(sentence)
            if word.lower() not in tx.STOPWORDS and word.lower() not in tx.FILLER_WORDS]


def _fact_threads(facts: list[_Fact], session: Session) -> list[list[_Fact]]:
    """Group a speaker's facts about one thing: same turn, a follow-up answer, or the same topic later."""
    threads: list[list[_Fact]] = []
    for fact in facts:
        thread = _thread_for(fact, threads, session)
        if thread is None:
            threads.append([fact])
        elif len(thread) < 4:
            thread.append(fact)
    return threads


def _thread_for(fact: _Fact, threads: list[list[_Fact]], session: Session) -> list[_Fact] | None:
    words = tx.content_words(fact.sentence) - {fact.speaker.lower()}
    for thread in reversed(threads):
        if thread[0].speaker != fact.speaker:
            continue
        last = thread[-1]
        if fact.turn == last.turn or (fact.turn - last.turn == 2 and _follow_up(session, last)):
            return thread
        topic = tx.content_words(" ".join(f.sentence for f in thread)) - {fact.speaker.lower()}
        if len(words & topic) >= 2 or tx.overlap(words, topic) >= 0.34:
            return thread
    return None


def _follow_up(session: Session, last: _Fact) -> bool:
    """The other person's reply after ``last`` is a question about it ("What happened?", "Did it…?")."""
    reply = IMAGE.sub("", session.turns[last.turn + 1].content)
    questions = " ".join(sentence for sentence in tx.split_sentences(reply) if sentence.endswith("?"))
    if not questions:
        return False
    refers = re.search(r"\b(it|this|there|them|those|these)\b", questions.lower()) is not None
    return refers or len(tx.content_words(questions) & tx.content_words(last.sentence)) > 0


def _fact_candidate(thread: list[_Fact], names: list[str], session: Session, today: date) -> _Candidate:
    speaker = thread[0].speaker
    listener = next((name for name in names if name != speaker), "")
    content = " ".join(_capitalise(tx.resolve_dates(_third_person(fact.sentence, speaker), today)[0])
                       for fact in thread)
    question = _question_context(thread[0], session, names)
    said = f"{speaker}, talking with {listener} on {tx.long_date(today)}." if listener else \
        f"{speaker}, on {tx.long_date(today)}."
    card_type = "decision" if any(tx.has_cue(f.sentence, DECIDED_CUES) for f in thread) else "concept"
    turns = [fact.turn for fact in thread] + [fact.asked_by for fact in thread if fact.asked_by is not None]
    return _Candidate(
        type=card_type, title=_fact_title(thread, speaker, today),
        content=f"{question}{content}\n\n({said})", tags=_fact_tags(speaker, thread),
        importance=min(0.9, 0.3 + 0.1 * sum(fact.score for fact in thread)),
        turns=turns, order=(thread[0].turn, 0), words=tx.content_words(" ".join(f.sentence for f in thread)),
        body=content,
    )


def _question_context(first: _Fact, session: Session, names: list[str]) -> str:
    """The question a fact answers, when the fact leans on it ("It was…", "I started a few days ago")."""
    if first.asked_by is None or not (ANAPHORA.match(first.sentence) or len(first.sentence) < 60):
        return ""
    asker = _speaker_of(session.turns[first.asked_by]) or _role_name(session.turns[first.asked_by])
    question = next((q for q in reversed(tx.split_sentences(IMAGE.sub("", session.turns[first.asked_by].content)))
                     if q.endswith("?")), "")
    return f"{asker} asked: “{_without_interjection(question)}” " if question else ""


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fact_title(thread: list[_Fact], speaker: str, today: date) -> str:
    """The most telling statement, shortened, with a relative date moved to the end as an absolute one."""
    best = max(thread, key=lambda fact: fact.score - (1.5 if ANAPHORA.match(fact.sentence) else 0))
    statement = _capitalise(_third_person(best.sentence, speaker))
    _, dates = tx.resolve_dates(statement, today)
    core = _capitalise(tx.strip_dates(statement))
    if speaker not in core:
        core = f"{speaker}: {core}"
    suffix = f" ({tx.compact_date(dates[0])})" if dates else ""
    return tx.shorten(core, max(48, TITLE_LIMIT - len(suffix))) + suffix


def _fact_tags(speaker: str, thread: list[_Fact]) -> list[str]:
    text = tx.strip_dates(" ".join(fact.sentence for fact in thread))
    return tx._unique([speaker, *tx.english_keywords(text, 6)])[:6]


# ---------------------------------------------------------------- first person → third person

THIRD_PERSON_FORMS = [
    (re.compile(r"\bI am\b|\bI'm\b|\bI’m\b|\bIm\b"), "{name} is"),
    (re.compile(r"\bI've\b|\bI’ve\b"), "{name} has"),
    (re.compile(r"\bI['’]d((?:\s+(?:just|really|already|never|always|finally))*\s+(?:been|had|done|gone|seen|"
                r"got|made|[a-z]+ed)\b)"), "{name} had\\1"),
    (re.compile(r"\bI'd\b|\bI’d\b"), "{name} would"),
    (re.compile(r"\bI'll\b|\bI’ll\b"), "{name} will"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themself"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s"),
    (re.compile(r"\bmine\b"), "{name}'s"),
    (re.compile(r"(?<![\w-])me(?![\w-])"), "{name}"),
]
SUBJECTLESS_START = re.compile(r"^(gonna|gotta|going|planning|thinking|working|trying|heading|hoping|been|just|"
                               r"[a-z]+ed|had|went|got|made|took|saw|spent|found|met|bought)\b", re.IGNORECASE)
SUBJECTLESS_AUXILIARY = {"gonna": "is ", "going": "is ", "planning": "is ", "thinking": "is ", "working": "is ",
                         "trying": "is ", "heading": "is ", "hoping": "is ", "been": "has ", "gotta": "has "}
ADVERBS = ("really", "also", "just", "still", "always", "usually", "never", "actually", "totally", "definitely",
           "often", "sometimes", "absolutely", "truly", "finally", "recently", "even", "already", "mostly")
UNCHANGED_AFTER_I = frozenset("""
can could will would shall should may might must did didn't can't couldn't won't wouldn't shouldn't was wasn't
had went got made took saw came ran found gave met left felt thought knew told said bought brought taught caught
kept lost won began wrote put set sat stood heard held paid sent spent built drove ate fell flew grew drew swam
sang rode woke wore chose became forgot understood hit cut let quit threw shot slept sold led lent fed fought
dealt meant hung dug stuck struck spoke broke froze stole hid bit shook used
""".split())
IRREGULAR_PRESENT = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "am": "is"}


def _third_person(sentence: str, name: str) -> str:
    """'I went to my class' → 'Caroline went to Caroline's class': facts that stand alone."""
    text = IMAGE.sub("", sentence).strip()
    subjectless = SUBJECTLESS_START.match(text)
    if subjectless:
        text = f"{name} {SUBJECTLESS_AUXILIARY.get(subjectless.group(1).lower(), '')}{text[0].lower()}{text[1:]}"
    for pattern, replacement in THIRD_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=name), text)
    text = re.sub(r"\bI\b((?:\s+(?:" + "|".join(ADVERBS) + r"))*)\s+([a-z']+)",
                  lambda match: f"{name}{match.group(1)} {_conjugate(match.group(2))}", text)
    return re.sub(r"\bI\b", name, text)


def _conjugate(verb: str) -> str:
    """The third-person form of a present-tense verb; past forms, modals and -ed words stay."""
    if verb in UNCHANGED_AFTER_I or verb.endswith("ed") or "'" in verb.replace("don't", ""):
        return verb
    if verb in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[verb]
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


# ================================================================ choosing, naming, linking


def _merge_duplicates(candidates: list[_Candidate]) -> list[_Candidate]:
    """Fold near-duplicates of the same type into one card: the fuller one survives, with both sources."""
    kept: list[_Candidate] = []
    for candidate in sorted(candidates, key=lambda c: c.order):
        twin = next((other for other in kept if other.type == candidate.type
                     and _near_duplicates(other.words, candidate.words)), None)
        if twin is None:
            kept.append(candidate)
            continue
        survivor, other = (twin, candidate) if len(twin.content) >= len(candidate.content) else (candidate, twin)
        survivor.turns = other.turns + survivor.turns
        survivor.importance = max(twin.importance, candidate.importance) + 0.03
        survivor.words = twin.words | candidate.words
        survivor.order = twin.order
        kept[kept.index(twin)] = survivor
    return kept


def _near_duplicates(first: set[str], second: set[str]) -> bool:
    """One repeats the other (mostly contained), or both say largely the same."""
    union = len(first | second) or 1
    return (tx.overlap(first, second) >= 0.7 and min(len(first), len(second)) >= 4) or \
        len(first & second) / union >= 0.5


def _cut(candidates: list[_Candidate], limit: int) -> list[_Candidate]:
    """Keep the most important cards (earlier first on ties), then restore session order."""
    ranked = sorted(candidates, key=lambda c: (-round(c.importance, 4), c.order))[:limit]
    return sorted(ranked, key=lambda c: c.order)


def _make_titles_unique(candidates: list[_Candidate]) -> None:
    seen: dict[str, int] = {}
    for candidate in candidates:
        key = candidate.title.lower()
        seen[key] = seen.get(key, 0) + 1
        if seen[key] > 1:
            candidate.title = f"{candidate.title} ({seen[key]})"


def _links(cards: list[_Candidate]) -> list[LinkDraft]:
    links = [LinkDraft(a.title, b.title, "TEMPORAL_NEXT", "next card in the same session")
             for a, b in zip(cards, cards[1:])]
    for index, card in enumerate(cards):
        links.extend(_causal_links(card, cards[:index]))
    return links


def _causal_links(card: _Candidate, earlier: list[_Candidate]) -> list[LinkDraft]:
    """Links a cue phrase in ``card`` justifies towards an earlier card that the cue's sentence talks about."""
    links = []
    for gotcha in reversed([other for other in earlier if other.type == "gotcha"]):
        if card.type in ("decision", "pattern"):
            cue = _cue_about(card.body, REASON_CUES + PREVENTION_CUES, gotcha.words)
            if cue:
                links.append(LinkDraft(card.title, gotcha.title, "CAUSED_BY", f"{card.type} made because of it (“{cue}”)"))
                break
        if card.type == "gotcha":
            cue = _cue_about(gotcha.body, CAUSE_CUES, card.words)
            if cue:
                links.append(LinkDraft(gotcha.title, card.title, "CAUSES", f"“{cue}” leads to this problem"))
                break
    if card.type in ("pattern", "decision"):
        concept = next((other for other in reversed(earlier) if other.type == "concept"
                        and _mentions(card.body, other)), None)
        if concept:
            links.append(LinkDraft(card.title, concept.title, "DEPENDS_ON", "relies on what that card explains"))
    return links


def _cue_about(content: str, cues: tuple[str, ...], topic: set[str]) -> str:
    """The cue of the first sentence in ``content`` that has a cue and shares two words with ``topic``."""
    for sentence in tx.split_sentences(tx.strip_markdown(content)):
        found = tx.find_cues(sentence, cues)
        if found and len(tx.content_words(sentence) & topic) >= 2:
            return found[0]
    return ""


def _mentions(content: str, concept: _Candidate) -> bool:
    """The content names the concept's subject: its first tag or most of its title's words."""
    title_words = tx.content_words(concept.title)
    shared = tx.content_words(content) & title_words
    first_tag = concept.tags[0].lower() if concept.tags else ""
    return len(shared) >= max(2, len(title_words) // 2) or (len(first_tag) > 3 and first_tag in content.lower())
