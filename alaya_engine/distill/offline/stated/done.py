"""A user reporting they did what the assistant just proposed: acceptance by doing it.

"Short-term: rate-limit the tenant's imports" answered by "rate limit 我调到 500/s 了" or "I raised the rate limit to
500/s" is the proposal accepted, with the value chosen: a decision, as much as "ok, 500/s". Read as a plain fact,
it loses what it was done for. Only a value the speaker changed, in the first person ("内存降到 5.1G 了" is a
result, not an act), that names something the proposal names.
"""

from __future__ import annotations

import re

from ..text.overlap import content_words
from .sentences import specifics

_EN_DONE = re.compile(
    r"\b(?:i|we)(?:'ve| have| just| already)*\s+(?:raised|lowered|bumped|set|changed|moved|switched|increased|"
    r"reduced|capped|limited|scaled|pinned|upgraded|downgraded|updated)\b",
    re.IGNORECASE)
_ZH_DONE = re.compile(r"我们?[^，,。；;！!？?]{0,12}?(?:改为|改成|调到|调成|调整为|调整到|换成|设为|设成|设置为|"
                      r"设置成|提高到|降到|降为|增加到|减少到|加到|升到|升级到)[^。！？!?]*?了")


def did(sentence: str) -> bool:
    """The speaker reports a change they made: "I raised it to 500/s", "我调到 500/s 了"."""
    return bool(_EN_DONE.search(sentence) or _ZH_DONE.search(sentence))


def names_the_proposal(sentence: str, proposal: list[str]) -> bool:
    """The report speaks of what was proposed: a word, name or number in common."""
    said = " ".join(proposal)
    return bool(content_words(sentence) & content_words(said) or specifics(sentence) & specifics(said))
