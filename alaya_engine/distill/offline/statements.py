"""Knowledge people state in plain words, in any session: a cause, a fix, a decision, a rule, a plan, a preference.

The agent reader types the assistant's paragraphs and the conversation reader the speakers' facts about
themselves; neither reads what a user states in an agent session ("let's do it: pool_size=20 …", "记住：所有 HTTP
调用都要设置 Timeout"), nor the proposal a short "ok, 3 秒" accepts, nor a conclusion said in ordinary words
("turns out…", "原来是因为…"). This reader goes through every user and assistant turn, sentence by sentence, and
makes one card per statement that carries a cue of its kind and something specific (a name, a number, an
identifier), worded in the session's language. The distiller drops those that repeat a card the other readers
made.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from ...foundations.domain import Session, Turn
from .candidate import TITLE_LIMIT, Candidate
from .conversation.card import said_when
from .conversation.third_person import said_to
from .cues import APPROVALS, BOILERPLATE, NARRATION_CUES, PROBLEM_CUES, SMALL_TALK, ZH_SMALL_TALK
from .text.chinese import is_chinese, words_of
from .text.cue_match import cue_pattern, has_cue
from .text.dates import resolve_dates
from .text.markdown import strip_markdown
from .text.overlap import content_words, overlap_of
from .text.sentences import join_sentences, split_sentences
from .text.tags import identifiers, keywords
from .text.titles import shorten, title_width
from .text.words import ZH_STOPWORDS, unique
from .turns import asks, speaker_name, speaker_of

KINDS = {
    "cause": ("re:\\b(?:the|a|root|real|actual|likely|main) (?:cause|reason)\\b", "caused by", "because of",
              "turns out", "turned out", "that's why", "which is why", "due to", "the culprit", "that's it then",
              "that explains", "explains why", "was triggered by", "comes from", "came from",
              "原来是", "原因是", "原因在于", "根因", "是因为", "由于", "导致", "罪魁祸首", "问题出在", "怪不得",
              "难怪"),
    "fix": ("the fix", "fixed by", "fixed it", "fix was", "fix is", "the solution", "solved by", "resolved by",
            "workaround", "mitigation", "to fix", "修复", "解决办法", "解决方法", "解决了", "修好", "改成", "修法"),
    "decision": ("decided", "decision", "let's go with", "let's do it", "let's use", "we'll go with", "we'll use",
                 "going with", "go with", "settled on", "switch to", "switching to", "instead of", "rather than",
                 "i'll take", "we'll take", "决定", "就用", "改用", "定了", "就这么办", "就这么定", "就这样", "选了",
                 "那就", "换成", "采用"),
    "rule": ("from now on", "going forward", "remember", "make sure", "must", "rule", "policy", "don't ever",
             "do not ever", "every time", "whenever", "从现在起", "从今以后", "以后都", "以后要", "记住", "一律",
             "必须", "千万", "不要再", "规定", "每次", "务必"),
    "plan": ("booked", "planning to", "plan to", "plan is", "scheduled", "we'll", "i'll", "going to", "next week",
             "tomorrow", "appointment", "deadline", "计划", "打算", "准备", "约了", "订了", "安排", "预约", "下周",
             "明天", "截止"),
    "preference": ("i prefer", "i'd rather", "i like", "i love", "i don't like", "i hate", "i can't stand",
                   "i'm allergic", "favourite", "favorite", "我喜欢", "我不喜欢", "我更喜欢", "我讨厌", "偏好", "过敏",
                   "我不吃", "我爱"),
}
"""Cue phrases per kind, in English and Chinese; the first kind that matches a sentence names it."""
USER_RULES = (r"re:\balways\b", r"re:\bnever\b", "以后", "再也不")
"""Rules only when a user says them ("no flights before 8am, ever"): an assistant's "never" explains, it sets
nothing."""
NOT_KNOWLEDGE = ("nothing to fix", "no fix needed", "just wanted to say", "just saying", "no rush", "没什么要修",
                 "只是想说")
CARD_TYPE = {"cause": "gotcha", "fix": "pattern", "decision": "decision", "rule": "pattern", "plan": "concept",
             "preference": "concept", "fact": "concept"}
LABELS = {"cause": ("Cause", "原因"), "fix": ("Fix", "修复"), "decision": ("Decision", "决定"),
          "rule": ("Rule", "规则"), "plan": ("Plan", "计划"), "preference": ("Preference", "偏好"),
          "fact": ("Fact", "事实")}
IMPORTANCE = {"cause": 0.66, "fix": 0.64, "decision": 0.64, "rule": 0.64, "plan": 0.5, "preference": 0.5,
              "fact": 0.46}
NUMBER = re.compile(r"\d")
POINTS_BACK = re.compile(r"这个|这样|这些|那个|\b(?:this|that|these|it)\b", re.IGNORECASE)
"""A sentence that leans on the one before it."""
LIST_NUMBER = re.compile(r"\s+\d{1,2}[.)]$")
NAME = re.compile(r"(?<![.!?]\s)\b[A-Z][a-z]+")
SPECIFIC = re.compile(r"[\w./:-]*\d[\w./:-]*|\b[A-Z][\w-]*[A-Z0-9_-][\w-]*|\b\w+_\w+|\b[A-Z][a-z]+")
ZH_APPROVALS = ("好", "行", "可以", "同意", "就这么办", "就这样", "没问题", "按你说的", "听你的")
PROPOSAL_CUES = ("i'd", "i would", "i suggest", "i recommend", "we could", "you could", "let's", "how about",
                 "proposal", "propose", "the plan", "recommend", "should be", "would be", "makes sense", "better to",
                 "建议", "我们可以", "你可以", "方案", "不如", "可以考虑", "合适", "最好", "应该")
"""An assistant sentence that puts something forward for the user to accept."""
PROBLEM_WORDS = PROBLEM_CUES + ("fail", "fails", "failing", "failed", "error", "errors", "flaky", "wrong", "失败",
                               "报错", "出错", "不对")
"""A user message that reports something going wrong."""
CONCLUSIONS = ("that's it", "found it", "there it is", "that's the problem", "mystery solved", "confirmed",
               "原来如此", "找到了", "就是它", "破案了", "问题找到了", "确认了", "对上了", "情况清楚了")
"""What opens a finding: in a short sentence of its own it types the next one; opening a sentence, that one."""


@dataclass
class Statement:
    turn: int
    kind: str
    sentences: list[str]
    accepted: list[str]
    """The assistant's proposal this statement accepts (a decision said as "ok, do it")."""
    proposal_turn: int | None = None
    problem: list[str] = field(default_factory=list)
    """What the user reported, for a cause or a fix."""
    problem_turn: int | None = None
    reply: list[str] = field(default_factory=list)
    """What the assistant's answer adds to a user's statement."""
    reply_turn: int | None = None


