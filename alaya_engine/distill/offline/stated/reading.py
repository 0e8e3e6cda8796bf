"""Reading a session's turns into statements: sentence runs of one kind, with the problem they answer, the proposal
they accept or the reply that adds to them."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ....foundations.domain import Session, Turn
from ..text.cue_match import has_cue
from ..text.markdown import only_code, strip_markdown
from ..text.overlap import content_words
from ..text.sentences import is_question, split_sentences
from ..text.titles import title_width
from ..turns import asks
from .confirmed import confirmed_question
from .done import did, names_the_proposal
from .kinds import ADVISED_AGAINST, KINDS, NUMBER, POINTS_BACK, PROBLEM_WORDS, PROPOSAL_CUES, SELF_TALK
from .sentences import (
    approves,
    conclusion,
    is_noise,
    is_specific,
    kind_of,
    moves_on,
    offers,
    reacts_only,
    reports_a_test_run,
    sentences_of,
    specifics,
    stated_before_asking,
    stated_kind,
)


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
    asked: list[str] = field(default_factory=list)
    """The assistant's question that the user's ``problem`` answers ("Client 的 Timeout 你们想设多少？"): what the
    decision is about, when the user answered with data and the assistant proposed from it."""
    asked_turn: int | None = None
    reply: list[str] = field(default_factory=list)
    """What the assistant's answer adds to a user's statement."""
    reply_turn: int | None = None
    found: list[str] = field(default_factory=list)
    """What the assistant had found or explained, which this user message takes in with an "ok"."""
    found_turn: int | None = None


def read_statements(session: Session) -> list[Statement]:
    found: list[Statement] = []
    turns = session.turns
    for index, turn in enumerate(turns):
        if turn.role not in ("user", "assistant") or not turn.content.strip() or only_code(turn.content):
            continue
        said = sentences_of(turn) if turn.role == "assistant" else map(stated_before_asking, sentences_of(turn))
        sentences = [sentence for sentence in said if not is_noise(sentence)
                     and not (turn.role == "assistant" and has_cue(sentence, SELF_TALK))]
        acknowledged: tuple[int, list[str]] | None = None
        before = len(found)
        if turn.role == "user" and approves(turn.content) and not moves_on(turn.content, _before(turns, index)):
            proposal_turn = _previous_assistant(turns, index)
            proposal = (_proposal(turns[proposal_turn], turn.content, proposal_turn == index - 1)
                        if proposal_turn is not None else [])
            why: tuple[int | None, list[str]] = (None, [])
            if not proposal and proposal_turn is not None and not reacts_only(turn.content):
                named = _naming_proposal(turns, proposal_turn, turn.content)
                if named is not None and named[0] != proposal_turn:  # the last answer explained the choice
                    why = (proposal_turn, _specific_sentences(turns[proposal_turn], 2))
                if named is not None:
                    proposal_turn, proposal = named
            if proposal:  # the whole message is the decision: what it accepts, and what it adds or changes
                said = [sentence for sentence in sentences if is_specific(sentence) or NUMBER.search(sentence)
                        or stated_kind(sentence, "user")]
                rules = [sentence for sentence in said[1:] if kind_of(sentence, turn) == "rule"]
                found.append(Statement(index, "decision", [sentence for sentence in said if sentence not in rules],
                                       proposal, proposal_turn, found=why[1], found_turn=why[0] if why[1] else None))
                found.extend(Statement(index, "rule", [sentence], []) for sentence in rules)  # a point of its own
                continue
            if proposal_turn == index - 1:
                acknowledged = (proposal_turn, _acknowledged(turns[proposal_turn]))
        confirmed = confirmed_question(turns, index)
        if confirmed is not None:  # the question and its "yes" say the point; the turn states nothing else
            asked, answer, answer_turn = confirmed
            found.append(Statement(index, "confirmed", asked, [], reply=answer, reply_turn=answer_turn))
            continue
        current: Statement | None = None
        carried = None
        for position, sentence in enumerate(sentences):
            own = kind_of(sentence, turn)
            kind = own or carried
            carried = conclusion(sentence, own is not None)
            done = _done_as_proposed(turns, index, sentence) if position == 0 and turn.role == "user" else None
            if done is not None:
                current = Statement(index, "decision", [sentence], done, index - 1)
                found.append(current)
            elif kind is None:
                current = None
            elif current is not None and kind in (current.kind, "fact"):
                current.sentences.append(sentence)  # a plain sentence goes on with the statement before it
            elif current is not None and current.kind == "fact" and POINTS_BACK.search(sentence):
                current.sentences.append(sentence)  # "原来是因为这个…", "that's why…": what it points to is the
                current.kind = kind                 # substance, and the pointing sentence says what kind it is
            else:
                current = Statement(index, kind, [sentence], [])
                found.append(current)
        if acknowledged and acknowledged[1] and not _stated_at(found, acknowledged[0]):
            if len(found) > before:  # what the user says next carries what they took in
                found[before].found, found[before].found_turn = acknowledged[1], acknowledged[0]
            else:
                found.append(Statement(acknowledged[0], "fact", acknowledged[1], []))
    return _with_problems(found, turns)


def _done_as_proposed(turns: list[Turn], index: int, sentence: str) -> list[str] | None:
    """What the assistant proposed just before, when the user's message opens by reporting having done it."""
    if index == 0 or turns[index - 1].role != "assistant" or not did(sentence):
        return None
    proposal = _proposal(turns[index - 1], sentence, True)
    return proposal if proposal and names_the_proposal(sentence, proposal) else None


