"""The offline distiller: cards from cue phrases and message structure, no LLM.

The default install must distill with no network and no model download, and
the same session must always give the same cards. So this distiller reads the
shape of a conversation instead of its meaning:

- agent sessions (tools, code): headers such as "Root cause:" or "规则：",
  numbered lists, cue phrases ("decided", "because", 导致, 每次…) and error lines
  in tool output become gotcha, decision, pattern and concept cards;
- conversations between people (LoCoMo-style ``speaker`` on each turn, or no
  tools and no code): first-person statements about events, plans and
  preferences become concept cards, rewritten in the third person with the
  speaker's name and absolute dates.

Cue lists are module-level tuples so they are easy to tune by reading
``python -m bench.show_cards``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ..domain import Session, Turn
from . import text as tx
from .base import CardDraft, Distillation, LinkDraft

# ================================================================ cue lists: agent sessions
# Strong cues count 2, hints 1; a unit needs 2 points for a type. "re:" marks a regular expression.

GOTCHA_CUES = ("root cause", "gotcha", "caveat", "pitfall", "the catch", "careful", "watch out", "silently",
               "by mistake", "counter-intuitive", "counterintuitive", "trap", "the bug", "actual bug",
               "原因", "根因", "导致", "坑", "注意", "报错", "反直觉", "地雷", "潜伏", "不生效", "不支持", "挡不住")
GOTCHA_HINTS = ("because", "caused", "due to", "instead", "don't", "doesn't", "didn't", "isn't", "won't", "can't",
                "never", "error", "errors", "fail", "fails", "failed", "wrong", "breaks", "broke", "killed",
                "ignored", "ignoring", "only", "no longer", "不会", "不能", "失败", "错误", "因为", "不要", "先别",
                "千万别", "别用", "否则", "丢弃", "断开", "不一定")
DECISION_CUES = ("decision", "decided", "i recommend", "我建议", "we'll use", "we will use", "we'll go with",
                 "going with", "go with", "chose", "settled on", "rejected", "决定", "改用", "选用", "就这么定", "定了", "不选", "采用")
DECISION_HINTS = ("recommend", "proposal", "propose", "prefer", "i'd", "switch to", "replace", "replaces",
                  "instead of", "rather than", "trade-off", "倾向", "建议", "方案", "替代", "换成", "选择")
PATTERN_CUES = (r"re:(?<!almost )\balways\b", "whenever", "every time", "each time", "rule of thumb",
                "make it a rule", r"re:\brules?\b(?=\s*(?:[:：(（]|for\b|of thumb|recorded|i'm recording))",
                "rule recorded", "pattern for", "the pattern is", "checklist", "step by step", "triage", "runbook",
                r"re:每次[^。]{0,40}?(?:都要|必须|务必|先|之前|以后|要)", "凡是", "规则", "规矩", "步骤", "一律", "流程",
                r"re:先[^。！？\n]{1,40}再")
PATTERN_HINTS = ("before", "after every", "after each", "first", "then", "must", "make sure", "never",
                 "必须", "务必", "先", "之前", "确保")
CONCEPT_CUES = ("means", "i.e.", "refers to", "is defined as", "works by", "under the hood", "the difference",
                "是指", "意思是", "也就是", "区别", "概念", "原理", "指的是", "本质")
CONCEPT_HINTS = ("is a", "is the", "are the", "defaults to", "by default", "only exists", "默认", "就是")
PROBLEM_LEADS = ("problems", "problem", "issues", "what went wrong", "两类问题", "问题", "separate problems")
"""A list introduced by these is a list of things that went wrong."""
OPTION_LEADS = ("options", "alternatives", "选项", "对比", "几种")
"""A list introduced by these weighs options: its items feed the decision, only gotcha items stand alone."""
PROBLEM_CUES = ("slow", "broken", "dead", "down", "stuck", "missing", "lost", "crash", "500", "502", "504",
                "timeout", "挂", "慢", "超时", "不见了", "丢", "红了", "没收到", "异常")
FIX_CUES = ("fix", "the fix", "proposed fix", "solution", "mitigation", "workaround", "修复", "解决", "修法",
            "修好", "恢复方法")
REASON_CUES = ("because", "since", "so that", "to avoid", "to prevent", "that's why", "due to", "which is why",
               "given", "therefore", "so the", "so we", "因为", "由于", "为了", "为了避免", "所以", "因此", "以免",
               "避免", "于是")
PREVENTION_CUES = ("never", "don't", "do not", "always", "must", "avoid", "prevent", "so that", "不要", "必须",
                   "避免", "防止", "一律", "禁止")
CAUSE_CUES = ("causes", "caused", "leads to", "led to", "results in", "导致", "引起", "造成")
NARRATION_CUES = ("let me", "let's see", "checking", "i'll", "i will", "looking at", "on it", "running",
                  "applying", "rolling it out", "writing it", "done", "noted", "resolved it", "now", "ok to ship",
                  "yes", "先看", "我先", "看一下", "确认一下", "查一下", "再看", "接下来", "记下了", "加好了", "好的",
                  "都好了", "恢复好了", "我来", "我还是")
"""Checked at the start of a sentence: the agent telling what it does, not what it learned."""
REPORT_CUES = ("已更新", "已生效", "已完成", "已删除", "已启用", "已恢复", "已经是", r"re:\bPR #\d+", "is open",
               "is in `", "updated", "now passes", "all hooks pass")
APPROVALS = ("yes", "ok", "okay", "do it", "go ahead", "sounds good", "great", "nice", "perfect", "thanks", "thx",
             "好", "行", "可以", "同意", "收到", "👍", "merged", "agree")

LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:"
    r"(?:(?:one|a|another|two|the)\s+)?(?:root cause|decision(?: proposal| recorded)?|gotcha(?: worth remembering)?|"
    r"caveats?|note|rules?(?: recorded| i'm recording)?|pattern|proposed fix|fix)[^:：\n]{0,12}[:：]"
    r"|[^:：\n]{0,8}(?:原因|根因|决定|结论|规则|注意|修复|坑|总结)[^:：\n]{0,8}[:：]"
    r"|(?:confirmed|found it|找到了|确认了|对上了|情况清楚了|符合预期)[^:：。\n]{0,6}[:：。，,.!！])"
    r"\s*(?:\*\*)?",
    re.IGNORECASE,
)
"""A label that opens a paragraph ("Root cause:", "规则：", "找到了。"): it types the paragraph, then goes."""
ERROR_LINE = re.compile(r"error|exception|fatal|failed|failure|refused|denied|killed|timed out|too many|"
                        r"not found|unknown key|cannot|repeated too quickly|报错|失败|错误", re.IGNORECASE)
STRONG_ERROR = re.compile(r"killed|refused|timed out|repeated too quickly|too many|exception|fatal|"
                          r"out of memory|does not exist|already exists|unknown key|prematurely", re.IGNORECASE)
ANAPHORA = re.compile(r"^(?:it|they|so|also|after that|then|(?:this|that|these|those)(?=\s+(?:is|was|are|were|"
                      r"means|one|will|would|can|should|has|have)\b)|that's|this's)\b|^(?:这|那|它|也)",
                      re.IGNORECASE)
"""A sentence that leans on the one before it ("That's almost always…", "这是…") cannot stand alone."""
DETERMINER = re.compile(r"^(?:this|that|these|those)\s+(?!(?:is|was|are|were|means|one|will|would|can|should|has|"
                        r"have)\b)(?=[a-z])", re.IGNORECASE)
CONNECTIVE = re.compile(r"^(?:so|also|but|however|and|this means|that means|which means|in short|这也说明|这说明|"
                        r"所以|因此|另外|而且|也就是说)[,，:：\s]*", re.IGNORECASE)
BOLD_HEAD = re.compile(r"^\s*(?:[-*]|\d+[.)])?\s*\*\*(.+?)\*\*")

# ================================================================ cue lists: conversations between people

EVENT_CUES = ("went", "visited", "started", "joined", "finished", "bought", "adopted", "took", "moved", "won",
              "lost", "signed up", "launched", "opened", "painted", "attended", "volunteered", "tried", "learned",
              "met", "celebrated", "quit", "graduated", "applied", "received", "planted", "baked", "built",
              "traveled", "travelled", "hiked", "camped", "organized", "hosted", "performed", "competed",
              "completed", "created", "published", "released", "passed", "injured", "married", "got", "saw",
              "watched", "played", "taught", "became", "decided", "explored", "returned", "donated", "raised",
              "earned", "landed", "ran", "read", "wrote", "had", "found", "gave", "cooked", "been to", "just",
              "since we last")
PLAN_CUES = ("off to", "heading to", "planning", "plan to", "plans to", "going to", "gonna", "want to",
             "hoping to", "hope to", "thinking of", "thinking about", "keen on", "looking forward", "can't wait",
             "next", "soon", "upcoming", "goal", "dream", "someday")
PREFERENCE_CUES = ("love", "like", "favorite", "favourite", "enjoy", "passionate", "fan of", "hate", "prefer",
                   "into", "hobby", "fun way", "way to relax", "helps me", "express", "outlet", "therapeutic")
STATE_CUES = ("swamped", "busy with", "stressed", "working on", "studying", "learning", "training", "recovering",
              "struggling", "saving up", "been doing", "been working")
PERSONAL_CUES = ("kids", "children", "husband", "wife", "son", "daughter", "mom", "dad", "mother", "father",
                 "family", "partner", "boyfriend", "girlfriend", "dog", "cat", "pet", "brother", "sister",
                 "parents", "grandma", "grandpa", "job", "work as", "boss", "team", "school", "years old",
                 "grew up", "live in", "home")
DECIDED_CUES = (r"re:(?<!n't )(?<!not )(?<!yet )\bdecided\b", "made the decision", "决定")
SMALL_TALK = ("sounds like", "thanks", "thank you", "congrats", "congratulations", "good to see", "how are you",
              "how have you been", "talk soon", "talk to you", "take care", "bye", "see you", "good luck",
              "have a good", "nice to", "long time no see", "hey", "hi", "hello")
FACT_THRESHOLD = 0.8
"""Score a sentence needs to start a card: see ``_fact_score``."""
DETAIL_THRESHOLD = 0.3
"""Score a sentence needs to join a card already started on the same topic ("The group made me feel…")."""

FIRST_PERSON = re.compile(r"\b(?:I|I'm|I’m|I've|I'd|I'll|my|My|me|mine|myself)\b")
SECOND_PERSON = re.compile(r"\b(?:you|your|you're|you've|yours)\b", re.IGNORECASE)
FACT_ANAPHORA = re.compile(r"^(?:it|that|this|those|these|they|moments like|like these|seeing|there)\b",
                           re.IGNORECASE)
INTERJECTION = re.compile(
    r"^(?:(?:yeah|yes|yep|oh|ooh|hey|hi|hello|wow|whoa|well|so|btw|anyway|anyways|haha|lol|ah|aw+|omg|ok|okay|"
    r"by the way|honestly|actually|guess what|thanks|thank you|sure|totally|definitely|cool|nice|great|"
    r"besides that|apart from that|on another note|just so you know|speaking of [\w\s]{1,30}?(?=,)|"
    r"since we last (?:spoke|talked))"
    r"(?:\s+[A-Z][a-z]+)?[,!.…]*\s+)+",
    re.IGNORECASE,
)
IMAGE = re.compile(r"\s*\[shared image:[^\]]*\]")

TYPE_IMPORTANCE = {"gotcha": 0.62, "decision": 0.6, "pattern": 0.58, "concept": 0.5}
TITLE_LIMIT = 70
"""Title width: 70 Latin characters, or about 30 Chinese ones (see ``text.title_width``)."""
CONTENT_LIMIT = 1400


@dataclass
class _Candidate:
    """A card before near-duplicates are merged, the set is cut to size and titles are made unique."""

    type: str
    title: str
    content: str
    tags: list[str]
    importance: float
    turns: list[int]
    order: tuple[int, int]
    """(turn, position in turn): session order."""
    words: set[str]
    body: str
    """What the card itself says, without borrowed context (the problem asked, the error seen)."""

    def draft(self) -> CardDraft:
        return CardDraft(title=self.title, content=self.content, type=self.type, tags=self.tags,
                         importance=round(min(1.0, max(0.0, self.importance)), 2), turns=sorted(set(self.turns)))


class OfflineDistiller:
    """Rule-based distiller: deterministic, offline and fast; the default ``distill.llm_provider``."""

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
            candidates = _agent_candidates(session)
        kept = _cut(_merge_duplicates(candidates), self.max_cards_per_session)
        if not kept:
            return Distillation([], [], skipped_reason="no reusable knowledge found")
        _make_titles_unique(kept)
        return Distillation([candidate.draft() for candidate in kept], _links(kept))


def _is_conversation(session: Session) -> bool:
    """People talking (speakers on turns, or no tools and no code at all), not an agent at work."""
    if any(_speaker_of(turn) for turn in session.turns):
        return True
    if any(turn.role == "tool" or turn.tool_calls for turn in session.turns):
        return False
    return not any("`" in turn.content for turn in session.turns)


def _speaker_of(turn: Turn) -> str | None:
    speaker = turn.extra.get("speaker")
    return speaker if isinstance(speaker, str) and speaker.strip() else None


# ================================================================ agent sessions: reading the transcript


@dataclass
class _Unit:
    """A paragraph, a list item, or a whole list under a typed lead, inside one assistant turn."""

    turn: int
    position: int
    text: str
    lead: str = ""
    items: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


@dataclass
class _Transcript:
    """One session read once: its units per assistant turn, who asked what, and the card language."""

    session: Session
    units: dict[int, list[_Unit]]
    openers: list[int | None]
    """For each turn, the user turn that asked what it answers."""
    chinese: bool
    today: date

    @classmethod
    def read(cls, session: Session) -> _Transcript:
        units = {index: _units(index, turn.content, bool(turn.tool_calls)) for index, turn in enumerate(session.turns)
                 if turn.role == "assistant" and turn.content.strip()}
        return cls(session, units, _episode_openers(session.turns), tx.is_chinese(_prose(session)),
                   session.started_at.date())


def _agent_candidates(session: Session) -> list[_Candidate]:
    transcript = _Transcript.read(session)
    candidates = (_agent_card(transcript, units, card_type) for units, card_type in _typed_groups(transcript))
    return [candidate for candidate in candidates if candidate]


def _prose(session: Session) -> str:
    """What the people wrote (no tool output, no code), to decide the card language."""
    texts = [turn.content for turn in session.turns if turn.role in ("user", "assistant")]
    return tx.INLINE_CODE.sub(" ", re.sub(r"```.*?```", " ", "\n".join(texts), flags=re.DOTALL))


def _episode_openers(turns: list[Turn]) -> list[int | None]:
    """Short approvals ("ok, do it") don't open a new episode: the question before them still holds."""
    openers: list[int | None] = []
    current = None
    for index, turn in enumerate(turns):
        if turn.role == "user" and not _is_approval(turn.content):
            current = index
        openers.append(current)
    return openers