def stated_candidates(session: Session, cards: list[Candidate]) -> list[Candidate]:
    """Cards for what was stated and ``cards`` (the other readers') do not already say. Conversations whose
    turns carry speaker names (people talking, a companion app's chats) are left to the conversation reader,
    which states each fact in the third person already: reading them here too made cards that compete with their
    raw turns and cost Chinese questions over English chats 0.033 of recall (docs/benchmarks.md)."""
    if any(speaker_of(turn) for turn in session.turns):
        return []
    today = session.started_at.date()
    chinese = is_chinese(" ".join(turn.content for turn in session.turns if turn.role in ("user", "assistant")))
    stated = (_card(_unsaid(statement, cards), session, today, chinese) for statement in _statements(session))
    titles = {card.title.lower() for card in cards}
    kept = []
    for candidate in stated:
        if _said_already(candidate, cards + kept):
            continue
        if candidate.title.lower() in titles:  # it says more than the card of that title: name it by what else
            others = (shorten(sentence.strip(" ：:"), TITLE_LIMIT) for sentence in split_sentences(candidate.body))
            candidate.title = next((title for title in others if title.lower() not in titles), "")
        if candidate.title:
            titles.add(candidate.title.lower())
            kept.append(candidate)
    return kept


def _unsaid(statement: Statement, cards: list[Candidate]) -> Statement:
    """The statement without the problem a card of the same turn already states (the problem is stated once; an
    assistant's addition stays: the card that holds both sides replaces the one that holds only the answer)."""
    def known(index: int | None, sentences: list[str]) -> bool:
        words = content_words(" ".join(sentences))
        return any(index in card.turns and overlap_of(words, content_words(card.content)) >= 0.6 for card in cards)

    if known(statement.problem_turn, statement.problem):
        statement.problem = []
    return statement


