"""Scopes: which sessions a rule names, for what a push shares and what a recall may return.

A rule is ``*``, or ``agent=NAME``, ``channel=NAME`` or ``project=NAME`` (another name for the channel: OpenClaw
and the coding agents put the project there), NAME a shell-style pattern (``agent=review-*``). A session's
``metadata.share`` (``"private"`` or ``"shared"``) wins over the ``share`` rules of config.json; otherwise it is
shared when a rule of ``share.include`` matches it and none of ``share.exclude`` does; a session pulled from another
machine is shared (its machine shared it). ``recall --scope`` keeps the cards and raw turns of sessions any of its
rules match, and a recall scope may also name ``shared``: the sessions shared by that decision, so an agent can be
kept to ``agent=NAME`` plus ``shared`` (per-agent isolation).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from .errors import AlayaError

FIELDS = ("agent", "channel", "project")
SHARED = ("shared", "*")
"""The recall rule ``shared``: the sessions :class:`SharePolicy` shares."""


def parse_rule(rule: str, where: str, recall: bool = False) -> tuple[str, str]:
    """``agent=NAME`` → ("agent", "NAME"); ``*`` → ("*", "*"); with ``recall``, ``shared`` → :data:`SHARED` (a
    share rule cannot name it: it is what the share rules decide)."""
    if rule.strip() == "*":
        return "*", "*"
    if recall and rule.strip() == "shared":
        return SHARED
    field, sep, pattern = rule.partition("=")
    if not sep or field.strip() not in FIELDS or not pattern.strip():
        raise AlayaError("bad_scope", f"{where}: '{rule}' is not a scope; write *, agent=NAME, channel=NAME or "
                                      "project=NAME" + (", or shared" if recall else ""))
    return field.strip(), pattern.strip()


def share_mark(metadata: dict) -> str | None:
    """What a session says of itself: its ``metadata.share``, else ``shared`` when it was pulled from another
    machine (``metadata.origin``), else nothing (the share rules decide). The graph keeps it on the Session node, so
    a recall scoped to ``shared`` needs no session file."""
    if metadata.get("share") in ("private", "shared"):
        return metadata["share"]
    return "shared" if metadata.get("origin") else None


def matches(session: dict, rule: tuple[str, str]) -> bool:
    """Whether ``session`` (its stored JSON, or its graph row: both have ``agent`` and ``channel``) is in scope."""
    field, pattern = rule
    return field == "*" or fnmatchcase(str(session.get("channel" if field == "project" else field) or ""), pattern)


class SharePolicy:
    def __init__(self, share: dict):
        self.include = [parse_rule(rule, "config.json share.include") for rule in share["include"]]
        self.exclude = [parse_rule(rule, "config.json share.exclude") for rule in share["exclude"]]

    def shared(self, document: dict) -> bool:
        """Whether the session (its stored JSON) may leave this machine."""
        metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
        return self.shared_by(document, metadata["share"] if metadata.get("share") in ("private", "shared") else None)

    def shared_by(self, session: dict, mark: str | None) -> bool:
        """Whether a session with this ``agent``/``channel`` and :func:`share_mark` is shared."""
        if mark is not None:
            return mark == "shared"
        return any(matches(session, rule) for rule in self.include) and \
            not any(matches(session, rule) for rule in self.exclude)