def _is_approval(text: str) -> bool:
    plain = tx.strip_markdown(text).lower()
    return len(plain) < 60 and tx.has_cue(plain, APPROVALS) and not _asks(plain)


def _asks(text: str) -> bool:
    return "?" in text or "？" in text


def _units(turn_index: int, content: str, calls_tools: bool = False) -> list[_Unit]:
    """Paragraphs (minus narration), list items, and whole lists whose lead names their type."""
    units: list[_Unit] = []
    blocks = tx.split_blocks(content)
    leads = {block.lead for block in blocks if block.kind == "item" and block.lead}
    whole_lists: set[int] = set()
    for block in blocks:
        if block.kind == "code" and units:
            units[-1].code.append(block.text)
        elif block.kind == "para" and block.text not in leads:
            text = _substance(block.text, announces_tool_call=calls_tools and block is blocks[-1])
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


def _substance(paragraph: str, announces_tool_call: bool = False) -> str:
    """The paragraph without narration ("Let me check…"), questions or a trailing "Checking:" line.

    The last paragraph of a message that then runs a tool ends with the plan for that call ("先看…再看…："),
    however long: a plan, not knowledge, unless it names a fix.
    """
    sentences = tx.split_sentences(paragraph)
    while sentences and _is_filler(sentences[0]):
        sentences.pop(0)
    while sentences and (_is_filler(sentences[-1]) or _introduces_output(sentences[-1], announces_tool_call)):
        sentences.pop()
    return _join(sentences)