def _said_already(stated: Candidate, cards: list[Candidate]) -> bool:
    """A card from the same turn already says most of it, and every name and number it says."""
    needed = specifics(stated.body)
    return any(set(stated.turns) & set(card.turns) and overlap_of(stated.words, card.words) >= 0.6
               and needed <= specifics(card.content) for card in cards)


def _statements(session: Session) -> list[Statement]:
    found: list[Statement] = []
    turns = session.turns
    for index, turn in enumerate(turns):
        if turn.role not in ("user", "assistant") or not turn.content.strip():
            continue
        sentences = [sentence for sentence in _sentences(turn) if not _noise(sentence)]
        if turn.role == "user" and _approves(turn.content):
            proposal_turn = _previous_assistant(turns, index)
            proposal = _proposal(turns[proposal_turn]) if proposal_turn is not None else []
            if proposal:  # the whole message is the decision: what it accepts, and what it adds or changes
                said = [sentence for sentence in sentences if _specific(sentence) or NUMBER.search(sentence)]
                found.append(Statement(index, "decision", said, proposal, proposal_turn))
                continue
        current: Statement | None = None
        carried = None
        for sentence in sentences:
            kind = _kind(sentence, turn) or carried
            carried = _conclusion(sentence)
            if kind is None:
                current = None
            elif current is not None and kind in (current.kind, "fact"):
                current.sentences.append(sentence)  # a plain sentence goes on with the statement before it
            elif current is not None and current.kind == "fact" and POINTS_BACK.search(sentence):
                current.sentences.append(sentence)  # "原来是因为这个…", "that's why…": what it points to is the
                current.kind = kind                 # substance, and the pointing sentence says what kind it is
            else:
                current = Statement(index, kind, [sentence], [])
                found.append(current)
    return _with_problems(found, turns)


def _sentences(turn: Turn) -> list[str]:
    """The turn's sentences as plain text, without the number of a list item that follows them."""
    return [LIST_NUMBER.sub("", sentence) for sentence in split_sentences(strip_markdown(turn.content))]


def _conclusion(sentence: str) -> str | None:
    """A short sentence that announces what follows ("That's it then.", "原来如此："): the kind it gives the
    next sentence, which says the substance."""
    if _specific(sentence):
        return None
    kind = _stated_kind(sentence)
    return kind if kind in ("cause", "fix") else ("cause" if has_cue(sentence, CONCLUSIONS) else None)


def _with_problems(statements: list[Statement], turns: list[Turn]) -> list[Statement]:
    """Knowledge is often said across an exchange: a cause or fix the assistant states carries what the user
    reported before it (symptom, cause and fix on one card), and what a user states carries the specifics the
    assistant's reply adds (the appointment, then the dentist's name). A user turn taken into another card makes
    no fact card of its own."""
    absorbed: set[int] = set()
    for statement in statements:
        if turns[statement.turn].role == "assistant" and statement.kind in ("cause", "fix"):
            opener = _problem_turn(turns, statement.turn, content_words(" ".join(statement.sentences)))
            if opener is not None and opener not in absorbed:  # the problem is stated once, on the first card
                statement.problem = _specific_sentences(turns[opener], 2)
                statement.problem_turn = opener
                absorbed.add(opener)
        elif statement.accepted and statement.proposal_turn:
            asked = statement.proposal_turn - 1  # what the user said that the accepted proposal answers
            if turns[asked].role == "user" and not _approves(turns[asked].content) and asked not in absorbed:
                statement.problem = _specific_sentences(turns[asked], 2)
                statement.problem_turn = asked if statement.problem else None
                absorbed.add(asked)
        elif turns[statement.turn].role == "user" and not statement.accepted:
            reply = _reply_turn(turns, statement.turn)
            if reply is not None:
                words = content_words(" ".join(statement.sentences))
                statement.reply = [s for s in _specific_sentences(turns[reply], 8)
                                   if content_words(s) & words or _stated_kind(s)][:3]
                statement.reply_turn = reply if statement.reply else None
    return [s for s in statements if not (s.kind == "fact" and s.turn in absorbed)]


