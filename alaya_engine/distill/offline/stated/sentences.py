"""Judging one sentence: its kind, whether it says something specific, whether it is noise or an approval."""

from __future__ import annotations

import re

from ....foundations.domain import Turn
from ..cues import ANAPHORA, APPROVALS, BOILERPLATE, NARRATION_CUES, SMALL_TALK, UNDECIDED, ZH_SMALL_TALK
from ..text.chinese import is_chinese
from ..text.cue_match import cue_pattern, has_cue
from ..text.markdown import QUOTED_LINE, strip_markdown
from ..text.memo import within_session
from ..text.overlap import content_words
from ..text.sentences import is_question, split_sentences
from ..text.tags import identifiers
from ..text.titles import title_width
from .kinds import (
    CHOSEN,
    CLAUSE_END,
    CONCLUSIONS,
    EN_APPROVALS,
    GO_AHEAD,
    HEDGES,
    KINDS,
    LETS_ACT,
    LIST_NUMBER,
    LIST_NUMBERS,
    NAME,
    NOT_KNOWLEDGE,
    NUMBER,
    OFFER_VERBS,
    OWN_ACTION,
    POINTS_BACK,
    REQUEST,
    RULE_NAMED,
    SPECIFIC,
    TOPIC_CHANGE,
    USER_RULES,
    VERIFIED,
    WOULD,
    ZH_APPROVALS,
)

APPROVAL_LEAD = re.compile(r"^(?:(?:ok(?:ay)?|yes|yeah|yep|sure|good|great|agreed|makes sense|fair enough|"
                           r"sounds good|let'?s go with|go with|有道理|好的?|行|可以|同意|那就|就用|就选|就按|就)"
                           r"[\s,，.。!！:：]*)+", re.IGNORECASE)
"""The approving words a decision opens with ("ok, let's go with", "有道理，就用")."""


def sentences_of(turn: Turn) -> list[str]:
    """The turn's sentences as plain text, without the number of a list item that follows them, and without the
    lead of a recap ("Done: Sunday 15 Feb = Oceanário", "好的，记下：4 月 2 日–12 日…"): what follows it is what was
    agreed, where "Done" alone would only narrate."""
    text = QUOTED_LINE.sub("", turn.content) if turn.role == "assistant" else turn.content
    counted = list_numbers(text)
    return [_without_recap_lead(_without_next_number(sentence, counted))
            for sentence in split_sentences(strip_markdown(text))]


def list_numbers(text: str) -> set[int]:
    """The numbers of the items of a list in ``text``: 1., 2., 3. … in order, on one line or on many; none when
    nothing follows a 1. (a number ending a sentence is a list's only when the list counts on)."""
    counted, expected = set(), 1
    for match in LIST_NUMBERS.finditer(text):
        number = int(match.group(1))
        if number == expected or number == 1:
            expected = number + 1
            counted.add(number)
    return counted if 2 in counted else set()


def _without_next_number(sentence: str, counted: set[int]) -> str:
    """A list written on one line ("1. Drain the node 2. Patch it") splits as "Drain the node 2.", "Patch it": the
    number ending a sentence is the next item's when the text counts its items that far. Any other number ends the
    sentence it is in: "she thinks I'll need about 5." keeps its 5."""
    ending = LIST_NUMBER.search(sentence)
    return sentence[:ending.start()] if ending and int(ending.group(1)) in counted else sentence


RULE_CLAUSE = re.compile(r"\s*[—–;,，；：]\s*(?=" + "|".join(re.escape(cue) + (r"\b" if cue.isascii() else "")
                                                      for cue in RULE_NAMED) + ")", re.IGNORECASE)
"""Where a clause naming a rule begins ("… — rule is …", "…，规矩是…")."""


def named_rule(sentence: str) -> str:
    """The clause of a sentence that names a rule after one that says something else ("The user will post it in
    #status-internal — rule is any planned maintenance gets announced 48 hours ahead": the rule is the point, the
    clause before says where), else the sentence."""
    named = RULE_CLAUSE.search(sentence)
    if not named or has_cue(sentence[:named.start()], KINDS["rule"]):
        return sentence
    rule = sentence[named.end():]
    return rule[:1].upper() + rule[1:]