def _introduces_output(sentence: str, before_tool_call: bool) -> bool:
    """A closing line that only announces a command or its output ("Checking current limits:")."""
    plain = tx.strip_markdown(sentence)
    if not plain.endswith((":", "：")):
        return False
    return tx.title_width(plain) < 40 or (before_tool_call and not tx.has_cue(plain, FIX_CUES)
                                           and not LABEL.match(sentence))


def _is_filler(sentence: str) -> bool:
    """Questions, narration of what the agent is doing, and short progress reports."""
    plain = tx.strip_markdown(sentence)
    if plain.endswith(("?", "？")) or tx.has_cue(plain[:16], NARRATION_CUES) or tx.title_width(plain) < 8:
        return True
    return tx.title_width(plain) < 60 and tx.has_cue(plain, REPORT_CUES)


def _join(sentences: list[str]) -> str:
    """Sentences back into a paragraph: a space after English ones, none after Chinese punctuation."""
    text = ""
    for sentence in sentences:
        text += sentence if not text or text.endswith(("。", "！", "？", "；", "：")) else " " + sentence
    return text


# ================================================================ agent sessions: typing units


def _typed_groups(transcript: _Transcript) -> list[tuple[list[_Unit], str]]:
    """Typed units; neighbours of the same type in one turn make one card."""
    groups: list[tuple[list[_Unit], str]] = []
    turns = transcript.session.turns
    for index, units in transcript.units.items():
        previous_type, previous_position = None, -2
        answers_question = index > 0 and turns[index - 1].role == "user" and _asks(turns[index - 1].content)
        for unit in units:
            card_type = _classify(unit)
            if card_type is None and answers_question and unit.position == 0 and _answer_like(unit):
                card_type = "concept"
            if card_type is None:
                previous_type = None
                continue
            adjacent = card_type == previous_type and unit.position == previous_position + 1
            if adjacent and not unit.items and not groups[-1][0][-1].items:
                groups[-1][0].append(unit)
            else:
                groups.append(([unit], card_type))
            previous_type, previous_position = card_type, unit.position
    return groups


