"""Which statements become cards: those that say what the other readers' cards do not."""

from __future__ import annotations

from ....foundations.domain import Session
from ..candidate import TITLE_LIMIT, Candidate
from ..text.overlap import content_words, overlap_of
from ..text.sentences import split_sentences
from ..text.titles import shorten
from ..turns import speaker_of
from .card import approval_only, statement_card
from .reading import Statement, read_statements
from .sentences import specifics


def stated_candidates(session: Session, cards: list[Candidate], chinese: bool) -> list[Candidate]:
    """Cards for what was stated and ``cards`` (the other readers') do not already say, written in Chinese when
    ``chinese`` (the session's language, :func:`..turns.speaks_chinese`). Conversations whose
    turns carry speaker names (people talking, a companion app's chats) are left to the conversation reader,
    which states each fact in the third person already: reading them here too made cards that compete with their
    raw turns and cost Chinese questions over English chats 0.033 of recall (docs/benchmarks.md)."""
    if any(speaker_of(turn) for turn in session.turns):
        return []
    today = session.started_at.date()
    statements = _replies_to_their_decisions(read_statements(session))
    stated = ((statement_card(_unsaid(statement, cards), session, today, chinese), statement.sentences)
              for statement in statements)
    titles = {card.title.lower() for card in cards}
    kept = []
    for candidate, own in stated:
        if _said_already(candidate, own, cards + kept):
            continue
        if candidate.title.lower() in titles:  # it says more than the card of that title: name it by what else
            others = (shorten(sentence.strip(" ：:"), TITLE_LIMIT) for sentence in split_sentences(candidate.body)
                      if not approval_only(sentence))
            candidate.title = next((title for title in others if title.lower() not in titles), "")
        if candidate.title:
            titles.add(candidate.title.lower())
            kept.append(candidate)
    return kept


def _replies_to_their_decisions(statements: list[Statement]) -> list[Statement]:
    """Each assistant's answer on one card: an answer the user then accepts naming what is decided ("ok, smtp
    timeout 30s") is the proposal of that decision, not also an addition to the message it answered (whose card
    then said the decision a second time). A bare go-ahead ("Perfect, I'll print it") leaves the answer where it
    was: there it says what was done."""
    accepted = {statement.proposal_turn for statement in statements
                if statement.accepted and specifics(" ".join(statement.sentences))}
    for statement in statements:
        if statement.reply_turn in accepted and statement.kind != "confirmed":  # its "yes" is what it says
            statement.reply, statement.reply_turn = [], None
    return statements


def _unsaid(statement: Statement, cards: list[Candidate]) -> Statement:
    """The statement without the problem a card of the same turn already states (the problem is stated once; an
    assistant's addition to a user's statement stays: the card that holds both sides replaces the one that holds
    only the answer), and a decision without the reply saying what was done when a card already says that."""
    def known(index: int | None, sentences: list[str]) -> bool:
        words = content_words(" ".join(sentences))
        return any(index in card.turns and overlap_of(words, content_words(card.content)) >= 0.6 for card in cards)

    if statement.kind != "decision" and known(statement.problem_turn, statement.problem):
        statement.problem = []
    if statement.accepted and known(statement.reply_turn, statement.reply):  # what was done, said on its own card
        statement.reply, statement.reply_turn = [], None
    return statement


def _said_already(stated: Candidate, own: list[str], cards: list[Candidate]) -> bool:
    """A card from the same turn already says most of it, and every name and number it says. A cause, fix, rule or
    decision is not said already by a card that only explains it (a concept): its card says what the point is.
    The card must say the statement's ``own`` sentences too: a user's new rule ("and from now on every
    dead-letter queue has to be called <queue>.dlq") answering an assistant's report was said already because
    the report, quoted as its context, filled the card that reported it."""
    needed = specifics(stated.body) | specifics(" ".join(own))
    own_words = content_words(" ".join(own))
    return any(set(stated.turns) & set(card.turns) and overlap_of(stated.words, card.words) >= 0.6
               and overlap_of(own_words, card.words) >= 0.6
               and needed <= specifics(card.content) and (card.type != "concept" or stated.type == "concept")
               for card in cards)
