"""A small, fully deterministic store for the explorer's Tiers and Review tests.

Fixed ids, times and vectors, so consolidate proposes exactly one suggestion of each kind (two ``similar_to``),
and every figure on the Tiers screen is known in advance:

- ``restart`` ≈ ``restart-dup`` (cosine 0.97): a card merge; ``config`` depends on the duplicate, which is caused
  by ``allow``, so approving the merge has edges to re-point;
- ``nginx-504`` ~ ``nginx-502`` and ``launchd`` ~ ``systemd`` (0.8, no edge): ``similar_to``;
  ``allow`` ~ ``plugins`` (0.8) are already linked, so nothing is proposed for them;
- ``INSPIRED_BY`` ≈ ``INFLUENCED_BY`` (0.95): a relation merge; ``RELATES_TO`` is vague: a split;
  ``LED_TO`` is used 101 times: a promotion;
- tiers: six HOT, two WARM, two COLD cards (COLD cards keep their vectors as 8-bit codes).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Card, Link

SIZE = (120, 36)
"""The terminal size of every explorer test here (and of the snapshots)."""

DIM = 512
CREATED = 1_774_938_540_000
"""2026-03-31 06:29 UTC, the creation time of every card; also the time consolidate runs at."""


def unit(*weights: tuple[int, float]) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    for index, weight in weights:
        vector[index] = weight
    return vector / np.linalg.norm(vector)


CARDS = [
    # id, title, type, importance, tier, temperature, content, vector
    ("card-restart", "Gateway restart drops queued Telegram messages", "gotcha", 0.9, "HOT", 0.95,
     "**Problem:** after `openclaw gateway restart` the messages that arrived during the restart are lost.\n\n"
     "**Cause:** the Telegram plugin acknowledges updates before the gateway has persisted them.\n\n"
     "**Fix:** drain the queue first: `openclaw gateway stop --drain`, then start it again.",
     unit((0, 1.0))),
    ("card-restart-dup", "Telegram messages lost after a gateway restart", "gotcha", 0.4, "HOT", 0.85,
     "Messages sent while the gateway restarts never arrive.", unit((0, 1.0), (1, 0.25))),
    ("card-nginx-504", "nginx 504 on /v1/export: proxy_read_timeout is 60 s", "gotcha", 0.7, "HOT", 0.92,
     "`/v1/export` runs longer than nginx's default `proxy_read_timeout` (60 s): raise it for that location.",
     unit((2, 1.0))),
    ("card-nginx-502", "nginx 502s come from upstream keepalive races", "gotcha", 0.6, "HOT", 0.74,
     "Random 502s with `upstream prematurely closed connection`: keep `keepalive_timeout` upstream longer "
     "than nginx's.", unit((2, 1.0), (3, 0.75))),
    ("card-launchd", "Run the gateway under launchd with KeepAlive", "decision", 0.6, "HOT", 0.78,
     "On macOS the gateway runs as a LaunchAgent with `KeepAlive` so it comes back after a crash.",
     unit((6, 1.0))),
    ("card-systemd", "Run the gateway under systemd with Restart=always", "decision", 0.6, "HOT", 0.71,
     "On Linux the gateway is a systemd user unit with `Restart=always`.", unit((6, 1.0), (7, 0.75))),
    ("card-allow", "plugins.allow must list telegram", "pattern", 0.8, "WARM", 0.55,
     "A channel plugin loads only when `plugins.allow` in `gateway.json` lists it.", unit((4, 1.0))),
    ("card-plugins", "Channel plugins are opt-in", "concept", 0.5, "WARM", 0.42,
     "The gateway loads no channel plugin unless it is allowed explicitly.", unit((4, 1.0), (5, 0.75))),
    ("card-config", "Gateway settings live in ~/.openclaw/gateway.json", "concept", 0.5, "COLD", 0.22,
     "One JSON file: plugins, ports, tokens.", None),
    ("card-pm2", "The gateway used to run under pm2", "decision", 0.2, "COLD", 0.05,
     "Replaced by launchd and systemd units in March.", None),
]

EDGES = [
    ("card-allow", "SIMILAR_TO", "card-plugins"),
    ("card-config", "DEPENDS_ON", "card-restart-dup"),
    ("card-restart-dup", "CAUSED_BY", "card-allow"),
    ("card-config", "INSPIRED_BY", "card-nginx-504"),
    ("card-allow", "INFLUENCED_BY", "card-plugins"),
    ("card-config", "RELATES_TO", "card-restart"),
]
CUSTOM_RELATIONS = ["INSPIRED_BY", "INFLUENCED_BY", "RELATES_TO", "LED_TO"]
LED_TO_USES = 101


def build_review_store(home: Path) -> None:
    """Fill an initialised, empty ``home`` and run consolidate once (at a fixed time)."""
    engine = Engine.open(home)
    cards = [Card(id=card_id, title=title, content=content, type=kind, tags=[card_id.removeprefix("card-")],
                  importance=importance, source_sessions=[], created_at=CREATED, updated_at=CREATED,
                  temperature=temperature, tier=tier)
             for card_id, title, kind, importance, tier, temperature, content, _ in CARDS]
    with engine.hold() as graph:
        for card in cards:
            graph.upsert_card(card)
        for source, relation, target in EDGES:
            graph.merge_link(Link(source, target, relation, 1.0, "fixture", CREATED))
        for _ in range(LED_TO_USES):
            graph.query("MATCH (a:Card {id: 'card-pm2'}), (b:Card {id: 'card-launchd'}) "
                        "CREATE (a)-[:CUSTOM {type: 'LED_TO'}]->(b)")
    vectors = engine.vectors()
    filler = unit((99, 1.0))
    vectors.upsert_cards(cards, np.vstack([vector if vector is not None else filler for *_, vector in CARDS]))
    vectors.archive_vectors([card.id for card in cards if card.tier == "COLD"])
    vectors.upsert_relations(CUSTOM_RELATIONS, np.vstack([unit((100, 1.0)), unit((100, 1.0), (101, 0.3)),
                                                          unit((102, 1.0)), unit((103, 1.0))]),
                             is_core=False, examples=[[], [], [], []])
    vectors.refresh_full_text_index()
    engine.introspect(["consolidate"], now=CREATED)


def review_fixtures():
    """``review_template`` (built once per test module) and ``review_home`` (a fresh copy per test)."""

    @pytest.fixture(scope="module")
    def review_template(template_home, tmp_path_factory) -> Path:
        home = tmp_path_factory.mktemp("review") / "home"
        shutil.copytree(template_home, home)
        build_review_store(home)
        return home

    @pytest.fixture
    def review_home(review_template, tmp_path) -> Path:
        target = tmp_path / "review-home"
        shutil.copytree(review_template, target)
        return target

    return review_template, review_home


async def settle(app, pilot, rounds: int = 3) -> None:
    """Let every worker finish and the screen catch up (workers may start more workers)."""
    for _ in range(rounds):
        await app.workers.wait_for_complete()
        await pilot.pause()
