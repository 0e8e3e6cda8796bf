"""Knowledge from conversations: between people (LoCoMo-style ``speaker`` on each turn), or a person and an AI
assistant with no tools and no code, in English or Chinese.

First-person statements about events, plans and preferences become concept
cards (decision cards when someone decided something), rewritten in the third
person with the speaker's name and absolute dates. What an AI assistant
recommended or explained, and documents a person pasted, become cards too.
The steps, one module each:

- ``facts``: score each sentence for what it tells about its speaker;
- ``threads``: gather a speaker's facts about one thing;
- ``card``: one card per thread, with ``third_person`` statements and a dated title;
- ``advice``: one card per assistant turn that recommends, explains or plans (no "As an AI…");
- ``documents``: one card per pasted document.
"""

from __future__ import annotations

from ....foundations.domain import Session
from ..candidate import Candidate
from ..turns import participants
from .advice import advice_candidates
from .card import fact_card
from .documents import document_candidates
from .facts import find_facts
from .threads import fact_threads


def conversation_candidates(session: Session) -> list[Candidate]:
    today = session.started_at.date()
    names = participants(session)
    threads = fact_threads(find_facts(session, names), session)
    return ([fact_card(thread, names, session, today) for thread in threads]
            + advice_candidates(session, names, today) + document_candidates(session, names, today))
