"""An agent session read once: its units per assistant turn, who asked what, and the card language."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from ....foundations.domain import Session, Turn
from ..cues import APPROVALS, FIX_CUES, LABEL, NARRATION_CUES, REPORT_CUES
from ..text.cue_match import has_cue
from ..text.markdown import Block, split_blocks, strip_markdown
from ..text.sentences import is_question, join_sentences, split_sentences
from ..text.titles import title_width
from ..turns import asks, speaks_chinese
from .type_cues import lead_type


@dataclass
class Unit:
    """A paragraph, a list item, or a whole list under a typed lead, inside one assistant turn."""

    turn: int
    position: int
    text: str
    lead: str = ""
    items: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)


@dataclass
class Transcript:
    """One session read once: its units per assistant turn, who asked what, and the card language."""

    session: Session
    units: dict[int, list[Unit]]
    openers: list[int | None]
    """For each turn, the user turn that asked what it answers."""
    chinese: bool
    today: date

    @classmethod
    def read(cls, session: Session) -> Transcript:
        units = {index: _units(index, turn.content, bool(turn.tool_calls)) for index, turn in enumerate(session.turns)
                 if turn.role == "assistant" and turn.content.strip()}
        return cls(session, units, _episode_openers(session.turns), speaks_chinese(session),
                   session.started_at.date())


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
    plain = strip_markdown(text).lower()
    return len(plain) < 60 and has_cue(plain, APPROVALS) and not asks(plain)


def _units(turn_index: int, content: str, calls_tools: bool = False) -> list[Unit]:
    """Paragraphs (minus narration), list items, and whole lists whose lead names their type."""
    units: list[Unit] = []
    blocks = split_blocks(content)
    leads = {block.lead for block in blocks if block.kind == "item" and block.lead}
    whole_lists: set[int] = set()
    for previous, block in zip([None, *blocks], blocks):
        if block.kind == "code" and units:
            units[-1].code.append(block.text)
        elif block.kind == "para" and units and _resumes(previous, block.text):
            units[-1].text = f"{units[-1].text} {block.text}"
        elif block.kind == "para" and block.text not in leads:
            text = _substance(block.text, announces_tool_call=calls_tools and block is blocks[-1])
            if text:
                units.append(Unit(turn_index, len(units), text))
        elif block.kind == "item" and block.list_id not in whole_lists:
            if lead_type(block.lead):
                whole_lists.add(block.list_id)
                items = [other.text for other in blocks if other.kind == "item" and other.list_id == block.list_id]
                units.append(Unit(turn_index, len(units), block.lead, lead=block.lead, items=items))
            else:
                units.append(Unit(turn_index, len(units), block.text, lead=block.lead))
    return units


def _resumes(previous: Block | None, paragraph: str) -> bool:
    """A paragraph opening in lower case right after a code block goes on with the sentence the code interrupted
    ("…run the jobs explicitly: ```…``` and in the webhook test, call `run_worker()` first"): half of what it says."""
    return previous is not None and previous.kind == "code" and paragraph[:1].islower() and paragraph[:1].isascii()


def _substance(paragraph: str, announces_tool_call: bool = False) -> str:
    """The paragraph without narration ("Let me check…"), questions or a trailing "Checking:" line.

    The last paragraph of a message that then runs a tool ends with the plan for that call ("先看…再看…："),
    however long: a plan, not knowledge, unless it names a fix.
    """
    sentences = split_sentences(paragraph)
    while sentences and _is_filler(sentences[0]):
        sentences.pop(0)
    while sentences and (_is_filler(sentences[-1]) or _introduces_output(sentences[-1], announces_tool_call)):
        sentences.pop()
    return join_sentences(sentences)


def _introduces_output(sentence: str, before_tool_call: bool) -> bool:
    """A closing line that only announces a command or its output ("Checking current limits:")."""
    plain = strip_markdown(sentence)
    if not plain.endswith((":", "：")):
        return False
    return title_width(plain) < 40 or (before_tool_call and not has_cue(plain, FIX_CUES)
                                       and not LABEL.match(sentence))


def _is_filler(sentence: str) -> bool:
    """Questions, narration of what the agent is doing, and short progress reports."""
    plain = strip_markdown(sentence)
    if is_question(plain) or has_cue(plain[:16], NARRATION_CUES) or title_width(plain) < 8:
        return True
    return title_width(plain) < 60 and has_cue(plain, REPORT_CUES)


def drop_label(text: str) -> str:
    """Text without its leading label ("Root cause:", "找到了。"), keeping bold markers paired."""
    stripped = LABEL.sub("", text, count=1).strip()
    if stripped.count("**") % 2:
        stripped = stripped.replace("**", "", 1)
    return stripped
