"""A user's yes-or-no question that the assistant's answer confirms: what was asked is now known.

"So the old pin can go now, right?" answered "Yes, once…" states the change as surely as "we dropped the pin"; "这个
开关可以关掉了吧？" answered "可以。" decides it. Questions are noise to the other readings (a question states nothing),
so without this the user's figures and names ("we upgraded to 2.4, so…") reach no card, and the answer's card says
"yes" to nothing. Only an answer that opens by confirming: an open question ("what timeout?") is not answered "yes";
and only a question naming something the answer does not ("DDL doesn't replicate either, right?" → "Correct — no
DDL…" is the answer's card alone).
"""

from __future__ import annotations

import re

from ....foundations.domain import Turn
from ..turns import asks
from .sentences import is_noise, is_specific, sentences_of, specifics

CONFIRMING = re.compile(r"^(?:yes|yep|yeah|correct|exactly|right|that's right|indeed|可以|对|是的|没错|没问题|能|是)"
                        r"(?=[\s,，.。!！:：—-]|$)", re.IGNORECASE)
"""An answer opening with a "yes" of its own, not "yes, but…" from a list of options."""
BUT = re.compile(r"^\W*(?:but|however|不过|但是?)\b", re.IGNORECASE)


def confirmed_question(turns: list[Turn], index: int) -> tuple[list[str], list[str], int] | None:
    """The user's turn ``index``, when it ends on a question the next turn confirms: the turn's specific sentences
    with the question (a greeting opening them is kept: "hi, we upgraded to 2.4" says the upgrade), and the answer's
    first sentences, the "yes" and what it rests on (a card of the answer alone then repeats this one), and its turn."""
    turn = turns[index]
    if turn.role != "user" or not asks(turn.content):
        return None
    sentences, answer = sentences_of(turn), _answer(turns, index)
    if answer is None or not sentences or not sentences[-1].rstrip().endswith(("?", "？")):
        return None
    replied = sentences_of(turns[answer])
    opening = CONFIRMING.match(replied[0].strip()) if replied else None
    if opening is None or BUT.match(replied[0][opening.end():].strip(" ,，")):
        return None
    asked = [s for s in sentences[:-1] if is_specific(s) and not s.rstrip().endswith(("?", "？"))] + sentences[-1:]
    if not specifics(" ".join(asked)) - specifics(turns[answer].content):
        return None  # the answer names all the question does: its own card says it
    return asked, replied[:1] + [s for s in replied[1:3] if not is_noise(s)], answer


def _answer(turns: list[Turn], index: int) -> int | None:
    """The assistant turn that answers turn ``index``, past the commands it ran to check first."""
    for later in range(index + 1, len(turns)):
        if turns[later].role == "assistant" and turns[later].content.strip():
            return later
        if turns[later].role not in ("tool", "assistant"):
            return None
    return None