def _without_recap_lead(sentence: str) -> str:
    lead, colon, rest = sentence.partition(":") if ":" in sentence[:16] else sentence.partition("：")
    if colon and rest.strip() and len(lead) <= 12 and cue_pattern(NARRATION_CUES).match(lead.strip()):
        return rest.strip()
    return sentence


ANNOUNCEMENT_WIDTH = 40
"""How wide a sentence that announces a finding may be ("Found it — that's the problem.")."""


def conclusion(sentence: str, stated: bool) -> str | None:
    """A sentence that announces what follows ("That's it then.", "原来如此："): the kind it gives the next
    sentence, which says the substance; one that is a statement itself (``stated``) gives it to the sentence that
    goes on with it ("Immediate mitigation: scale it down. Leave orders-api alone."). A wider sentence that states
    nothing, only points back at what was found ("So the cause is a leftover restore index, not a failed node."),
    announces nothing: the advice after it is no cause."""
    if is_specific(sentence) or not (stated or title_width(sentence) < ANNOUNCEMENT_WIDTH
                                     or sentence.rstrip().endswith((":", "："))):
        return None
    kind = stated_kind(sentence)
    return kind if kind in ("cause", "fix") else ("cause" if has_cue(sentence, CONCLUSIONS) else None)


def stated_kind(sentence: str, role: str = "assistant") -> str | None:
    kind = next((name for name, cues in KINDS.items() if has_cue(sentence, cues)), None)
    return kind or ("rule" if role == "user" and has_cue(sentence, USER_RULES) else None)


def reports_a_test_run(sentence: str) -> bool:
    """How the tests ran (:data:`.kinds.VERIFIED`), not why one fails ("the test fails because the clock is UTC")."""
    return bool(VERIFIED.search(sentence)) and not has_cue(sentence, KINDS["cause"])


def kind_of(sentence: str, turn: Turn) -> str | None:
    """The sentence's kind when it states one; a user's specific statement without a cue is a fact (users tell
    their agents how things are: "orders-api goes through pg-main-02:6432")."""
    width = title_width(sentence)
    if sentence.rstrip().endswith((":", "：")):  # it introduces what follows
        return None
    opening = _finding_opening(sentence)
    concluded = cue_pattern(CONCLUSIONS).match(opening)
    if concluded and title_width(opening[concluded.end():].strip(" —-:：,，.。!！")) < 24:
        concluded = None  # "Confirmed — it's on the Service": a finding announced, not said
    kind = stated_kind(sentence, turn.role) or ("cause" if concluded else None)
    if kind in ("cause", "fix") and (has_cue(sentence, HEDGES) or _points_back_only(sentence)):
        return None  # a guess at a cause or fix, often corrected later, or "这是同一个根因的第二个表现"
    if kind == "rule" and turn.role == "assistant" and (OWN_ACTION.match(sentence) or has_cue(sentence, WOULD)):
        return None  # what it just did, told with the change it belongs to; what it would do, a proposal
    if kind == "fix" and reports_a_test_run(sentence):
        return None  # how the tests ran with the fix: the fix is said where it is made
    if kind == "decision" and UNDECIDED.search(sentence):
        return None  # "haven't decided, just dreaming", "还没决定": no decision yet
    if kind is not None:
        return kind if width >= 12 and (is_specific(sentence) or width >= 30) else None
    if turn.role == "user" and (width >= 30 or NUMBER.search(sentence)) and is_specific(sentence) \
            and not has_cue(sentence, HEDGES) and not REQUEST.match(sentence):
        return "fact"
    return None


def _points_back_only(sentence: str) -> bool:
    """A sentence that leans on what was said before and names nothing itself ("这是同一个根因的第二个表现", "That's
    the same cause again"): what it points to is the card, not this."""
    return bool(ANAPHORA.match(sentence)) and not (NUMBER.search(sentence) or identifiers(sentence)
                                                  or NAME.search(sentence[1:]))


def specifics(text: str) -> set[str]:
    """The numbers, identifiers and names a text says: what a card must keep to keep its point (a capital that
    only opens a sentence names nothing)."""
    found = set()
    for sentence in split_sentences(strip_markdown(text)):
        found |= _sentence_specifics(sentence)
    return found


