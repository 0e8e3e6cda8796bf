"""``agentset_entities``: the rows' own code on two hand-made sessions linked through one host, in a real store."""

from __future__ import annotations

from conftest import write_session

from bench.agentset_entities import entity_rows
from bench.agentset_store import build
from bench.quality.agentset import Agentset
from bench.quality.records import Haystack, Question, read_turns

TURNS = {
    "s-first": ["Why do orders-api requests time out?",
                "The cause is the pgbouncer on pg-main-02: its pool is exhausted by the billing reconciliation job.",
                "I decided to move the reconciliation job to 02:00 UTC from now on."],
    "s-later": ["Heads-up: pg-main-02 is decommissioned on Feb 20.",
                "Noted: every client of pg-main-02 must move to pg-main-04 before Feb 20, we decided.",
                "ok thanks"],
    "s-other": ["Which swim club does Maya go to?", "Maya goes to the Riverside swim club on Tuesdays.", "thanks"],
}


def test_multi_hop_sessions_joined_through_a_host_are_counted_with_the_entity_named(home, tmp_path):
    paths = [write_session(tmp_path / "in", session_id, timestamp=1770000000000 + 86400000 * day,
                           turns=[{"role": "user" if index % 2 == 0 else "assistant", "content": text}
                                  for index, text in enumerate(turns)])
             for day, (session_id, turns) in enumerate(TURNS.items())]
    joined = Question("q-joined", "Does orders-api need a change for the Feb 20 work?", ("multi-hop", "all"),
                      frozenset({("s-first", 1), ("s-later", 1)}))
    apart = Question("q-apart", "Does Maya's club affect orders-api?", ("multi-hop", "all"),
                     frozenset({("s-first", 1), ("s-other", 1)}))
    dataset = Agentset(Haystack("hand-made", paths, read_turns(paths), [joined, apart]), [], [])
    build(home, dataset)
    rows = {row.metric: row for row in entity_rows(dataset, home)}
    sessions = rows["agentset multi-hop: the two sessions share an entity"]
    evidence = rows["agentset multi-hop: the evidence cards share an entity"]
    assert sessions.value == 0.5 and evidence.value == 0.5
    assert "q-joined: pg-main-02" in evidence.note and "q-apart: -" in evidence.note
    assert rows["agentset: entities"].value >= 3 and "host" in rows["agentset: entities"].note