def _cue_scores(text: str) -> dict[str, float]:
    return {
        "gotcha": 2 * len(tx.find_cues(text, GOTCHA_CUES)) + len(tx.find_cues(text, GOTCHA_HINTS)),
        "decision": 2 * len(tx.find_cues(text, DECISION_CUES)) + len(tx.find_cues(text, DECISION_HINTS)),
        "pattern": 2 * len(tx.find_cues(text, PATTERN_CUES)) + len(tx.find_cues(text, PATTERN_HINTS)),
        "concept": 2 * len(tx.find_cues(text, CONCEPT_CUES)) + len(tx.find_cues(text, CONCEPT_HINTS)),
    }


def _best_type(scores: dict[str, float]) -> str | None:
    best = max(scores, key=scores.get)
    return best if scores[best] >= 2 else None


def _lead_type(lead: str) -> str | None:
    """The card type a list's lead announces ("Root cause:", "规则：", "Rules for …:"), if any."""
    if not lead:
        return None
    scores = _cue_scores(tx.strip_markdown(lead))
    scores["gotcha"] += 2 * len(tx.find_cues(lead, PROBLEM_LEADS))
    return _best_type(scores)


def _classify(unit: _Unit) -> str | None:
    """The unit's card type, or None when it is too thin, leans on the sentence before, or has no cue."""
    if unit.items:
        return _lead_type(unit.lead)
    plain = tx.strip_markdown(unit.text)
    if tx.title_width(plain) < 24 or (ANAPHORA.match(plain) and tx.title_width(plain) < 70):
        return None
    scores = _cue_scores(plain)
    label = LABEL.match(unit.text)
    if label:
        label_scores = _cue_scores(label.group(0))
        scores = {name: score + 3 * bool(label_scores[name]) for name, score in scores.items()}
    if unit.lead and tx.has_cue(unit.lead, OPTION_LEADS):
        return "gotcha" if scores["gotcha"] >= 2 else None
    if unit.lead:
        lead_scores = _cue_scores(tx.strip_markdown(unit.lead))
        scores = {name: score + lead_scores[name] for name, score in scores.items()}
    return _best_type(scores)