def _specific_sentences(turn: Turn, limit: int) -> list[str]:
    return [s for s in _sentences(turn) if _specific(s) and not _noise(s)][:limit]


def _problem_turn(turns: list[Turn], index: int, words: set[str]) -> int | None:
    """The user turn a cause or fix answers: it reports a problem, asks, or speaks of the same things."""
    for earlier in range(index - 1, -1, -1):
        turn = turns[earlier]
        if turn.role == "user" and not _approves(turn.content):
            text = strip_markdown(turn.content)
            related = asks(text) or has_cue(text, PROBLEM_WORDS) or len(content_words(text) & words) >= 2
            return earlier if related else None
    return None


def _reply_turn(turns: list[Turn], index: int) -> int | None:
    after = index + 1
    return after if after < len(turns) and turns[after].role == "assistant" and turns[after].content.strip() else None


def _stated_kind(sentence: str, role: str = "assistant") -> str | None:
    kind = next((name for name, cues in KINDS.items() if has_cue(sentence, cues)), None)
    return kind or ("rule" if role == "user" and has_cue(sentence, USER_RULES) else None)


def _kind(sentence: str, turn: Turn) -> str | None:
    """The sentence's kind when it states one; a user's specific statement without a cue is a fact (users tell
    their agents how things are: "orders-api goes through pg-main-02:6432")."""
    width = title_width(sentence)
    if sentence.rstrip().endswith((":", "：")):  # it introduces what follows
        return None
    kind = _stated_kind(sentence, turn.role) or ("cause" if cue_pattern(CONCLUSIONS).match(sentence) else None)
    if kind is not None:
        return kind if width >= 12 and (_specific(sentence) or width >= 30) else None
    if turn.role == "user" and (width >= 30 or NUMBER.search(sentence)) and _specific(sentence):
        return "fact"
    return None


def specifics(text: str) -> set[str]:
    """The numbers, identifiers and names a text says: what a card must keep to keep its point (a capital that
    only opens a sentence names nothing)."""
    found = set()
    for sentence in split_sentences(strip_markdown(text)):
        first = re.match(r"\W*(\w+)", sentence)
        opening = first.group(1) if first and first.group(1).istitle() else None
        found.update(token.lower().strip(".,") for token in SPECIFIC.findall(sentence) if token != opening)
    return found


def _specific(sentence: str) -> bool:
    """A name, an identifier or a number, in something long enough to stand alone."""
    if title_width(sentence) < 12:
        return False
    return bool(NUMBER.search(sentence) or identifiers(sentence) or NAME.search(sentence[1:])
                or (is_chinese(sentence) and title_width(sentence) >= 24))


def _noise(sentence: str) -> bool:
    plain = sentence.strip()
    if plain.endswith(("?", "？")) or BOILERPLATE.search(plain) or has_cue(plain, NOT_KNOWLEDGE):
        return True
    if cue_pattern(NARRATION_CUES).match(plain) and not has_cue(plain, KINDS["decision"]):
        return True
    width = title_width(plain)
    return (has_cue(plain, SMALL_TALK) and not identifiers(plain) and width < 80) or \
        (has_cue(plain, ZH_SMALL_TALK) and width < 40)


def _approves(text: str) -> bool:
    """The message opens by accepting what was proposed ("let's do it: …", "ok, 3 秒", "行，就这么办")."""
    opening = strip_markdown(text).strip()[:24].lower()
    return has_cue(opening, APPROVALS + ("let's do it", "let's do that", "do it", "sounds good")) or \
        any(opening.startswith(word) for word in ZH_APPROVALS)


def _previous_assistant(turns: list[Turn], index: int) -> int | None:
    return next((i for i in range(index - 1, max(-1, index - 4), -1) if turns[i].role == "assistant"), None)


