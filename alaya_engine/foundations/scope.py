"""Scopes: which sessions a rule names, for what a push shares and what a recall may return.

A rule is ``*``, or ``agent=NAME``, ``channel=NAME`` or ``project=NAME`` (another name for the channel: OpenClaw
and the coding agents put the project there), NAME a shell-style pattern (``agent=review-*``). A session's
``metadata.share`` (``"private"`` or ``"shared"``) wins over the ``share`` rules of config.json; otherwise it is
shared when a rule of ``share.include`` matches it and none of ``share.exclude`` does. ``recall --scope`` keeps the
cards and raw turns of sessions any of its rules match.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from .errors import AlayaError

FIELDS = ("agent", "channel", "project")


def parse_rule(rule: str, where: str) -> tuple[str, str]:
    """``agent=NAME`` → ("agent", "NAME"); ``*`` → ("*", "*")."""
    if rule.strip() == "*":
        return "*", "*"
    field, sep, pattern = rule.partition("=")
    if not sep or field.strip() not in FIELDS or not pattern.strip():
        raise AlayaError("bad_scope", f"{where}: '{rule}' is not a scope; write *, agent=NAME, channel=NAME or "
                                      "project=NAME")
    return field.strip(), pattern.strip()


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
        if metadata.get("share") in ("private", "shared"):
            return metadata["share"] == "shared"
        return any(matches(document, rule) for rule in self.include) and \
            not any(matches(document, rule) for rule in self.exclude)
