"""Entities on agentset: how many the cards mention, of which kinds, and whether they join what multi-hop questions
need joined.

Each multi-hop question's evidence lies in two sessions linked through one thing (a host, a person, a library, a
clinic) that the later session never restates as a link. Read back from the agentset store
(:mod:`bench.agentset_store`):

- the share of multi-hop questions whose two evidence sessions have an entity in common (a card of each mentions
  it), and, stricter, whose evidence cards do (cards sharing a turn with the question's evidence, one in each
  session), with the entities that join them in the note;
- for scale: entities, ``MENTIONS`` edges and entities per kind; and what share of all session pairs share some
  entity (a join that every pair has tells nothing).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

from alaya_engine.engine import Engine

from .agentset_store import agentset_store, dataset_for
from .plan import Plan
from .quality.agentset import Agentset
from .quality.alaya import UnitMapper
from .report import Row

NAME = "agentset_entities"
MULTI_HOP = "multi-hop"


def run(plan: Plan) -> list[Row]:
    dataset = dataset_for(plan, NAME)
    if isinstance(dataset, Row):
        return [dataset]
    with agentset_store(plan, dataset) as (home, _built):
        return entity_rows(dataset, home)


def entity_rows(dataset: Agentset, home: Path) -> list[Row]:
    card_turns = UnitMapper(home, dataset.haystack.turns).all_cards()
    with Engine.open(home).step() as graph:
        edges = graph.query("MATCH (c:Card)-[:MENTIONS]->(e:Entity) RETURN c.id, e.id, e.name")
        counts = graph.entity_counts()
    names = {entity: name for _, entity, name in edges}
    by_card: dict[str, set[str]] = {}
    for card_id, entity, _ in edges:
        by_card.setdefault(card_id, set()).add(entity)
    by_session: dict[str, set[str]] = {}
    for card_id, turns in card_turns.items():
        for session, _ in turns:
            by_session.setdefault(session, set()).update(by_card.get(card_id, ()))
    questions = [question for question in dataset.haystack.questions if MULTI_HOP in question.groups]
    joined_sessions, joined_evidence, notes = 0, 0, []
    for question in questions:
        sessions = sorted({session for session, _ in question.evidence})
        if len(sessions) < 2:
            continue
        first, second = sessions[:2]
        shared = by_session.get(first, set()) & by_session.get(second, set())
        evidence = [set().union(*(by_card.get(card_id, set()) for card_id, turns in card_turns.items()
                                  if turns & {key for key in question.evidence if key[0] == session}))
                    for session in (first, second)]
        strict = evidence[0] & evidence[1]
        joined_sessions += bool(shared)
        joined_evidence += bool(strict)
        notes.append(f"{question.qid}: {', '.join(sorted(names[entity] for entity in strict)) or '-'}")
    pairs = list(combinations(sorted(by_session), 2))
    any_pair = sum(bool(by_session[a] & by_session[b]) for a, b in pairs)
    total = max(1, len(questions))
    kinds = ", ".join(f"{kind} {count}" for kind, count in counts["by_kind"].items() if count)
    return [
        Row(NAME, "agentset: entities", sum(counts["by_kind"].values()), "count", kinds),
        Row(NAME, "agentset: MENTIONS edges", counts["mentions"], "count",
            f"{counts['mentions'] / max(1, len(by_card)):.1f} a card with any, {len(by_card)} cards"),
        Row(NAME, "agentset multi-hop: the two sessions share an entity", joined_sessions / total, "fraction",
            f"{joined_sessions} of {len(questions)}; any two sessions do in {any_pair} of {len(pairs)} pairs"),
        Row(NAME, "agentset multi-hop: the evidence cards share an entity", joined_evidence / total, "fraction",
            f"{joined_evidence} of {len(questions)}: " + "; ".join(notes)),
    ]