def _answer_like(unit: _Unit) -> bool:
    """A direct answer to the user's question that names something: a concept even without cues."""
    plain = tx.strip_markdown(unit.text)
    return tx.title_width(plain) >= 80 and bool(tx.identifiers(unit.text) or "`" in unit.text)


# ================================================================ agent sessions: one card


def _agent_card(transcript: _Transcript, units: list[_Unit], card_type: str) -> _Candidate | None:
    first = units[0]
    opener = transcript.openers[first.turn]
    body = _body(units)
    sections = _sections(transcript, units, card_type, opener)
    content, _ = tx.resolve_dates(_render(sections, body, card_type, transcript.chinese), transcript.today)
    tags = tx.keywords(body, 6)
    title = _agent_title(units, card_type, tags)
    if not title:
        return None
    turns = [first.turn] + ([opener] if opener is not None else []) + _evidence_turns(transcript, units, opener)
    return _Candidate(type=card_type, title=title, content=content[:CONTENT_LIMIT].rstrip(), tags=tags,
                      importance=_agent_importance(units, card_type, content), turns=turns,
                      order=(first.turn, first.position), words=tx.content_words(body), body=body)


def _body(units: list[_Unit]) -> str:
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


def _drop_label(text: str) -> str:
    """Text without its leading label ("Root cause:", "找到了。"), keeping bold markers paired."""
    stripped = LABEL.sub("", text, count=1).strip()
    if stripped.count("**") % 2:
        stripped = stripped.replace("**", "", 1)
    return stripped


def _sections(transcript: _Transcript, units: list[_Unit], card_type: str,
              opener: int | None) -> list[tuple[str, str]]:
    """Context a card needs to stand alone: the problem asked, the error seen, the fix, reason or options."""
    chinese = transcript.chinese
    sections = []
    problem = _problem(transcript.session, opener)
    if problem and card_type in ("gotcha", "decision"):
        sections.append(("问题" if chinese else "Problem", problem))
    error = _error_line(transcript.session, opener, units[0].turn)
    if error and card_type == "gotcha":
        sections.append(("报错" if chinese else "Error", f"`{error}`"))
    if card_type == "gotcha":
        fix = _following(transcript, units, FIX_CUES)
        if fix:
            sections.append(("修复" if chinese else "Fix", fix))
    if card_type == "decision":
        reason = _following(transcript, units, REASON_CUES, same_turn_only=True)
        if reason:
            sections.append(("理由" if chinese else "Why", reason))
        options = _options_before(transcript, units[0])
        if options:
            sections.append(("备选" if chinese else "Options considered", options))
    return sections


def _render(sections: list[tuple[str, str]], body: str, card_type: str, chinese: bool) -> str:
    """Problem and error first, then what the card says, then fix, reason or options."""
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
        if index == first_user or tx.has_cue(text, GOTCHA_HINTS + GOTCHA_CUES + PROBLEM_CUES):
            sentences = tx.split_sentences(text)
            return tx.shorten(_join(sentences[:2]), 260) if sentences else ""
    return ""


def _error_line(session: Session, opener: int | None, last: int) -> str:
    """The most telling error line in tool output (or a backticked error the user pasted) before the card."""
    start = opener if opener is not None else 0
    lines: list[str] = []
    for turn in session.turns[start:last + 1]:
        if turn.role == "user":
            lines.extend(tx.INLINE_CODE.findall(turn.content))
        elif turn.role == "tool":
            lines.extend(_strip_log_prefix(line.strip()) for line in turn.content.splitlines())
    score, _, line = max(((_error_score(line), -position, line) for position, line in enumerate(lines)),
                         default=(0, 0, ""))
    return tx.shorten(re.sub(r"\s{2,}", " ", line), 160) if score > 0 else ""


def _error_score(line: str) -> int:
    """Error lines worth quoting have several words and, best, a specific failure phrase."""
    if not ERROR_LINE.search(line) or len(re.findall(r"[A-Za-z\u3400-\u9fff]+", line)) < 4:
        return 0
    return 1 + len(ERROR_LINE.findall(line)) + (2 if STRONG_ERROR.search(line) else 0)


def _strip_log_prefix(line: str) -> str:
    """Drop timestamps and host/process prefixes so the quote starts at the message."""
    line = re.sub(r"^\[?[\w\s:/.-]*\d{2}:\d{2}:\d{2}[.\d]*\]?\s*", "", line)
    return re.sub(r"^[\w.-]+ [\w.-]+\[\d+\]:\s*", "", line)


def _following(transcript: _Transcript, units: list[_Unit], cues: tuple[str, ...],
               same_turn_only: bool = False) -> str:
    """The first unit after ``units`` (up to the next user turn) that carries one of ``cues``."""
    last = units[-1]
    turns = transcript.session.turns
    for index in range(last.turn, min(len(turns), last.turn + 4)):
        if index > last.turn and (same_turn_only or turns[index].role == "user"):
            break
        for unit in transcript.units.get(index, []):
            if index == last.turn and unit.position <= last.position:
                continue
            if tx.has_cue(tx.strip_markdown(unit.lead if unit.items else unit.text), cues):
                return _body([unit])[:500]
    return ""


