"""Which sessions are shared: a session says so itself, else the ``share`` rules of config.json decide.

A session's ``metadata.share`` (``"private"`` or ``"shared"``) wins; otherwise it is shared when a rule of
``share.include`` matches it and none of ``share.exclude`` does. A rule is ``*``, or ``agent=NAME``,
``channel=NAME`` or ``project=NAME`` (the session's ``metadata.project``, else its channel), NAME a shell-style
pattern (``agent=review-*``). Recall takes the same ``field=NAME`` form to stay within a scope.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from ..foundations.errors import AlayaError

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


def session_field(document: dict, field: str) -> str:
    metadata = document.get("metadata") if isinstance(document.get("metadata"), dict) else {}
    if field == "project":
        return str(metadata.get("project") or document.get("channel") or "")
    return str(document.get(field) or "")


def matches(document: dict, rule: tuple[str, str]) -> bool:
    field, pattern = rule
    return field == "*" or fnmatchcase(session_field(document, field), pattern)


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
