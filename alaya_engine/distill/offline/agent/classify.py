"""Which card type a unit makes (gotcha, decision, pattern, concept), if any, from its cues."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cues import ANAPHORA, LABEL, OPTION_LEADS
from ..stated.sentences import approves, stated_kind
from ..text.cue_match import has_cue
from ..text.markdown import strip_markdown
from ..text.sentences import split_sentences
from ..text.tags import identifiers
from ..text.titles import title_width
from ..turns import asks
from .type_cues import best_type, cue_scores, lead_type

if TYPE_CHECKING:
    from .transcript import Transcript, Unit


def typed_groups(transcript: Transcript) -> list[tuple[list[Unit], str]]:
    """Typed units; neighbours of the same type in one turn make one card."""
    groups: list[tuple[list[Unit], str]] = []
    turns = transcript.session.turns
    for index, units in transcript.units.items():
        previous_type, previous_position = None, -2
        answers = index > 0 and (turns[index - 1].role == "tool"
                                 or turns[index - 1].role == "user" and asks(turns[index - 1].content))
        accepted = _accepted(turns, index)
        for unit in units:
            card_type = _classify(unit)
            if card_type is None and answers and not accepted and unit.position == 0 and _answer_like(unit):
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


def _classify(unit: Unit) -> str | None:
    """The unit's card type, or None when it is too thin, leans on the sentence before, or has no cue."""
    if unit.items:
        return lead_type(unit.lead)
    plain = strip_markdown(unit.text)
    if title_width(plain) < 24 or (ANAPHORA.match(plain) and title_width(plain) < 70):
        return None
    scores = cue_scores(plain)
    label = LABEL.match(unit.text)
    if label:
        label_scores = cue_scores(label.group(0))
        scores = {name: score + 3 * bool(label_scores[name]) for name, score in scores.items()}
    if unit.lead and has_cue(unit.lead, OPTION_LEADS):
        return "gotcha" if scores["gotcha"] >= 2 else None
    if unit.lead:
        lead_scores = cue_scores(strip_markdown(unit.lead))
        scores = {name: score + lead_scores[name] for name, score in scores.items()}
    return best_type(scores)


def _accepted(turns: list, index: int) -> bool:
    """The user's next message accepts this one: a proposal, which the stated-knowledge reader makes a decision."""
    after = next((turn for turn in turns[index + 1:] if turn.role == "user"), None)
    return after is not None and approves(after.content)


def _answer_like(unit: Unit) -> bool:
    """A direct answer to the user's question, or what the assistant read in a tool's output, that names
    something: a concept even without cues. One that states a cause, fix or decision in plain words ("turns out…")
    is left to the stated-knowledge reader, which types it by what it states."""
    plain = strip_markdown(unit.text)
    return title_width(plain) >= 80 and bool(identifiers(unit.text) or "`" in unit.text) and \
        not any(stated_kind(sentence) for sentence in split_sentences(plain))