def _options_before(transcript: _Transcript, first: _Unit) -> str:
    """The options weighed just before a decision in the same message, one line each."""
    items = [unit for unit in transcript.units[first.turn]
             if unit.position < first.position and unit.lead and tx.has_cue(unit.lead, OPTION_LEADS)]
    lines = [f"- {tx.shorten(tx.strip_markdown(unit.text), 110)}" for unit in items]
    return "\n" + "\n".join(lines) if lines else ""


def _evidence_turns(transcript: _Transcript, units: list[_Unit], opener: int | None) -> list[int]:
    """Tool turns with errors between the question and the card: the evidence the card relies on."""
    if opener is None:
        return []
    turns = transcript.session.turns
    return [index for index in range(opener + 1, units[-1].turn)
            if turns[index].role == "tool" and ERROR_LINE.search(turns[index].content)][:3]


def _agent_importance(units: list[_Unit], card_type: str, content: str) -> float:
    """Labelled, structured, concrete cards matter more."""
    score = TYPE_IMPORTANCE[card_type]
    if any(LABEL.match(unit.lead or unit.text) for unit in units):
        score += 0.15
    if any(unit.items for unit in units):
        score += 0.08
    if "`" in content:
        score += 0.05
    if len(content) > 400:
        score += 0.05
    return score


# ================================================================ agent sessions: titles


def _agent_title(units: list[_Unit], card_type: str, tags: list[str]) -> str:
    """The first specific phrase among lead, item heads and first sentences; else the best one, named by a tag."""
    options = [option for unit in units[:2] for option in _title_options(unit, card_type)]
    options = [tx.shorten(option, TITLE_LIMIT) for option in options if tx.title_width(option) >= 12]
    if not options:
        return ""
    good = next((option for option in options if _title_score(option) >= 1), None)
    if good:
        return _capitalise_plain(good)
    best = max(options, key=lambda option: (_title_score(option), tx.title_width(option)))
    tag = next((tag for tag in tags if tag.lower() not in best.lower()), "")
    return tx.shorten(f"{tag}: {best}", TITLE_LIMIT) if tag else best


def _title_options(unit: _Unit, card_type: str) -> list[str]:
    """Candidate titles in order of preference, as plain text."""
    if not unit.items:
        return [_clean_sentence(sentence) for sentence in tx.split_sentences(_drop_label(unit.text))[:3]]
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


def _capitalise_plain(title: str) -> str:
    """'the JVM heap…' → 'The JVM heap…', 'we'll use X' → 'Use X'; identifiers such as 'docker' stay as written."""
    title = re.sub(r"^(?:we'll|we will|we should|let's)\s+", "", title, flags=re.IGNORECASE)
    first = title.split(" ", 1)[0]
    if first.isalpha() and first.islower() and (first in tx.STOPWORDS or first in ("use", "don't", "never")):
        return title[:1].upper() + title[1:]
    return title


def _title_score(title: str) -> float:
    """Specific titles name things (identifiers, products, real words); anaphora and fragments score low."""
    chinese = tx.is_chinese(title)
    score = 2.0 if tx.identifiers(title) else 0.0
    score += 1 if _named_things(title) else 0
    if chinese:
        score += 1 if tx.chinese_keywords(title, 4) else 0
    else:
        score += 1 if len([w for w in re.findall(r"[A-Za-z]+", title) if tx.is_content_word(w)]) >= 3 else 0
    score -= 3 if ANAPHORA.match(title) else 0
    score -= 2 if tx.title_width(title) < 20 else 0
    return score


def _specific_lead(lead: str) -> str:
    """A list lead that names its subject ("Rules for JVM services on k8s:"), else ''."""
    plain = tx.strip_markdown(_drop_label(lead)).rstrip(":： ")
    if tx.is_chinese(plain):
        return plain if len(tx.chinese_keywords(plain, 4)) >= 2 else ""
    return plain if tx.identifiers(plain) or _named_things(plain) else ""


def _bold_head(item: str) -> str:
    """'**Vectors: LanceDB.** Embedded, …' → 'Vectors: LanceDB.' (short bold openings only)."""
    bold = BOLD_HEAD.match(item)
    return tx.strip_markdown(bold.group(1)) if bold and tx.title_width(bold.group(1)) <= 36 else ""


def _named_things(sentence: str) -> list[str]:
    """Capitalised words that are not sentence starts, pronouns or common exclamations."""
    return [word for word in tx.CAPITALISED.findall(sentence)
            if word.lower() not in tx.STOPWORDS and word.lower() not in tx.FILLER_WORDS]


# ================================================================ conversations between people


@dataclass
class _Fact:
    """A sentence that says something about its speaker."""

    turn: int
    speaker: str
    sentence: str
    score: float
    asked_by: int | None
    """The turn before, when it asked a question this sentence may answer."""


def _conversation_candidates(session: Session) -> list[_Candidate]:
    today = session.started_at.date()
    names = _participants(session)
    threads = _fact_threads(_facts(session, names), session)
    return [_fact_card(thread, names, session, today) for thread in threads]


def _participants(session: Session) -> list[str]:
    names: list[str] = []
    for turn in session.turns:
        name = _speaker_of(turn) or _role_name(turn)
        if name not in names:
            names.append(name)
    return names


