"""The domain: plain dataclasses that serialise to the JSON the CLI prints.

A :class:`Session` is the normalised form of every accepted input;
``to_json`` is the exact document stored in L3, so its hash identifies content.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from typing import Any

DETAILS_LABELS = ("Details", "细节")
"""How a card's content names the paragraph of supporting details: the figures said around its point."""
DETAILS = re.compile(r"\n\n\*\*(?:" + "|".join(DETAILS_LABELS) + r"):\*\*[^\n]*")

CARD_TYPES = ("concept", "pattern", "gotcha", "decision")
TIERS = ("HOT", "WARM", "COLD")
"""Temperature tiers, hottest first."""

@dataclass
class Turn:
    role: str
    content: str
    timestamp: int | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    tool_name: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)
    """Keys a source carries beyond the standard ones (e.g. LoCoMo's ``speaker``, ``dia_id``), kept verbatim."""

    def to_json(self) -> dict[str, Any]:
        document: dict[str, Any] = {**self.extra, "role": self.role, "content": self.content,
                                    "timestamp": self.timestamp}
        if self.tool_calls:
            document["tool_calls"] = self.tool_calls
        if self.tool_name:
            document["tool_name"] = self.tool_name
        return document


@dataclass
class Session:
    id: str
    timestamp: int
    """Milliseconds since the epoch, UTC."""
    turns: list[Turn]
    channel: str = "unknown"
    agent: str = "main"
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "timestamp": self.timestamp,
            "channel": self.channel,
            "agent": self.agent,
            "turns": [turn.to_json() for turn in self.turns],
            "metadata": self.metadata,
        }

    def content_hash(self) -> str:
        canonical = json.dumps(self.to_json(), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    @property
    def started_at(self) -> datetime:
        return datetime.fromtimestamp(self.timestamp / 1000, tz=timezone.utc)

    @property
    def tokens(self) -> int:
        return int(self.metadata.get("tokens") or estimate_tokens(" ".join(t.content for t in self.turns)))

    @property
    def duration_ms(self) -> int:
        return int(self.metadata.get("duration_ms") or 0)

    @property
    def summary(self) -> str:
        """The first thing the user said, cut to 200 characters: what a session list shows."""
        first = next((t.content for t in self.turns if t.role == "user" and t.content.strip()), "")
        return first.strip()[:200]


def estimate_tokens(text: str) -> int:
    """Rough token count without a tokenizer: CJK characters count one each, other text ~4 chars a token."""
    cjk = sum(1 for ch in text if "\u3400" <= ch <= "\u9fff")
    return cjk + (len(text) - cjk) // 4


@dataclass
class IngestOutcome:
    """What happened to one input of ``alaya ingest``."""

    source: str
    status: str
    """``ingested``, ``replaced``, ``unchanged`` or ``refused``."""
    session_id: str | None = None
    path: str | None = None
    turns: int = 0
    tokens: int = 0
    duration_ms: int = 0
    channel: str | None = None
    error: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class IngestReport:
    outcomes: list[IngestOutcome]

    def count(self, status: str) -> int:
        return sum(1 for outcome in self.outcomes if outcome.status == status)

    @property
    def refused(self) -> int:
        return self.count("refused")

    def to_json(self) -> dict[str, Any]:
        return {
            "ingested": self.count("ingested"),
            "replaced": self.count("replaced"),
            "unchanged": self.count("unchanged"),
            "refused": self.refused,
            "files": [outcome.to_json() for outcome in self.outcomes],
        }

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "IngestReport":
        return cls([from_fields(IngestOutcome, outcome) for outcome in document["files"]])


@dataclass
class InitReport:
    home: str
    created: bool
    """False when the home was already initialised and nothing changed."""
    steps: list[str]
    graph_engine: str
    embedding: str
    dimension: int

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Fact:
    """One attribute a card states, as data: ``subject``'s ``attribute`` is ``value`` from ``valid_from`` on.

    The card's text says it for people; the fact says it for code, so a later card giving the same subject and
    attribute a new value can be recognised as an update of this one.
    """

    subject: str
    attribute: str
    value: str
    valid_from: int
    """When the value took effect, ms since the epoch (UTC): a date the session names, else when it was said."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    def describe(self) -> str:
        """One line for people, as ``alaya trace`` and the explorer show it: ``api-gateway · read timeout = 90 s
        (since 2025-12-02)``."""
        since = datetime.fromtimestamp(self.valid_from / 1000, timezone.utc).date().isoformat()
        return f"{self.subject} · {self.attribute} = {self.value} (since {since})"

    def key(self) -> tuple[str, str]:
        """What an update shares with the fact it replaces: the subject and attribute, case and spacing folded."""
        return " ".join(self.subject.casefold().split()), " ".join(self.attribute.casefold().split())

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "Fact":
        return from_fields(cls, document)


def latest_facts(facts: list[Fact]) -> list[Fact]:
    """One fact per subject and attribute, the one taking effect last (what a merged card states)."""
    latest: dict[tuple[str, str], Fact] = {}
    for fact in facts:
        if fact.key() not in latest or fact.valid_from > latest[fact.key()].valid_from:
            latest[fact.key()] = fact
    return list(latest.values())


@dataclass
class Card:
    """A knowledge card; ``source`` says where it came from: distill, memex, manual."""

    id: str
    title: str
    content: str
    type: str
    tags: list[str]
    importance: float
    source_sessions: list[str]
    created_at: int
    """Milliseconds since the epoch, UTC, like every time in L3."""
    updated_at: int
    temperature: float = 1.0
    tier: str = "HOT"
    source: str = "distill"
    facts: list[Fact] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "Card":
        card = from_fields(cls, document)
        card.facts = [Fact.from_json(fact) for fact in document.get("facts") or []]
        return card

    def embedding_text(self) -> str:
        """What gets embedded: the title and the content, without its supporting details (``DETAILS``): the
        vector says the card's point, so one point said in two sessions stays a near-duplicate to merge however
        different the figures around it; full-text search still finds the details' words."""
        return f"{self.title}\n{DETAILS.sub('', self.content)}"

    def content_hash(self) -> str:
        return hashlib.sha256(self.embedding_text().encode("utf-8")).hexdigest()

    def search_text(self) -> str:
        """What full-text search indexes: title, tags and content, so exact identifiers are found."""
        return "\n".join([self.title, " ".join(self.tags), self.content])


@dataclass
class Link:
    """A typed edge: card → card, or card → session for ``EXTRACTED_FROM``."""

    source: str
    target: str
    relation: str
    weight: float = 1.0
    reason: str = ""
    created_at: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        """What makes an edge one edge: its ends and its relation (weight and reason are properties of it)."""
        return self.source, self.target, self.relation

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "Link":
        return from_fields(cls, document)


@dataclass
class LinkReport:
    """What ``alaya link`` did: the edges it wrote (both directions of a symmetric relation)."""

    links: list[Link]
    created: bool
    """False when the edge was there already (it is kept, as a link made by hand)."""
    new_relation: bool
    """The relation name is new to this store."""

    def to_json(self) -> dict[str, Any]:
        return {"links": [link.to_json() for link in self.links], "created": self.created,
                "new_relation": self.new_relation}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "LinkReport":
        return cls([Link.from_json(link) for link in document["links"]], document["created"],
                   document["new_relation"])


@dataclass
class UnlinkReport:
    """What ``alaya unlink`` did: the edges it removed (both directions of a symmetric or inverse pair)."""

    links: list[Link]
    removed: bool
    """False when the cards were not linked so (nothing was written)."""

    def to_json(self) -> dict[str, Any]:
        return {"links": [link.to_json() for link in self.links], "removed": self.removed}

    @classmethod
    def from_json(cls, document: dict[str, Any]) -> "UnlinkReport":
        return cls([Link.from_json(link) for link in document["links"]], document["removed"])


def card_id_for(session_id: str, title: str) -> str:
    """Deterministic, so re-running a distillation that crashed half-way never duplicates a card."""
    digest = hashlib.sha256(f"{session_id}\0{title}".encode("utf-8")).hexdigest()
    return f"card-{digest[:16]}"


def millis_now() -> int:
    return int(datetime.now(timezone.utc).timestamp() * 1000)


def from_fields(cls: type, document: dict[str, Any]):
    """A dataclass from its ``to_json`` document: the fields it has (what a newer server added is left out)."""
    return cls(**{key: document[key] for key in cls.__dataclass_fields__ if key in document})