def _stated_at(statements: list[Statement], index: int) -> bool:
    """Whether a statement of a kind (a cause, a rule…) was read in turn ``index``: it has a card of its own."""
    return any(statement.turn == index and statement.kind != "fact" for statement in statements)


def _with_problems(statements: list[Statement], turns: list[Turn]) -> list[Statement]:
    """Knowledge is often said across an exchange: a cause or fix the assistant states carries what the user
    reported before it (symptom, cause and fix on one card), and what a user states carries the specifics the
    assistant's reply adds (the appointment, then the dentist's name). A user turn taken into another card, or the
    reply to what a user stated, makes no fact card of its own (the card's details keep the rest of its figures). A
    decision accepting a fix keeps the problem that fix's card took in: the problem, the option and the choice are
    one exchange ("the app parses it as a Kotlin Double" → "(b) keep the string" → "let's keep string, 3.4 switches").
    """
    absorbed: set[int] = set()
    answered: dict[int, int] = {}  # a user turn taken in as the problem a statement of an assistant turn answers
    for statement in statements:
        if turns[statement.turn].role == "assistant" and statement.kind in ("cause", "fix"):
            opener = _problem_turn(turns, statement.turn, content_words(" ".join(statement.sentences)))
            if opener is not None and opener not in absorbed:  # the problem is stated once, on the first card
                statement.problem = _specific_sentences(turns[opener], 2) or _plain_sentences(turns[opener], 1)
                statement.problem_turn = opener
                absorbed.add(opener)
                answered[opener] = statement.turn
                _with_finding(statement, turns, opener)
            if statement.kind == "cause":  # what it read before the command, of the things the turn speaks of
                _with_finding(statement, turns, _before_commands(turns, statement.turn),
                              content_words(strip_markdown(turns[statement.turn].content)))
            continue
        if statement.accepted and statement.proposal_turn:
            asked = statement.proposal_turn - 1  # what the user said that the accepted proposal answers
            own = answered.get(asked) == statement.proposal_turn  # taken in by the proposal's card: one exchange
            if turns[asked].role == "user" and (asked not in absorbed or own) and (
                    not approves(turns[asked].content) or moves_on(turns[asked].content, _before(turns, asked))):
                statement.problem = _asked_sentences(turns, asked, statement)
                statement.problem_turn = asked if statement.problem else None
                absorbed.add(asked)
                _with_question(statement, turns, asked)
        if statement.kind == "confirmed":  # its answer is on it already
            absorbed.add(statement.reply_turn)
        elif turns[statement.turn].role == "user":  # a decision too: the reply says what was done ("the rule: …")
            reply = _reply_turn(turns, statement.turn)
            if reply is not None:
                said = " ".join(statement.sentences + statement.accepted)
                words, counted = content_words(said), NUMBER.search(said) is not None
                statement.reply = [s for position, s in enumerate(_specific_sentences(turns[reply], 8))
                                   if content_words(s) & words or stated_kind(s)
                                   or (position == 0 and counted and NUMBER.search(s) and RECKONED.match(s))][:3]
                statement.reply_turn = reply if statement.reply else None
                absorbed.add(reply)
    return [s for s in statements if not (s.kind == "fact" and s.turn in absorbed)]


RECKONED = re.compile(r"(?:so|that's|that is|that makes|in total|altogether|all in)\b"
                      r"|所以|那就是|也就是|一共|总共|合计|加起来", re.IGNORECASE)
"""How a reply opens when it works out what the user's figures come to ("So roughly £240 for physio", "一共 3,600 元"):
the result belongs with the figures."""