@within_session
def _sentence_specifics(sentence: str) -> set[str]:
    """One sentence's specifics, remembered: a card's text is read again each time it grows, four times a sentence
    on the demo."""
    first = re.match(r"\W*(\w+)", sentence)
    opening = first.group(1) if first and first.group(1).istitle() else None
    return {token.lower().strip(".,") for token in SPECIFIC.findall(sentence) if token != opening}


def is_specific(sentence: str) -> bool:
    """A name, an identifier or a number, in something long enough to stand alone."""
    if title_width(sentence) < 12:
        return False
    return bool(NUMBER.search(sentence) or identifiers(sentence) or NAME.search(sentence[1:])
                or (is_chinese(sentence) and title_width(sentence) >= 24))


DECIDED_OR_RULE_NAMED = KINDS["decision"] + RULE_NAMED
"""What keeps a sentence that opens by narrating ("I'll post it …") from being noise: a decision, or a rule named."""


GUESSES = ("i guessed", "i suspect", "my guess", "if", "猜", "怀疑", "以为", "如果", "要是", "假如", "万一")
"""What makes what a question states first a guess or a supposition ("我本来猜是有个 consumer 挂了", "if the ALB were at
60s"), not a fact."""
ASKING_CLAUSE = re.compile(r"\s*(?:[,，;；]|\s[—–-]\s?)\s*(?=[^,，;；—–]*[?？]\s*$)")
"""Where the clause that asks begins, in a sentence that says something first ("我妈还有高血压，每天早上吃一片氨氯地平
5mg，这个要跟医生说吗？", "we run pg 15 on pg-main-02 — is that supported?")."""
INTERROGATIVE = re.compile(r"^(?:what|which|who|whom|whose|when|where|why|how|is|are|was|were|do|does|did|can|could|"
                           r"should|would|will|shall|any|anything|have|has)\b|吗|呢|什么|怎么|为什么|哪|几[个点天次]|多少|"
                           r"是否|是不是|要不要|能不能|可不可以", re.IGNORECASE)
"""A clause that asks ("what should I…", "要不要…", "…吗")."""


def stated_before_asking(sentence: str) -> str:
    """What a question states before the clause that asks: a user gives facts while asking ("我妈还有高血压，每天早
    上吃一片氨氯地平 5mg，这个要跟医生说吗？"), which the question as a whole, being noise, would lose. The sentence as
    it is when it asks nothing, states nothing specific first, or asks from its first clause."""
    if not sentence.rstrip().endswith(("?", "？")):
        return sentence
    parts = ASKING_CLAUSE.split(sentence, maxsplit=1)
    head = parts[0].strip() if len(parts) == 2 else ""
    if not head or INTERROGATIVE.search(head) or "?" in head or "？" in head or not is_specific(head) \
            or not NUMBER.search(head) or has_cue(head, HEDGES + GUESSES):
        return sentence
    return head + ("。" if is_chinese(head) else ".")


def is_noise(sentence: str) -> bool:
    plain = sentence.strip()
    if is_question(plain) or BOILERPLATE.search(plain) or has_cue(plain, NOT_KNOWLEDGE):
        return True
    opening = cue_pattern(NARRATION_CUES).match(plain)
    if opening and not has_cue(plain, DECIDED_OR_RULE_NAMED) and not _answers_with_specifics(opening.group(0), plain):
        return True
    width = title_width(plain)
    return (has_cue(plain, SMALL_TALK) and not identifiers(plain) and width < 80) or \
        (has_cue(plain, ZH_SMALL_TALK) and width < 40)


ANSWER_OPENINGS = ("yes", "done", "noted", "now", "resolved it", "好的", "记下了", "加好了", "都好了", "恢复好了")
"""Narration cues that open an answer rather than narrate work: what follows them may be the knowledge itself."""


def _answers_with_specifics(cue: str, sentence: str) -> bool:
    """"Yes — repository s3-nightly writes to the sbx-os-snapshots bucket at 01:00 UTC": past its "yes" or "done"
    the sentence states something specific, and is no narration."""
    if cue.strip().lower() not in ANSWER_OPENINGS:
        return False
    rest = sentence[len(cue):].lstrip(" ,，.。:：—–-!！")
    return title_width(rest) >= 24 and is_specific(rest)