def _proposal(turn: Turn) -> list[str]:
    """What the assistant put forward: its proposing sentences, and the points a proposal ending in a colon lists."""
    sentences = [s for s in _sentences(turn) if not _noise(s)]
    chosen: list[str] = []
    for position, sentence in enumerate(sentences):
        if has_cue(sentence, KINDS["cause"]):  # the finding that led to the proposal is not what was accepted
            continue
        if has_cue(sentence, PROPOSAL_CUES + KINDS["decision"] + KINDS["fix"]) and _specific(sentence):
            listed = sentences[position + 1:position + 4] if sentence.endswith((":", "：")) else []
            chosen.extend(s for s in [sentence, *listed] if s not in chosen)
    return chosen[:5]


def _card(statement: Statement, session: Session, today: date, chinese: bool) -> Candidate:
    """The statement in the third person (who said it is named, as the other readers name people), with the
    problem it answers (unless another card of the session states that problem), what the assistant added or
    proposed, and who said it when."""
    turns = session.turns
    voice = _Voice(session, today)
    label = LABELS[statement.kind][1 if chinese else 0]
    said = voice.say(statement.turn, statement.sentences)
    lines = []
    problem = voice.say(statement.problem_turn, statement.problem)
    if problem:
        heading = ("背景", "Context") if statement.kind == "decision" else ("问题", "Problem")
        lines.append(f"**{heading[0] if chinese else heading[1]}:** {problem}")
    lines.append(f"**{label}:** {said}" if said else "")
    if statement.reply:
        added = voice.say(statement.reply_turn, statement.reply)
        lines.append(f"**{'助手补充' if chinese else 'The assistant added'}:** {added}")
    if statement.accepted:
        proposed = voice.say(statement.proposal_turn, statement.accepted)
        lines.append(f"**{'助手的提议' if chinese else 'Proposed by the assistant'}:** {proposed}")
    lines.append(voice.attribution(turns[statement.turn], chinese))
    title_source = (said if said and title_width(statement.sentences[0]) >= 24
                    else voice.say(statement.proposal_turn, statement.accepted[:1]) or said)
    title = shorten(split_sentences(title_source)[0].strip(" ：:"), TITLE_LIMIT)
    body = " ".join(statement.sentences + statement.accepted + statement.reply)
    card_turns = [statement.turn] + [turn for turn in (statement.proposal_turn, statement.problem_turn,
                                                       statement.reply_turn) if turn is not None]
    tags = keywords(body, 6) or identifiers(body)[:6] or _plain_words(body)
    return Candidate(type=CARD_TYPE[statement.kind], title=title, content="\n\n".join(line for line in lines if line),
                     tags=tags, importance=IMPORTANCE[statement.kind] + (0.05 if statement.accepted else 0.0),
                     turns=card_turns, order=(statement.turn, 50), words=content_words(body), body=body)


def _plain_words(text: str) -> list[str]:
    """Tags when the keyword readers find none (a short Chinese sentence): its longer words."""
    return unique(word for word in words_of(text) if len(word) >= 2 and word not in ZH_STOPWORDS)[:4]


class _Voice:
    """Sentences of a turn as knowledge that stands alone: 'I decided…' → 'The user decided…', '我喜欢…' →
    '李雷喜欢…', with relative dates made absolute."""

    def __init__(self, session: Session, today: date):
        self.turns = session.turns
        self.today = today

    def say(self, index: int | None, sentences: list[str]) -> str:
        if index is None or not sentences:
            return ""
        turn = self.turns[index]
        speaker, listener = speaker_name(turn), self._listener(turn)
        return join_sentences([resolve_dates(said_to(sentence, speaker, listener), self.today)[0]
                               for sentence in sentences])

    def attribution(self, turn: Turn, chinese: bool) -> str:
        """Who said it and when, worded as every card of the offline distiller words it."""
        return said_when(speaker_name(turn), self._listener(turn), self.today, chinese)

    def _listener(self, turn: Turn) -> str:
        other = next((t for t in self.turns if t.role in ("user", "assistant") and t.role != turn.role
                      and speaker_name(t) != speaker_name(turn)), None)
        return speaker_name(other) if other is not None else ""