def _with_question(statement: Statement, turns: list[Turn], answer: int) -> None:
    """When the user's message a proposal answers was itself the answer to the assistant's question (asked how
    much, the user gave the figures, the assistant proposed a value), the decision carries that question: "ok, 3
    seconds" says what is decided only beside "what timeout should the client have?"."""
    if not statement.problem or answer == 0 or turns[answer - 1].role != "assistant":
        return
    lines = turns[answer - 1].content.strip().splitlines()  # none in a turn of tool calls alone
    last_line = lines[-1] if lines else ""  # the question the message ends on, alone
    question = split_sentences(strip_markdown(last_line))[-1:] if last_line.rstrip().endswith(("?", "？")) else []
    if question and title_width(question[0]) >= 8:
        statement.asked, statement.asked_turn = question, answer - 1


def _with_finding(statement: Statement, turns: list[Turn], opener: int, words: set[str] | None = None) -> None:
    """A cause is often pieced together: the assistant read the numbers in a tool's output, the user's answer
    added what explains them, the assistant concluded. The conclusion's card carries the sentences of that earlier
    reading that speak of the same things (the hosts, limits and counts the cause rests on)."""
    earlier = opener - 1
    if earlier < 0 or turns[earlier].role != "assistant" or statement.found:
        return
    words = words or content_words(" ".join(statement.sentences))
    statement.found = [s for s in _specific_sentences(turns[earlier], 8) if content_words(s) & words][:3]
    statement.found_turn = earlier if statement.found else None


def _before_commands(turns: list[Turn], index: int) -> int:
    """The turn after the assistant's last message before ``index`` when only commands ran between them (``index``
    itself when none ran): a conclusion drawn from a command's output rests on what the assistant read before it
    ran it ("48k goroutines, all in persistConn" → grep → "found it: client.go never closes the body")."""
    earlier = index - 1
    while earlier > 0 and turns[earlier].role == "tool":
        earlier -= 1
    return earlier + 1 if earlier < index - 1 else index


def _acknowledged(turn: Turn) -> list[str]:
    """What the assistant found or explained that the user took in with an "ok" (and did not accept as an
    offer): its specific sentences, a fact of its own or the context of what the user says next."""
    return [sentence for sentence in _specific_sentences(turn, 4) if not has_cue(sentence, SELF_TALK)
            and not reports_a_test_run(sentence)]


def _specific_sentences(turn: Turn, limit: int) -> list[str]:
    return [s for s in _plain_sentences(turn, None) if is_specific(s)][:limit]


def _asked_sentences(turns: list[Turn], asked: int, statement: Statement) -> list[str]:
    """What the user said that an accepted proposal answered: its specific statements, and a question naming what
    the decision and the proposal do not. "要不要顺便升到 3.4？我们还在 3.3.1。" answered "3.4.1 可以升" and
    accepted "行，升到 3.4.1" is decided only beside what was asked to be upgraded. A question the answer confirms
    is a card of its own (:func:`confirmed_question`)."""
    decided = specifics(" ".join(statement.sentences + statement.accepted))
    wanted = [s for s in sentences_of(turns[asked]) if is_specific(s) and (not is_noise(s) or (
        is_question(s.strip()) and specifics(s) - decided))]
    if confirmed_question(turns, asked) is not None:
        wanted = [s for s in wanted if not is_noise(s)]
    return wanted[:2]


def _plain_sentences(turn: Turn, limit: int | None) -> list[str]:
    """What the turn says, without noise: a symptom said without a name or number ("the nightly export failed
    again") still says what went wrong."""
    return [s for s in sentences_of(turn) if not is_noise(s)][:limit]


def _problem_turn(turns: list[Turn], index: int, words: set[str]) -> int | None:
    """The user turn a cause or fix answers: it reports a problem, asks, or speaks of the same things."""
    for earlier in range(index - 1, -1, -1):
        turn = turns[earlier]
        if turn.role == "user" and not approves(turn.content):
            text = strip_markdown(turn.content)
            related = asks(text) or has_cue(text, PROBLEM_WORDS) or len(content_words(text) & words) >= 2
            return earlier if related else None
    return None


def _before(turns: list[Turn], index: int) -> str:
    """What the assistant said last before turn ``index``: what a short "ok" there closes."""
    earlier = _previous_assistant(turns, index)
    return turns[earlier].content if earlier is not None else ""


def _reply_turn(turns: list[Turn], index: int) -> int | None:
    """The assistant's answer to turn ``index``: the next turn, or past the tools it ran, an answer reporting the
    work done ("Done — DELIVERY_TIMEOUT is 15s now", "改好了：…"): what the user asked for, as it now stands."""
    after = index + 1
    while after < len(turns) and turns[after].role == "tool":
        after += 1
    if after >= len(turns) or turns[after].role != "assistant" or not turns[after].content.strip():
        return None
    return after if after == index + 1 or DONE_REPORT.match(strip_markdown(turns[after].content).strip()) else None


