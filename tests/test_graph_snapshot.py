"""The resident graph snapshot: the database's answers from memory, fresh exactly while no write has finished."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

import alaya_engine
from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.graph import resident
from alaya_engine.graph import snapshot as snapshot_module
from alaya_engine.graph.snapshot import GraphSnapshot

QUESTIONS = [{"text": "plugins.allow"}, {"text": "docker container memory limit", "depth": 2, "max_results": 100},
             {"concepts": ["timeout"], "relations": ["CAUSED_BY"], "depth": 2},
             {"text": "连接池 配置", "depth": 3, "max_results": 100}]


def card_ids(engine: Engine) -> list[str]:
    with engine.step() as graph:
        return sorted(card.id for card in graph.all_cards())


def blocked_by(result) -> list[str]:
    """The cards a recall reached along the new ``BLOCKED_BY`` edge (a similar relation the start card already
    has, such as ``CAUSED_BY``, may bring more)."""
    return [node.card_id for node in result.nodes if node.matched_rel == "BLOCKED_BY"]


def link_every_kind(engine: Engine, ids: list[str]) -> None:
    """A causal edge (read backwards too), a custom one, a promoted one, a symmetric pair."""
    engine.link(ids[0], ids[1], "CAUSES", weight=0.4)
    engine.link(ids[1], ids[2], "LED_TO", new_relation=True)
    engine.link(ids[2], ids[3], "WORKAROUND_FOR", new_relation=True)
    engine.link(ids[3], ids[4], "CONTRADICTS")
    with engine.step() as graph:
        graph.promote_relation("WORKAROUND_FOR")


@contextmanager
def a_step_linking(engine: Engine, source: str, target: str) -> Iterator[threading.Thread]:
    """Another thread's step, held open once it has linked ``source`` BLOCKED_BY ``target``: a long job's."""
    stepping, done = threading.Event(), threading.Event()

    def long_step() -> None:
        with engine.step():
            engine.link(source, target, "BLOCKED_BY", new_relation=True)
            stepping.set()
            done.wait(30)

    worker = threading.Thread(target=long_step)
    worker.start()
    assert stepping.wait(30)
    try:
        yield worker
    finally:
        done.set()
        worker.join()


def without_timings(result) -> dict:
    document = result.to_json()
    document.pop("timings_ms")
    return document


@pytest.mark.parametrize("slice_cards", [100_000, 3])
def test_the_snapshot_answers_as_the_database_does(demo_home, monkeypatch, slice_cards):
    """Also read three cards at a time, as a store of a million cards is read (a slice per 100k)."""
    monkeypatch.setattr(snapshot_module, "SLICE_CARDS", slice_cards)
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    assert len(ids) > 2 * 3
    link_every_kind(engine, ids)
    with engine.hold() as graph:
        connection = graph.connect()
        try:
            snapshot = GraphSnapshot.read(connection, graph.generation, graph.card_contents)
            forgotten_since = GraphSnapshot.read(  # the first card gone from the database after the read
                connection, graph.generation, lambda wanted: graph.card_contents([i for i in wanted if i != ids[0]]))
        finally:
            connection.close()
        assert list(forgotten_since.cards(ids[:2])) == [ids[1]]
        assert list(forgotten_since.cards(ids[:2], content=False)) == ids[:2]
        asked = ids + ["no-such-card"]
        assert snapshot.card_count() == graph.card_count() == len(ids)
        assert snapshot.cards(asked) == graph.cards(asked)
        assert snapshot.cards(asked, content=False) == graph.cards(asked, content=False) == {
            card_id: {name: value for name, value in card.items() if name != "content"}
            for card_id, card in graph.cards(ids).items()}
        assert snapshot.card_types(asked) == graph.card_types(asked) == {
            card_id: card["type"] for card_id, card in graph.cards(ids).items()}
        mentioned = graph.card_entities(asked)
        assert snapshot.card_entities(asked) == mentioned and len(mentioned) > len(ids) // 2
        assert snapshot.card_entities(list(reversed(asked))) == mentioned
        for nothing_known in ([], ["no-such-card"]):
            assert snapshot.cards(nothing_known) == snapshot.card_types(nothing_known) == {}
            assert snapshot.card_entities(nothing_known) == {}
            assert snapshot.neighbours(nothing_known) == []
        edges = snapshot.neighbours(asked)
        assert sorted(edges) == sorted(graph.neighbours(asked))
        sessions = sorted(graph.source_sessions(ids)) + ["no-such-session"]
        times = snapshot.session_times(sessions)
        assert times == graph.session_times(sessions) and len(times) == len(sessions) - 1
        assert all(isinstance(when, int) and when > 1_600_000_000_000 for when in times.values())
    relations = {relation for _source, relation, _target, _weight in edges}
    assert {"CAUSED_BY", "LED_TO", "WORKAROUND_FOR", "CONTRADICTS"} <= relations
    assert (ids[1], "CAUSED_BY", ids[0], 0.4) in edges


def test_recall_from_the_snapshot_equals_recall_from_the_database(demo_home):
    engine = Engine.open(demo_home)
    link_every_kind(engine, card_ids(engine))
    with engine.hold():
        from_database = [without_timings(engine.recall(question)) for question in QUESTIONS]
        assert engine.keep_resident(wait_seconds=60)
        assert [without_timings(engine.recall(question)) for question in QUESTIONS] == from_database
    assert any(node["depth"] == 2 for result in from_database for node in result["nodes"])
    with engine.hold() as graph:  # a card is dated by the latest session it came from
        cards = [node for result in from_database for node in result["nodes"] if node["kind"] == "card"]
        sessions = graph.cards([node["card_id"] for node in cards])
        said = graph.session_times(sorted({s for card in sessions.values() for s in card["source_sessions"]}))
        assert cards and all(node["time"] == max(said[s] for s in sessions[node["card_id"]]["source_sessions"])
                             for node in cards)


def test_a_fresh_snapshot_needs_no_step_lock_and_a_write_makes_it_stale(demo_home):
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold():
        assert engine.keep_resident(wait_seconds=60)
        stepping, done = threading.Event(), threading.Event()

        def long_step() -> None:
            with engine.step():
                stepping.set()
                done.wait(30)

        worker = threading.Thread(target=long_step)
        worker.start()
        stepping.wait(10)
        try:
            assert engine.recall(QUESTIONS[0]).nodes
        finally:
            done.set()
            worker.join()
        engine.link(ids[5], ids[6], "BLOCKED_BY", new_relation=True)
        assert engine._resident.current() is None
        through_database = engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]})
        assert blocked_by(through_database) == [ids[6]]
        assert engine.keep_resident(wait_seconds=60)
        through_snapshot = engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]})
        assert without_timings(through_snapshot) == without_timings(through_database)


def test_without_a_snapshot_a_recall_beside_a_long_step_reads_through_its_own_connection(demo_home):
    """A long job's step holds the graph; a recall on another thread neither waits for it nor misses what the
    step has committed so far. Its connection closes with the graph."""
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold():
        with a_step_linking(engine, ids[5], ids[6]) as worker:
            result = engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]})
            assert worker.is_alive(), "the recall waited for the step to end"
        assert blocked_by(result) == [ids[6]]
        assert threading.get_ident() in engine._readers
    assert engine._readers == {}
    with engine.hold():
        assert engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]}).nodes


def test_while_a_step_writes_the_snapshot_it_had_gives_the_edges_of_its_cards_and_the_database_after(demo_home):
    """A long job's step holds the graph: a recall beside it takes the edges and entities of the cards the snapshot
    holds from that snapshot (an edge the step has just added is not seen yet), the rest from the database; once the
    step is over, the next recall reads the database and sees the edge."""
    from alaya_engine.graph.stale_view import StaleView

    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold():
        assert engine.keep_resident(wait_seconds=60)
        with a_step_linking(engine, ids[5], ids[6]) as worker:
            with engine._graph_view() as view:
                assert isinstance(view, StaleView)
                assert "BLOCKED_BY" not in {relation for _, relation, _, _ in view.neighbours([ids[5]])}
                assert view.neighbours(["card-written-meanwhile"]) == []  # not in the snapshot: the database's
            during = engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]})
            assert worker.is_alive(), "the recall waited for the step to end"
        assert blocked_by(during) == []
        after = engine.recall({"from_nodes": [ids[5]], "relations": ["BLOCKED_BY"]})
        assert blocked_by(after) == [ids[6]]


def test_while_a_step_writes_which_cards_replace_which_is_the_snapshots(demo_home):
    """Beside introspect's steps a recall read every replacement from the database (55 ms a recall at the aged
    100k store, most of a recall's time there): while a step writes, the snapshot says which cards replace which,
    and a replacement the step links is seen once it is over."""
    from alaya_engine.graph.stale_view import StaleView

    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    stepping, done = threading.Event(), threading.Event()

    def replacing_step() -> None:
        with engine.step():
            engine.link(ids[7], ids[8], "SUPERSEDES")
            stepping.set()
            done.wait(30)

    with engine.hold() as graph:
        assert engine.keep_resident(wait_seconds=60)
        before = engine._resident.snapshot.supersessions()
        worker = threading.Thread(target=replacing_step)
        worker.start()
        try:
            assert stepping.wait(30)
            with engine._graph_view() as view:
                assert isinstance(view, StaleView)
                assert view.supersessions() == before and ids[8] not in before
        finally:
            done.set()
            worker.join()
        assert ids[7] in graph.supersessions()[ids[8]][1]


def test_the_snapshot_is_rebuilt_beside_writes_and_stopped_with_the_store(demo_home, monkeypatch):
    """Writes on the owner's connection while the builder reads on its own: none fails, and the last
    snapshot is the graph."""
    monkeypatch.setattr(resident, "QUIET_SECONDS", 0.01)
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold() as graph:
        engine.keep_resident()
        for source, target in zip(ids[:30], ids[1:31]):
            engine.link(source, target, "DEPENDS_ON")
        assert engine.keep_resident(wait_seconds=60)
        assert sorted(engine._resident.snapshot.neighbours(ids)) == sorted(graph.neighbours(ids))
        builder = engine._resident._thread
    assert engine._resident is None and not builder.is_alive()


def test_a_read_ends_at_its_next_query_once_its_owner_stops(demo_home):
    """A million cards take ~25 s to read in ~30 queries: a stopping server waited for all of them, near the 30 s
    a ``server stop`` waits. The read asks before each query, ends early, and leaves its connection usable."""
    engine = Engine.open(demo_home)
    with engine.hold() as graph:
        connection = graph.connect()
        queries = []

        def stopping() -> bool:
            queries.append(1)
            return len(queries) > 2

        try:
            with pytest.raises(snapshot_module.ReadStopped):
                GraphSnapshot.read(connection, graph.generation, graph.card_contents, stopping)
            assert len(queries) == 3  # two queries ran, the third was not started
            assert GraphSnapshot.read(connection, graph.generation, graph.card_contents).card_count() == \
                graph.card_count()
        finally:
            connection.close()


def test_a_rebuild_waits_for_as_much_quiet_as_the_last_build_took(demo_home, monkeypatch):
    """At a million cards a build takes ~40 s: rebuilding in every pause of a long ingest kept a core busy and
    made recalls wait. After a build that took 2 s, a write leaves recall on the database until 2 s of quiet."""
    import time

    monkeypatch.setattr(resident, "QUIET_SECONDS", 0.05)
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold():
        assert engine.keep_resident(wait_seconds=60)
        engine._resident._build_seconds = 2.0
        engine.link(ids[0], ids[1], "DEPENDS_ON")
        written = time.monotonic()
        time.sleep(1.0)
        assert not engine.graph_snapshot_fresh()
        assert engine.keep_resident(wait_seconds=60) and time.monotonic() - written >= 2.0


def test_the_first_read_waits_for_no_quiet(demo_home, monkeypatch):
    """The quiet keeps rebuilds out of a writer's pauses; the first read has nothing to rebuild, so a store just
    held (the owner server's start, a benchmark's store) is served from its snapshot at once."""
    monkeypatch.setattr(resident, "QUIET_SECONDS", 30.0)
    engine = Engine.open(demo_home)
    with engine.hold():
        assert engine.keep_resident(wait_seconds=20)
        ids = card_ids(engine)
        engine.link(ids[0], ids[1], "DEPENDS_ON")
        assert not engine.keep_resident(wait_seconds=1)  # a rebuild still waits for its quiet


def test_no_snapshot_is_read_while_a_write_job_runs_and_a_read_under_way_stops(demo_home, monkeypatch):
    """The owner server runs each write request as a job: every write of an ingest leaves a snapshot read in its
    pauses stale, and at 100k cards those reads were two fifths of the interpreter's time during the job. The
    snapshot is read again once no job runs."""
    import time

    class Counted(GraphSnapshot):
        reads = 0

        @classmethod
        def read(cls, *args, **kwargs):
            Counted.reads += 1
            return GraphSnapshot.read(*args, **kwargs)

    monkeypatch.setattr(resident, "QUIET_SECONDS", 0.02)
    monkeypatch.setattr(resident, "GraphSnapshot", Counted)
    engine = Engine.open(demo_home)
    ids = card_ids(engine)
    with engine.hold() as graph:
        assert engine.keep_resident(wait_seconds=60) and Counted.reads == 1
        assert not engine._resident.read_stops()
        with engine.job():
            assert engine._resident.read_stops()
            engine.link(ids[0], ids[1], "DEPENDS_ON")
            time.sleep(0.5)  # 25 quiet periods, far more than the last build took on this small store
            assert not engine.graph_snapshot_fresh() and Counted.reads == 1
        assert engine.keep_resident(wait_seconds=60) and Counted.reads == 2
        assert sorted(engine._resident.snapshot.neighbours(ids[:2])) == sorted(graph.neighbours(ids[:2]))
        with pytest.raises(AlayaError), engine.job():  # a request that fails ends its job too
            engine.link("card-nosuch", ids[1], "DEPENDS_ON")
        engine.link(ids[1], ids[2], "DEPENDS_ON")
        assert engine.keep_resident(wait_seconds=60) and Counted.reads == 3


@pytest.mark.parametrize("statement, writes", [
    ("MATCH (c:Card) RETURN count(c)", False),
    ("MATCH (c:Card {id: $id}) SET c.tier = 'HOT'", True),
    ("UNWIND $ids AS x MATCH (c:Card {id: x}) DETACH DELETE c", True),
])
def test_only_statements_that_may_write_advance_the_generation(home, statement, writes):
    engine = Engine.open(home)
    with engine.hold() as graph:
        before = graph.generation
        graph.query(statement, {"id": "none", "ids": []} if "$" in statement else None)
        assert (graph.generation > before) is writes


def test_the_owner_server_runs_its_write_requests_and_only_those_as_jobs(demo_home):
    """What the gate above rests on: a request the server routes as a write runs inside ``Engine.job``."""
    from alaya_engine.server.service import OwnerServer

    class Probe:  # a server method that reports whether it runs inside a job
        def __init__(self, route):
            self.route = lambda params: route

        def run(self, engine, params, send):
            return {"jobs": engine._jobs}

    server = OwnerServer(demo_home)
    server.engine = Engine.open(demo_home)
    server.extensions.update({"probe.write": Probe("write"), "probe.read": Probe("read")})
    for method, jobs in (("probe.write", 1), ("probe.read", 0)):
        request = {"v": 1, "id": 1, "method": method, "params": {}, "client_version": alaya_engine.__version__}
        reply = server.answer(request, lambda message: True, server.route(request))
        assert reply["result"] == {"jobs": jobs}, reply
    assert server.engine._jobs == 0


def test_distinct_values_are_numpys_unique_by_a_sort():
    """The snapshot's DISTINCT of mention pairs: the same as ``np.unique`` (which in numpy 2.4 hashes first and took
    a second at 1.47M pairs), for repeats, one value and none."""
    import numpy as np

    from alaya_engine.graph.snapshot import _distinct

    values = np.random.default_rng(7).integers(0, 5_000, 20_000, dtype=np.int64)
    for case in (values, values[:1], values[:0], np.array([3, 3, 3], np.int64)):
        assert np.array_equal(_distinct(case), np.unique(case))