def approves(text: str) -> bool:
    """The message opens by accepting what was proposed ("let's do it: …", "ok, 3 秒", "行，就这么办", "有道理，就用
    X"), or one of its clauses is a short go-ahead ("add it", "ship it", 加上吧, 那就这样吧) or names the choice
    ("120 it is", 就带茶吧)."""
    plain = strip_markdown(text).strip()
    opening = plain[:24].lower()
    if has_cue(opening, APPROVALS + EN_APPROVALS + (LETS_ACT,)) or any(opening.startswith(w) for w in ZH_APPROVALS):
        return True
    clauses = [clause.strip().lower() for clause in CLAUSE_END.split(plain)[:3]]
    return any(GO_AHEAD.fullmatch(clause) or CHOSEN.match(clause) or (clause.endswith("吧") and len(clause) <= 6)
               or (clause.startswith(("就", "那就")) and clause.endswith("吧") and len(clause) <= 30)
               for clause in clauses)


REACTION_LEAD = re.compile(r"^(?:(?:great|nice|perfect|thanks|thx|merged)\b[\s,.!:;—–-]*)+", re.IGNORECASE)
"""Words that greet a result rather than accept a proposal ("nice. one thing bugs me though: …" after "the clock is
synced"): a message opening with one accepts only what the assistant put forward, not whatever it just said."""


def reacts_only(text: str) -> bool:
    """The message's go-ahead is only its reaction to a result: past the words of :data:`REACTION_LEAD`, nothing
    :func:`approves` ("nice, ship it" still accepts)."""
    plain = strip_markdown(text).strip()
    lead = REACTION_LEAD.match(plain)
    return lead is not None and not approves(plain[lead.end():])


def _finding_opening(sentence: str) -> str:
    """The sentence from where a finding would open it, past an "ok" and the finder ("ok 我查到了，…" → "查到了，…")."""
    return FINDER.sub("", APPROVAL_LEAD.sub("", sentence), count=1)


FINDER = re.compile(r"^(?:我|I\s+|we\s+)", re.IGNORECASE)


def moves_on(text: str, before: str) -> bool:
    """The go-ahead only closes what came ``before`` and the message turns to something else ("好吧。另外，四月回杭州…"
    after advice on parking), states a point of its own kind ("就这么办。另外记住：…") or a finding ("ok 我查到了，
    是…"): the rest is read for
    itself, not as what was accepted. A rest that points back or speaks of the same things ("好，顺便把这个加到
    checklist 里") goes on with what was accepted, and so does a go-ahead naming a number or name of the proposal
    before it turns ("行，3 秒。另外…")."""
    plain = strip_markdown(text).strip()
    finding = _finding_opening(plain)
    if finding != plain and (cue_pattern(CONCLUSIONS).match(finding) or stated_kind(finding) == "cause"):
        return True  # "ok 我查到了，是 acme 在做 bulk import": an ok that opens a finding accepts nothing
    parts = CLAUSE_END.split(plain, 1)
    if len(parts) < 2 or not has_cue(parts[1].strip()[:20], TOPIC_CHANGE):
        return False
    rest = parts[1]
    change = cue_pattern(TOPIC_CHANGE).search(rest)  # None only where the cue ended the 20 characters above
    if change is not None and specifics(rest[:change.start()]) & specifics(before):
        return False  # "行，3 秒。另外…": the go-ahead names what it accepts before turning to something else
    related = POINTS_BACK.search(rest) or content_words(rest) & content_words(before)
    return bool(stated_kind(rest, "user")) or not related


def offers(sentence: str) -> bool:
    """A question put to the user ("Is around 8pm good?") or an action proposed in the imperative, after an
    optional lead ("A middle ground: keep the subscription for 24 hours")."""
    plain = sentence.strip()
    if plain.endswith(("?", "？")):
        return True
    action = plain.rsplit(":", 1)[-1].strip().split(" ", 1)[0].lower()
    return action in OFFER_VERBS

