"""The secret masker: what a pushed copy of a session hides, so that no key or password leaves the machine.

Each rule finds one kind of secret and names the part of the match to hide (the whole token, or only the value
after ``PASSWORD=`` or inside ``user:pass@``); a hidden part becomes ``[MASKED:<kind>]``. Provider formats come
first (they are exact), then keys and passwords named as such, then long random-looking strings next to words like
key, token or secret. Hashes, commit ids and UUIDs stand next to no such word, and a value that is only hex or only
digits is never taken for a secret on its word alone (``cache key: <sha256>`` stays), which is what keeps false
masks rare. Measured on ``tests/fixtures/secrets.jsonl`` (``tests/test_sync_mask.py``, ``python -m bench --only
team_sync``). Only the pushed copy is masked: the local L3 keeps the original.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

_WORD = (r"(?:api[_ -]?key|apikey|secret|token|passw(?:or)?d|pwd|passphrase|credentials?|auth|access[_-]?key|"
         r"private[_-]?key|client[_-]?secret|bearer)")


@dataclass(frozen=True)
class Rule:
    kind: str
    pattern: re.Pattern
    group: int = 0
    """Which group of the match is the secret (0: all of it)."""
    accept: Callable[[str], bool] | None = None
    """A last check of the secret itself (the high-entropy rules)."""


def _random_looking(value: str) -> bool:
    """Long enough, mixed, and not a hash, number or word: what a generated key looks like."""
    if len(value) < 16 or re.fullmatch(r"[0-9a-fA-F-]+|[0-9]+|[A-Za-z]+|[a-z_]+|[A-Z_]+|[A-Za-z_]+(?:\.[A-Za-z_]+)+",
                                       value):
        return False
    return entropy(value) >= 3.2


def _assigned_value(value: str) -> bool:
    """A value given to a name like ``DB_PASSWORD``: anything but a number, hex digest or reference to a variable."""
    return not re.fullmatch(r"[0-9.]+|[0-9a-fA-F]{32,}|\$\{?\w+\}?|<[^>]*>|\*+|x+|null|none|true|false|changeme"
                            r"|redacted|\[?masked.*", value, re.IGNORECASE)


RULES: tuple[Rule, ...] = (
    Rule("private_key", re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
                                   r"(?:[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)")),
    Rule("anthropic_key", re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}")),
    Rule("openai_key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}")),
    Rule("github_token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})")),
    Rule("aws_access_key", re.compile(r"\b(?:AKIA|ASIA|AGPA|AROA)[A-Z0-9]{16}\b")),
    Rule("slack_token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}|https://hooks\.slack\.com/services/[A-Za-z0-9/]+")),
    Rule("stripe_key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    Rule("google_api_key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}")),
    Rule("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    Rule("url_password", re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@\"']+:([^\s@/\"']+)@"), group=1),
    Rule("assigned_secret", re.compile(r"(?i)\b[A-Za-z0-9_.-]*" + _WORD + r"[A-Za-z0-9_.-]*\"?\s*(?::=|=|:)\s*"
                                       r"[\"']?([^\s\"',;]{6,})"), group=1, accept=_assigned_value),
    Rule("bearer_token", re.compile(r"(?i)\b(?:bearer|token)\s+([A-Za-z0-9._~+/=-]{16,})"), group=1,
         accept=_random_looking),
    Rule("high_entropy_near_keyword", re.compile(r"(?i)" + _WORD + r"\w*\W{1,12}(?:\w+\W{1,3}){0,4}?"
                                                 r"([A-Za-z0-9+/_=.-]{16,})"), group=1, accept=_random_looking),
)


@dataclass(frozen=True)
class Finding:
    kind: str
    where: str
    """The field it was found in (``turns[3].content``) and the character offset there."""
    offset: int
    length: int

    def to_json(self) -> dict:
        return {"kind": self.kind, "where": self.where, "offset": self.offset, "length": self.length}


def entropy(text: str) -> float:
    """Shannon entropy in bits per character."""
    counts = Counter(text)
    return -sum(n / len(text) * math.log2(n / len(text)) for n in counts.values())


def mask_text(text: str, where: str = "") -> tuple[str, list[Finding]]:
    """``text`` with every secret replaced by ``[MASKED:<kind>]``, and what was hidden (never the secret)."""
    spans: list[tuple[int, int, str]] = []
    for rule in RULES:
        for match in rule.pattern.finditer(text):
            start, end = match.span(rule.group)
            if start < 0 or any(start < taken_end and taken_start < end for taken_start, taken_end, _ in spans):
                continue
            if rule.accept is not None and not rule.accept(match.group(rule.group)):
                continue
            spans.append((start, end, rule.kind))
    if not spans:
        return text, []
    spans.sort()
    pieces, last = [], 0
    for start, end, kind in spans:
        pieces += [text[last:start], f"[MASKED:{kind}]"]
        last = end
    pieces.append(text[last:])
    return "".join(pieces), [Finding(kind, where, start, end - start) for start, end, kind in spans]


def mask_document(document, where: str = "") -> tuple[object, list[Finding]]:
    """Every string of a JSON document masked (keys kept), with the findings named by their JSON path."""
    if isinstance(document, str):
        return mask_text(document, where)
    findings: list[Finding] = []
    if isinstance(document, dict):
        masked = {}
        for key, value in document.items():
            masked[key], found = mask_document(value, f"{where}.{key}" if where else str(key))
            findings += found
        return masked, findings
    if isinstance(document, list):
        masked_list = []
        for position, value in enumerate(document):
            item, found = mask_document(value, f"{where}[{position}]")
            masked_list.append(item)
            findings += found
        return masked_list, findings
    return document, findings