DONE_REPORT = re.compile(r"(?:done|all done|updated|fixed|applied|deployed|pushed|merged|shipped)\b"
                         r"|搞定|完成了|改好了|已经改好|弄好了|已更新|已修改|已经改了", re.IGNORECASE)
"""How an answer opens that reports the work the user asked for, once the tools have run."""


def _previous_assistant(turns: list[Turn], index: int) -> int | None:
    return next((i for i in range(index - 1, max(-1, index - 4), -1) if turns[i].role == "assistant"), None)


def _naming_proposal(turns: list[Turn], answer: int, reply: str) -> tuple[int, list[str]] | None:
    """The assistant turn, the ``answer`` the user replies to or one a few turns before it, whose sentences name
    what the user's ``reply`` chooses: "就带茶和 shortbread 吧" picks from the options just offered, "有道理，就用
    Asia/Shanghai" (after asking why) accepts the proposal before the explanation, "ok, go with 300" the "raise it to
    300 s" a few turns back, not the later "the ALB won't cut a 300 s request". Named by a name or number the reply
    says, else by its words (one is enough in the answer itself, two further back); a sentence that proposes first."""
    named, words = specifics(reply), content_words(reply)
    first = None  # the nearest turn naming it, if none proposes it
    for earlier in range(answer, max(-1, answer - 5), -1):
        if turns[earlier].role != "assistant":
            continue
        naming = _naming(turns[earlier], named, words, 1 if earlier == answer else 2)
        proposing = [s for s in naming if has_cue(s, PROPOSAL_CUES + KINDS["decision"] + KINDS["fix"])]
        if proposing:  # what put the value forward, before what only mentions it again
            return earlier, _most_named(proposing, named, words)
        if naming and first is None:
            first = earlier, _most_named(naming, named, words)
    return first


def _most_named(sentences: list[str], named: set[str], words: set[str]) -> list[str]:
    """The two sentences naming most of what the reply says."""
    return sorted(sentences, key=lambda s: -(len(specifics(s) & named) + len(content_words(s) & words)))[:2]


def _naming(turn: Turn, named: set[str], words: set[str], shared: int) -> list[str]:
    """The turn's specific sentences that name one of ``named`` or ``shared`` of ``words`` (a cause is no choice)."""
    return [s for s in sentences_of(turn) if not is_noise(s) and is_specific(s)
            and (specifics(s) & named or len(content_words(s) & words) >= shared) and not has_cue(s, KINDS["cause"])]


def _proposing_question(sentence: str) -> bool:
    """A question that puts something forward ("how about …?", "不如先回滚？"): noise elsewhere, a proposal here."""
    return is_question(sentence.strip()) and has_cue(sentence, PROPOSAL_CUES) and is_specific(sentence)


def _unadvised(sentence: str) -> str:
    """The sentence without the words turning an option down (:data:`ADVISED_AGAINST`)."""
    lowered = sentence.lower()
    for phrase in ADVISED_AGAINST:
        lowered = lowered.replace(phrase, " ")
    return lowered


def _proposal(turn: Turn, reply: str, direct: bool) -> list[str]:
    r"""What the assistant put forward: its proposing sentences, and the points a proposal ending in a colon lists.
    Without a proposing cue, when the user answers the assistant ``direct``\ly (no tool ran between), what it
    offers as a question or an action ("Is around 8pm good?", "A middle ground: keep it for 24 hours") and the
    user's ``reply`` names again, else the last of those. A question with a proposing cue ("how about an alert that
    fires when …?", "不如先回滚？") is what was put forward, not noise."""
    sentences = [s for s in sentences_of(turn) if not is_noise(s) or _proposing_question(s)]
    chosen: list[str] = []
    for position, sentence in enumerate(sentences):
        if has_cue(sentence, KINDS["cause"]) or reports_a_test_run(sentence):  # the finding that led to it, or how
            continue  # the tests ran with it, is not what was accepted
        if has_cue(_unadvised(sentence), PROPOSAL_CUES + KINDS["decision"] + KINDS["fix"]) and is_specific(sentence):
            listed = sentences[position + 1:position + 4] if sentence.endswith((":", "：")) else []
            chosen.extend(s for s in [sentence, *listed] if s not in chosen)
    if chosen or not direct:
        return chosen[:5]
    offered = [s for s in sentences_of(turn) if is_specific(s) and not has_cue(s, KINDS["cause"]) and offers(s)]
    named = specifics(reply)
    return [s for s in offered if specifics(s) & named][:3] or offered[-2:]
