"""Knowledge people state in plain words, in any session: a cause, a fix, a decision, a rule, a plan, a preference.

The agent reader types the assistant's paragraphs and the conversation reader the speakers' facts about
themselves; neither reads what a user states in an agent session ("let's do it: pool_size=20 …", "记住：所有 HTTP
调用都要设置 Timeout"), nor the proposal a short "ok, 3 秒" accepts, nor a conclusion said in ordinary words
("turns out…", "原来是因为…"). This reader goes through every user and assistant turn, sentence by sentence, and
makes one card per statement that carries a cue of its kind and something specific (a name, a number, an
identifier), worded in the session's language. The distiller drops those that repeat a card the other readers
made.
"""

from __future__ import annotations

from .select import stated_candidates

__all__ = ["stated_candidates"]
