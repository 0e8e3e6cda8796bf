"""A text's card type from its cue words ("root cause", "决定", "always …"): shared by the transcript reader, which
types list leads, and the classifier, which types whole units."""

from __future__ import annotations

from ..cues import PROBLEM_LEADS, TYPE_CUES
from ..text.cue_match import find_cues
from ..text.markdown import strip_markdown


def lead_type(lead: str) -> str | None:
    """The card type a list's lead announces ("Root cause:", "规则：", "Rules for …:"), if any."""
    if not lead:
        return None
    scores = cue_scores(strip_markdown(lead))
    scores["gotcha"] += 2 * len(find_cues(lead, PROBLEM_LEADS))
    return best_type(scores)


def cue_scores(text: str) -> dict[str, float]:
    """Points per card type: 2 for each strong cue, 1 for each hint."""
    return {card_type: 2 * len(find_cues(text, cues)) + len(find_cues(text, hints))
            for card_type, (cues, hints) in TYPE_CUES.items()}


def best_type(scores: dict[str, float]) -> str | None:
    best = max(scores, key=scores.get)
    return best if scores[best] >= 2 else None
