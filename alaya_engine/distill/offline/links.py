"""Links between the cards of one session: TEMPORAL_NEXT, CAUSED_BY, CAUSES and DEPENDS_ON."""

from __future__ import annotations

from ..base import LinkDraft
from .candidate import Candidate
from .cues import CAUSE_CUES, PREVENTION_CUES, REASON_CUES
from .text.cue_match import find_cues
from .text.markdown import strip_markdown
from .text.overlap import content_words, shared_weight
from .text.sentences import split_sentences


def card_links(cards: list[Candidate]) -> list[LinkDraft]:
    """Each card to the next in session order, plus the causal links cue phrases justify."""
    links = [LinkDraft(a.title, b.title, "TEMPORAL_NEXT", "next card in the same session")
             for a, b in zip(cards, cards[1:])]
    for index, card in enumerate(cards):
        links.extend(_causal_links(card, cards[:index]))
    return links


def _causal_links(card: Candidate, earlier: list[Candidate]) -> list[LinkDraft]:
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
    answered = any(link.relation == "CAUSED_BY" for link in links)
    if not answered and card.type in ("decision", "pattern") and earlier and earlier[-1].type == "gotcha" \
            and shared_weight(card.words, earlier[-1].words) >= 1:
        # what was decided or done right after a cause was found, about the same thing, answers it: people
        # rarely say "because" when the reason was the last thing said
        links.append(LinkDraft(card.title, earlier[-1].title, "CAUSED_BY",
                               f"the {card.type} comes right after this cause and is about the same thing"))
    if card.type in ("pattern", "decision"):
        concept = next((other for other in reversed(earlier)
                        if other.type == "concept" and _mentions(card.body, other)), None)
        if concept:
            links.append(LinkDraft(card.title, concept.title, "DEPENDS_ON", "relies on what that card explains"))
    return links


def _cue_about(content: str, cues: tuple[str, ...], topic: set[str]) -> str:
    """The cue of the first sentence that has one and shares two words with ``topic`` (a CJK pair counts half)."""
    for sentence in split_sentences(strip_markdown(content)):
        found = find_cues(sentence, cues)
        if found and shared_weight(content_words(sentence), topic) >= 2:
            return found[0]
    return ""


def _mentions(content: str, concept: Candidate) -> bool:
    """The content names the concept's subject: its first tag, or most of its title's words."""
    title_words = content_words(concept.title)
    shared = content_words(content) & title_words
    first_tag = concept.tags[0].lower() if concept.tags else ""
    return len(shared) >= max(2, len(title_words) // 2) or (len(first_tag) > 3 and first_tag in content.lower())
