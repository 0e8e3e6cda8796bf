"""The offline distiller: cards from cue phrases and message structure, no LLM.

The default install must distill with no network and no model download, and
the same session must always give the same cards. So this distiller reads the
shape of a conversation instead of its meaning. The package, by job:

- ``distiller``: the OfflineDistiller (session → Distillation: route, merge, cut, unique titles);
- ``agent/``: cards from agent sessions (tools, code): gotchas, decisions, patterns, concepts;
- ``conversation/``: facts from conversations between people, in the third person with absolute dates;
- ``links``: TEMPORAL_NEXT, CAUSED_BY, CAUSES and DEPENDS_ON between the cards;
- ``cues``: the cue words and patterns both readers look for, easy to tune;
- ``candidate``: a card before selection; ``turns``: who is talking;
- ``text/``: plain-text helpers (Markdown, sentences, cue matching, tags, dates, titles).
"""

from .distiller import OfflineDistiller

__all__ = ["OfflineDistiller"]