def _role_name(turn: Turn) -> str:
    return {"user": "The user", "assistant": "The assistant"}.get(turn.role, turn.role.title())


def _facts(session: Session, names: list[str]) -> list[_Fact]:
    """First-person statements that say something about the speaker's life."""
    facts = []
    for index, turn in enumerate(session.turns):
        if turn.role not in ("user", "assistant"):
            continue
        speaker = _speaker_of(turn) or _role_name(turn)
        asked_by = index - 1 if index and _asks(session.turns[index - 1].content) else None
        for sentence in tx.split_sentences(IMAGE.sub("", turn.content)):
            sentence = _without_interjection(sentence, names)
            score = _fact_score(sentence)
            if score >= DETAIL_THRESHOLD:
                facts.append(_Fact(index, speaker, sentence, score, asked_by))
    return facts


def _without_interjection(sentence: str, names: list[str]) -> str:
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
    score += 1.0 if tx.has_cue(lower, EVENT_CUES) else 0.0
    score += 0.8 if tx.has_cue(lower, PLAN_CUES) else 0.0
    score += 0.6 if tx.has_cue(lower, PREFERENCE_CUES) else 0.0
    score += 0.6 if tx.has_cue(lower, PERSONAL_CUES) else 0.0
    score += 0.5 if tx.has_cue(lower, STATE_CUES) else 0.0
    score += 1.0 if tx.RELATIVE_DATE.search(sentence) else 0.0
    score += min(1.0, 0.5 * len(_named_things(sentence)))
    score += 0.3 if re.search(r"\d", sentence) else 0.0
    score -= 1.5 if tx.has_cue(lower, SMALL_TALK) and len(words) < 12 else 0.0
    score -= 0.8 if SECOND_PERSON.search(sentence) else 0.0
    score -= 0.5 if FACT_ANAPHORA.match(sentence) else 0.0
    return score


def _fact_threads(facts: list[_Fact], session: Session) -> list[list[_Fact]]:
    """A speaker's facts about one thing, up to four: same turn, a follow-up answer, or the same topic later.

    Only a clear fact starts a card; a weaker sentence may only add detail to one.
    """
    threads: list[list[_Fact]] = []
    for fact in facts:
        thread = _thread_for(fact, threads, session)
        if thread is None and fact.score >= FACT_THRESHOLD:
            threads.append([fact])
        elif thread is not None and len(thread) < 4:
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
    """The other person's reply after ``last`` asks about it ("What happened there?", "Did it…?")."""
    reply = IMAGE.sub("", session.turns[last.turn + 1].content)
    questions = " ".join(sentence for sentence in tx.split_sentences(reply) if sentence.endswith("?"))
    if not questions:
        return False
    refers = re.search(r"\b(it|this|there|them|those|these)\b", questions.lower()) is not None
    return refers or bool(tx.content_words(questions) & tx.content_words(last.sentence))


def _fact_card(thread: list[_Fact], names: list[str], session: Session, today: date) -> _Candidate:
    speaker = thread[0].speaker
    listener = next((name for name in names if name != speaker), "")
    statements = " ".join(_capitalise(tx.resolve_dates(_third_person(fact.sentence, speaker), today)[0])
                          for fact in thread)
    said = f"{speaker}, talking with {listener} on {tx.long_date(today)}." if listener else \
        f"{speaker}, on {tx.long_date(today)}."
    card_type = "decision" if any(tx.has_cue(fact.sentence, DECIDED_CUES) for fact in thread) else "concept"
    turns = [fact.turn for fact in thread] + [fact.asked_by for fact in thread if fact.asked_by is not None]
    return _Candidate(
        type=card_type, title=_fact_title(thread, speaker, today),
        content=f"{_question_context(thread[0], session, names)}{statements}\n\n({said})",
        tags=_fact_tags(speaker, thread), importance=min(0.9, 0.3 + 0.1 * sum(fact.score for fact in thread)),
        turns=turns, order=(thread[0].turn, 0), words=tx.content_words(" ".join(f.sentence for f in thread)),
        body=statements,
    )


def _question_context(first: _Fact, session: Session, names: list[str]) -> str:
    """The question a fact answers, when the fact leans on it ("It was…", "I started a few days ago")."""
    if first.asked_by is None or not (ANAPHORA.match(first.sentence) or len(first.sentence) < 60):
        return ""
    asking = session.turns[first.asked_by]
    questions = [q for q in tx.split_sentences(IMAGE.sub("", asking.content)) if q.endswith("?")]
    if not questions:
        return ""
    return f"{_speaker_of(asking) or _role_name(asking)} asked: “{_without_interjection(questions[-1], names)}” "


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fact_title(thread: list[_Fact], speaker: str, today: date) -> str:
    """The most telling statement, shortened, with a relative date moved to the end as an absolute one."""
    best = max(thread, key=lambda fact: fact.score - (1.5 if ANAPHORA.match(fact.sentence) else 0))
    statement = _capitalise(_third_person(_best_clause(best.sentence), speaker))
    _, dates = tx.resolve_dates(statement, today)
    suffix = f" ({tx.compact_date(dates[0])})" if dates else ""
    limit = max(48, TITLE_LIMIT - len(suffix))
    core = tx.shorten(_capitalise(tx.strip_dates(statement)), limit)
    if speaker not in core:
        core = tx.shorten(f"{speaker}: {core}", limit)
    return core + suffix


