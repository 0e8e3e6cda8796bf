"""The graph-store contract, run against every installed engine.

LadybugDB and Kuzu cannot share a process, so this module runs in-process
against ``$ALAYA_GRAPH_ENGINE`` (default ladybug), and one test re-runs the
whole module in a child process for each other installed engine.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from alaya_engine.foundations.domain import Link, Session, Turn
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.foundations.relations import CORE_RELATIONS
from alaya_engine.graph.engines import available_engines
from alaya_engine.graph.store import GraphStore

ENGINE = os.environ.get("ALAYA_GRAPH_ENGINE", "ladybug")


@pytest.fixture
def graph(tmp_path):
    store = GraphStore(tmp_path / "graph.db", ENGINE)
    store.create_schema()
    yield store
    store.close()


def make_session(session_id: str, timestamp: int) -> Session:
    return Session(id=session_id, timestamp=timestamp, channel="cli",
                   turns=[Turn(role="user", content="deploy the api"), Turn(role="assistant", content="done")])


def test_schema_has_every_core_relation_and_custom(graph):
    tables = {row[0] for row in graph.query("CALL show_tables() RETURN name")}
    assert {"Card", "Session", "CUSTOM", *CORE_RELATIONS} <= tables
    graph.create_schema()


def test_session_upsert_is_idempotent_and_updates(graph):
    graph.upsert_session(make_session("s1", 1774938540000), "hash-1", "raw/sessions/2026-03/session-s1.json")
    graph.upsert_session(make_session("s1", 1774938540000), "hash-2", "raw/sessions/2026-03/session-s1.json")
    assert graph.session_hash("s1") == "hash-2"
    rows = graph.query("MATCH (s:Session) RETURN s.id, s.summary, s.turns, s.timestamp")
    assert len(rows) == 1 and rows[0][1] == "deploy the api" and rows[0][2] == 2
    assert rows[0][3].tzinfo is None and rows[0][3].isoformat() == "2026-03-31T06:29:00"


def test_counts_cover_cards_links_and_custom_relations(graph):
    graph.upsert_session(make_session("s1", 1774938540000), "h", "p")
    graph.upsert_session(make_session("s2", 1775050000000), "h", "p")
    for card_id, card_type in (("c1", "gotcha"), ("c2", "pattern"), ("c3", "gotcha")):
        graph.query("MERGE (c:Card {id: $id}) SET c.type = $type", {"id": card_id, "type": card_type})
    graph.query("MATCH (a:Card {id: 'c1'}), (b:Card {id: 'c2'}) CREATE (a)-[:CAUSED_BY {weight: 1.0}]->(b)")
    graph.query("MATCH (a:Card {id: 'c2'}), (b:Card {id: 'c3'}) CREATE (a)-[:CUSTOM {type: 'LED_TO'}]->(b)")
    graph.query("MATCH (a:Card {id: 'c1'}), (s:Session {id: 's1'}) CREATE (a)-[:EXTRACTED_FROM]->(s)")
    counts = graph.counts()
    assert counts["cards"] == 3 and counts["cards_by_type"] == {"concept": 0, "pattern": 1, "gotcha": 2, "decision": 0}
    assert counts["links"] == 3
    assert counts["links_by_relation"]["CAUSED_BY"] == 1 and counts["links_by_relation"]["LED_TO"] == 1
    assert counts["links_by_relation"]["EXTRACTED_FROM"] == 1
    assert counts["sessions"] == 2 and counts["oldest_session"] < counts["newest_session"]


def test_counts_are_read_again_after_every_write_and_a_caller_may_change_its_copy(graph):
    graph.query("MERGE (c:Card {id: 'c1'}) SET c.type = 'gotcha'")
    first = graph.counts()
    first["cards_by_type"]["gotcha"] = 99
    first.pop("links_by_relation")
    assert graph.counts()["cards_by_type"]["gotcha"] == 1 and "links_by_relation" in graph.counts()
    graph.query("MERGE (c:Card {id: 'c2'}) SET c.type = 'gotcha'")
    assert graph.counts()["cards_by_type"]["gotcha"] == 2
    with graph.transaction():
        graph.query("MERGE (c:Card {id: 'c3'}) SET c.type = 'pattern'")
        assert graph.counts()["cards"] == 3
    assert graph.counts()["cards"] == 3 and graph.sessions_without_cards() == []
    reader = graph.reader()
    try:
        graph.query("MATCH (c:Card {id: 'c3'}) DETACH DELETE c")
        assert reader.counts()["cards"] == graph.counts()["cards"] == 2
    finally:
        reader.close()


def test_supersessions_are_remembered_until_the_next_write(graph):
    """Recall asks for them every time the snapshot is stale (a query over every card: 58 ms at a million)."""
    for card_id, session in (("old", "s1"), ("new", "s2"), ("newer", "s3")):
        graph.query("MERGE (c:Card {id: $id}) SET c.source_sessions = [$session]", {"id": card_id, "session": session})
    assert graph.supersessions() == {}
    graph.query("MATCH (a:Card {id: 'old'}), (b:Card {id: 'new'}) CREATE (a)-[:SUPERSEDED_BY]->(b)")
    assert graph.supersessions() == {"old": (("s1",), ["new"])}
    graph.supersessions()["old"][1].append("changed by a caller")
    graph.query("MATCH (a:Card {id: 'new'}), (b:Card {id: 'newer'}) CREATE (a)-[:SUPERSEDED_BY]->(b)")
    assert graph.supersessions() == {"old": (("s1",), ["new"]), "new": (("s2",), ["newer"])}


def test_heat_is_set_in_arrow_batches_and_read_back_as_arrow(graph):
    for card_id in ("c1", "c2", "c3"):
        graph.query("MERGE (c:Card {id: $id}) SET c.temperature = 1.0, c.tier = 'HOT'", {"id": card_id})
    graph.set_heat_columns(["c1", "gone"], [0.25, 0.5], ["COLD", "WARM"])
    graph.set_heat_columns(["c2", "c3"], [0.5, 0.75], ["WARM", "HOT"], batch=1)
    table = graph.query_arrow("MATCH (c:Card) RETURN c.id, c.temperature, c.tier ORDER BY c.id")
    assert [tuple(row.values()) for row in table.to_pylist()] == [("c1", 0.25, "COLD"), ("c2", 0.5, "WARM"),
                                                                  ("c3", 0.75, "HOT")]


def test_links_merged_in_batches_land_as_one_by_one_and_the_last_repeat_wins(graph):
    graph.upsert_session(make_session("s1", 1774938540000), "h", "p")
    for card_id in ("c1", "c2", "c3"):
        graph.query("MERGE (c:Card {id: $id})", {"id": card_id})
    links = [Link("c1", "c2", "CAUSED_BY", 0.5, "first", 0), Link("c2", "c3", "LED_TO", 0.7, "custom", 0),
             Link("c1", "s1", "EXTRACTED_FROM", 1.0, "", 0), Link("c1", "c2", "CAUSED_BY", 0.9, "second", 0),
             Link("c1", "gone", "SIMILAR_TO", 0.8, "unknown end", 0)]
    graph.merge_links(links)
    graph.merge_links(links)
    assert sorted((link.source, link.relation, link.target, link.weight, link.reason) for link in graph.all_links()) \
        == [("c1", "CAUSED_BY", "c2", 0.9, "second"), ("c1", "EXTRACTED_FROM", "s1", 1.0, ""),
            ("c2", "LED_TO", "c3", 0.7, "custom")]
    graph.mark_distilled([("s1", "h", 1774938600000)])
    assert graph.sessions_for_distill() == [("s1", "h", "h")]


def test_a_transaction_commits_all_of_its_statements_or_none(graph):
    for card_id in ("c1", "c2"):
        graph.query("MERGE (c:Card {id: $id})", {"id": card_id})
    with pytest.raises(ValueError), graph.transaction():
        graph.merge_link(Link("c1", "c2", "DEPENDS_ON", 1.0, "", 0))
        raise ValueError("interrupted")
    assert graph.all_links() == []
    with graph.transaction():
        graph.merge_link(Link("c1", "c2", "DEPENDS_ON", 1.0, "", 0))
    assert [link.key for link in graph.all_links()] == [("c1", "c2", "DEPENDS_ON")]


def test_a_second_opener_in_one_process_is_refused(graph, tmp_path):
    with pytest.raises(AlayaError) as caught:
        GraphStore(tmp_path / "graph.db", ENGINE)
    assert caught.value.code == "graph_already_open"


@pytest.mark.slow
@pytest.mark.parametrize("engine", [name for name in available_engines() if name != ENGINE])
def test_contract_holds_on_other_engines(engine):
    """The other engine's databases are made in memory-backed files where the machine has them (``/dev/shm``): the
    same files and calls, without waiting out Kuzu's many flushes to disk behind the other tests' writes (1 s of
    tests took 5-31 s of the suite)."""
    in_memory = {"TMPDIR": "/dev/shm"} if os.access("/dev/shm", os.W_OK) else {}
    child = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider", __file__,
         "-k", "not other_engines"],
        env={**os.environ, "ALAYA_GRAPH_ENGINE": engine, **in_memory}, capture_output=True, text=True, timeout=300,
    )
    assert child.returncode == 0, child.stdout[-2000:]
    others = [name for name in globals() if name.startswith("test_") and name != "test_contract_holds_on_other_engines"]
    assert f"{len(others)} passed" in child.stdout
