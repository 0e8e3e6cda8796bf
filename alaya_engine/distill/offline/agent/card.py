"""One card from a group of typed units: body, context sections, tags, title and importance."""

from __future__ import annotations

from ..candidate import Candidate
from ..cues import FIX_CUES, LABEL, OPTION_LEADS, REASON_CUES
from ..text.chinese import written_in_chinese
from ..text.cue_match import has_cue
from ..text.dates import resolve_dates
from ..text.label_echo import without_echo
from ..text.markdown import LIST_MARK, strip_markdown
from ..text.overlap import content_words
from ..text.sentences import join_sentences, split_sentences
from ..text.tags import keywords
from ..text.titles import shorten
from ..turns import asks
from .evidence import error_line, evidence_turns, problem_asked
from .titles import agent_title
from .transcript import Transcript, Unit, drop_label

TYPE_IMPORTANCE = {"gotcha": 0.62, "decision": 0.6, "pattern": 0.58, "concept": 0.5}
CONTENT_LIMIT = 1400


def agent_card(transcript: Transcript, units: list[Unit], card_type: str, told: set[str]) -> Candidate | None:
    """One card; ``told`` holds the problems earlier cards of the session already state (each is stated once)."""
    first = units[0]
    opener = transcript.openers[first.turn]
    body = _body(units)
    chinese = written_in_chinese(transcript.chinese, body)
    sections = _sections(transcript, units, card_type, opener, told, chinese)
    content, _ = resolve_dates(_render(sections, body, card_type, chinese), transcript.today)
    tags = keywords(body, 6)
    title = agent_title(units, card_type, tags)
    if not title:
        return None
    turns = [first.turn] + ([opener] if opener is not None else []) + evidence_turns(transcript, units, opener)
    return Candidate(type=card_type, title=title, content=content[:CONTENT_LIMIT].rstrip(), tags=tags,
                     importance=_agent_importance(units, card_type, content), turns=turns,
                     order=(first.turn, first.position), words=content_words(body), body=body, chinese=chinese)


def _body(units: list[Unit]) -> str:
    """The Markdown the units say, with their list items and at most one short code block."""
    parts = []
    for unit in units:
        if unit.items:
            numbered = [f"{n}. {LIST_MARK.sub('', item)}" for n, item in enumerate(unit.items, start=1)]
            lead = drop_label(unit.lead)
            parts.append("\n".join(([lead] if len(lead) > 3 else []) + numbered))
        else:
            parts.append(LIST_MARK.sub("", drop_label(unit.text)).strip())
    code = next((block for unit in units for block in unit.code if block.count("\n") <= 14), "")
    joined = "\n".join(parts) if any(unit.items for unit in units) else join_sentences(parts)
    return joined + (f"\n\n{code}" if code else "")


def _sections(transcript: Transcript, units: list[Unit], card_type: str, opener: int | None,
              told: set[str], chinese: bool) -> list[tuple[str, str]]:
    """Context a card needs to stand alone: the problem asked, the error seen, the fix, reason or options.

    The problem goes on the first card that needs it only: copied onto every card of an incident, it made
    them all open with the same paragraph (and match the same searches); the cards are linked in order.
    """
    sections = []
    problem = problem_asked(transcript.session, opener)
    if problem and card_type in ("gotcha", "decision") and problem not in told:
        told.add(problem)
        sections.append(("问题" if chinese else "Problem", problem))
    question = _question_answered(transcript, units[0], opener)
    if question and card_type == "pattern" and question not in told:
        told.add(question)
        sections.append(("问题" if chinese else "Problem", question))
    error = error_line(transcript.session, opener, units[0].turn)
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


def _question_answered(transcript: Transcript, first: Unit, opener: int | None) -> str:
    """The user's message the card answers right after it, when it asks (a how or a whether: "so restarting is
    safe after all?"): a how-to is the answer to that question, and reads as one only beside it. Not the session's
    opening message: that is the report the session's cause answers (``opener.fold_opener``)."""
    turns = transcript.session.turns
    first_user = next((index for index, turn in enumerate(turns) if turn.role == "user"), None)
    if opener is None or opener != first.turn - 1 or opener == first_user:
        return ""
    text = turns[opener].content
    sentences = split_sentences(text)
    return shorten(join_sentences(sentences[-2:]), 260) if asks(text) and sentences else ""


def _render(sections: list[tuple[str, str]], body: str, card_type: str, chinese: bool) -> str:
    """Problem and error first, then what the card says, then fix, reason or options."""
    labels = {"gotcha": ("原因", "Cause"), "decision": ("决定", "Decision"), "pattern": ("做法", "How"),
              "concept": ("说明", "What")}
    label = labels[card_type][0 if chinese else 1]
    head = [section for section in sections if section[0] in ("问题", "Problem", "报错", "Error")]
    tail = [section for section in sections if section not in head]
    lines = [f"**{name}:** {without_echo(name, text)}" for name, text in head]
    lines.append(f"**{label}:** {without_echo(label, body)}" if "\n" not in body else f"**{label}:**\n{body}")
    lines.extend(f"**{name}:** {without_echo(name, text)}" for name, text in tail)
    return "\n\n".join(lines)


def _following(transcript: Transcript, units: list[Unit], cues: tuple[str, ...],
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
            if has_cue(strip_markdown(unit.lead if unit.items else unit.text), cues):
                return _body([unit])[:500]
    return ""


def _options_before(transcript: Transcript, first: Unit) -> str:
    """The options weighed just before a decision in the same message, one line each."""
    items = [unit for unit in transcript.units[first.turn]
             if unit.position < first.position and unit.lead and has_cue(unit.lead, OPTION_LEADS)]
    lines = [f"- {shorten(strip_markdown(unit.text), 110)}" for unit in items]
    return "\n" + "\n".join(lines) if lines else ""


def _agent_importance(units: list[Unit], card_type: str, content: str) -> float:
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