def _best_clause(sentence: str) -> str:
    """'Life's been tough - my son hurt his ankle' → 'my son hurt his ankle': the clause that says most."""
    clauses = [clause for clause in re.split(r"\s[-–—]\s|;\s", sentence) if len(clause.split()) >= 4]
    scored = [(_fact_score(clause), -index, clause) for index, clause in enumerate(clauses)]
    best = max(scored, default=(0.0, 0, sentence))
    return best[2] if best[0] >= FACT_THRESHOLD else sentence


def _fact_tags(speaker: str, thread: list[_Fact]) -> list[str]:
    text = tx.strip_dates(" ".join(fact.sentence for fact in thread))
    return tx.unique([speaker, *tx.english_keywords(text, 6)])[:6]


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
GERUND_SUBJECT = re.compile(r"^\w+\s+(?:me|us)\b|\b\w+s\s+(?:me|us)\b", re.IGNORECASE)
"""'Got me thinking…', 'Thinking about it pumps me up': the subject is not the speaker."""
SUBJECTLESS_AUXILIARY = {"gonna": "is ", "going": "is ", "planning": "is ", "thinking": "is ", "working": "is ",
                         "trying": "is ", "heading": "is ", "hoping": "is ", "been": "has ", "gotta": "has "}
ADVERBS = ("really", "also", "just", "still", "always", "usually", "never", "actually", "totally", "definitely",
           "often", "sometimes", "absolutely", "truly", "finally", "recently", "even", "already", "mostly", "ever",
           "first", "probably", "kinda", "sorta", "barely", "hardly", "almost", "personally", "seriously", "only")
UNCHANGED_AFTER_I = frozenset("""
can could will would shall should may might must did didn't can't couldn't won't wouldn't shouldn't was wasn't
had went got made took saw came ran found gave met left felt thought knew told said bought brought taught caught
kept lost won began wrote put set sat stood heard held paid sent spent built drove ate fell flew grew drew swam
sang rode woke wore chose became forgot understood hit cut let quit threw shot slept sold led lent fed fought
dealt meant hung dug stuck struck spoke broke froze stole hid bit shook used been
""".split())
"""Words after "I" that need no third-person -s: modals and past forms."""
IRREGULAR_PRESENT = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "am": "is", "haven't": "hasn't"}


def _third_person(sentence: str, name: str) -> str:
    """'I went to my class' → 'Caroline went to Caroline's class': a fact that stands alone."""
    text = IMAGE.sub("", sentence).strip()
    subjectless = SUBJECTLESS_START.match(text)
    if subjectless and not GERUND_SUBJECT.search(text):
        text = f"{name} {SUBJECTLESS_AUXILIARY.get(subjectless.group(1).lower(), '')}{text[0].lower()}{text[1:]}"
    for pattern, replacement in THIRD_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=name), text)
    text = re.sub(r"\bI\b((?:\s+(?:" + "|".join(ADVERBS) + r"))*)\s+([a-z']+)",
                  lambda match: f"{name}{match.group(1)} {_conjugate(match.group(2))}", text)
    return re.sub(r"\bI\b", name, text)


def _conjugate(verb: str) -> str:
    """The third-person form of a present-tense verb; past forms, modals and -ed words stay."""
    if verb in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[verb]
    if verb in UNCHANGED_AFTER_I or (verb.endswith("ed") and not verb.endswith("eed")) or "'" in verb:
        return verb
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
    contained = tx.overlap(first, second) >= 0.7 and min(len(first), len(second)) >= 4
    return contained or len(first & second) / union >= 0.5


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
                links.append(LinkDraft(card.title, gotcha.title, "CAUSED_BY",
                                       f"the {card.type} answers this problem (“{cue}”)"))
                break
        if card.type == "gotcha":
            cue = _cue_about(gotcha.body, CAUSE_CUES, card.words)
            if cue:
                links.append(LinkDraft(gotcha.title, card.title, "CAUSES", f"“{cue}” leads to this problem"))
                break
    if card.type in ("pattern", "decision"):
        concept = next((other for other in reversed(earlier)
                        if other.type == "concept" and _mentions(card.body, other)), None)
        if concept:
            links.append(LinkDraft(card.title, concept.title, "DEPENDS_ON", "relies on what that card explains"))
    return links


def _cue_about(content: str, cues: tuple[str, ...], topic: set[str]) -> str:
    """The cue of the first sentence that has one and shares two words with ``topic`` (a CJK pair counts half)."""
    for sentence in tx.split_sentences(tx.strip_markdown(content)):
        found = tx.find_cues(sentence, cues)
        shared = tx.content_words(sentence) & topic
        if found and sum(0.5 if tx.CJK.search(word) else 1 for word in shared) >= 2:
            return found[0]
    return ""


def _mentions(content: str, concept: _Candidate) -> bool:
    """The content names the concept's subject: its first tag, or most of its title's words."""
    title_words = tx.content_words(concept.title)
    shared = tx.content_words(content) & title_words
    first_tag = concept.tags[0].lower() if concept.tags else ""
    return len(shared) >= max(2, len(title_words) // 2) or (len(first_tag) > 3 and first_tag in content.lower())
