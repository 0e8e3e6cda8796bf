"""Recall on a hand-built graph with known vectors: the h formula, depth, relations, from_nodes, COLD cards, and a
hop's goal (its distances are to the question, not to the cards it starts from) and the verdict."""

from __future__ import annotations

import jsonschema
import numpy as np
import pytest

from alaya_engine.engine import Engine
from alaya_engine.foundations.domain import Card, Link
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.recall.card_index import CardIndex
from alaya_engine.recall.lexical import LexicalFusion
from alaya_engine.recall.query import build_query
from alaya_engine.recall.relation_space import RelationSpace
from alaya_engine.recall.result import CLOSE_ENOUGH, Explorable, RecallNode, RecallResult
from alaya_engine.recall.run import run_recall
from alaya_engine.schemas import json_schema

DIM = 512
SCHEMA = json_schema("recall")
SETTINGS = {"alpha": 0.5, "beta": 0.3, "gamma": 0.2, "min_similarity": 0.25, "min_rel_similarity": 0.3,
            "vector_top_k": 20, "graph_expand_depth": 1, "max_results": 10, "hybrid": True,
            "include_sessions": True, "lexical_weight": 0.5, "lexical_floor": 1.5}


def basis(index: int) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[index] = 1.0
    return vector


def card(card_id: str, card_type: str = "gotcha", tier: str = "HOT") -> Card:
    return Card(id=card_id, title=f"title of {card_id}", content=f"content of {card_id}", type=card_type,
                tags=[card_id], importance=0.5, source_sessions=[], created_at=0, updated_at=0, tier=tier)


@pytest.fixture
def memory(home):
    """A ─CAUSED_BY→ B ─DEPENDS_ON→ C ─TEMPORAL_NEXT→ E (COLD), A ─LED_TO→ D, A ─SIMILAR_TO↔ F (decision).

    Vectors: A..D and F are orthogonal unit vectors; E has none (COLD, in a store from before COLD cards kept
    their vectors as codes). LED_TO's relation vector is built
    to have cosine 0.8 with CAUSED_BY's.
    """
    engine = Engine.open(home)
    vectors = engine.vectors()
    cards = {"A": card("A"), "B": card("B"), "C": card("C"), "D": card("D"),
             "E": card("E", tier="COLD"), "F": card("F", "decision")}
    cards["E"].content = "Docker 容器内存溢出 because no memory limit was set"
    with engine.step() as graph:
        for item in cards.values():
            graph.upsert_card(item)
        for source, relation, target in (("A", "CAUSED_BY", "B"), ("B", "DEPENDS_ON", "C"), ("A", "LED_TO", "D"),
                                         ("C", "TEMPORAL_NEXT", "E"), ("A", "SIMILAR_TO", "F"),
                                         ("F", "SIMILAR_TO", "A")):
            graph.merge_link(Link(source, target, relation, 1.0, "test", 0))
    warm = ["A", "B", "C", "D", "F"]
    vectors.upsert_cards([cards[c] for c in warm], np.vstack([basis(i) for i in range(len(warm))]))
    names, relation_vectors = vectors.relation_vectors()
    caused_by = relation_vectors[names.index("CAUSED_BY")]
    orthogonal = basis(DIM - 1) - caused_by * caused_by[DIM - 1]
    orthogonal /= np.linalg.norm(orthogonal)
    vectors.upsert_relations(["LED_TO"], (0.8 * caused_by + 0.6 * orthogonal)[None, :], is_core=False, examples=[[]])
    return engine


def recall(engine: Engine, queries: np.ndarray, **request) -> dict:
    query = build_query({"concepts": ["placeholder"], **request}, SETTINGS)
    names, relation_vectors = engine.vectors().relation_vectors()
    index = CardIndex(engine.vectors())
    index.refresh()
    with engine.step() as graph:
        result = run_recall(query, queries, graph=graph, index=index,
                            space=RelationSpace(names, relation_vectors), embedder=engine.embedder(),
                            settings=SETTINGS)
    document = result.to_json()
    jsonschema.validate(document, SCHEMA)
    return document


def by_id(document: dict) -> dict:
    return {node["card_id"]: node for node in document["nodes"]}


def test_h_formula_and_relation_filter(memory):
    document = recall(memory, basis(0)[None, :], relations=["CAUSED_BY"], depth=1)
    nodes = by_id(document)
    assert set(nodes) == {"A", "B", "D"}
    assert nodes["A"]["h_distance"] == 0.0 and nodes["A"]["matched_rel"] is None and nodes["A"]["depth"] == 0
    assert nodes["B"] == {**nodes["B"], "matched_rel": "CAUSED_BY", "rel_similarity": 1.0, "via": "A", "depth": 1,
                          "concept_distance": 1.0, "relation_distance": 0.0}
    assert nodes["B"]["h_distance"] == pytest.approx(0.5 * 1.0 + 0.3 * 0.0 + 0.2 * 0.1)
    assert nodes["D"]["matched_rel"] == "LED_TO" and nodes["D"]["rel_similarity"] == pytest.approx(0.8, abs=1e-3)
    assert nodes["D"]["h_distance"] == pytest.approx(0.5 + 0.3 * 0.2 + 0.02, abs=1e-3)
    assert [node["card_id"] for node in document["nodes"]] == ["A", "B", "D"]
    assert nodes["A"]["score"] == 1.0 and nodes["B"]["score"] == pytest.approx(1 - nodes["B"]["h_distance"])
    assert document["h_distance_avg"] == pytest.approx(sum(n["h_distance"] for n in document["nodes"]) / 3, abs=1e-4)


def test_explorable_counts_paths_beyond_the_result(memory):
    document = recall(memory, basis(0)[None, :], relations=["CAUSED_BY"], depth=1)
    explorable = {item["rel"]: item for item in document["explorable"]}
    assert set(explorable) == {"DEPENDS_ON", "SIMILAR_TO"}
    assert explorable["DEPENDS_ON"]["count"] == 1 and explorable["SIMILAR_TO"]["count"] == 1
    assert all(item["rel_sim_to_query"] < 1.0 for item in document["explorable"])
    assert explorable["DEPENDS_ON"]["from_nodes"] == ["B"] and explorable["SIMILAR_TO"]["from_nodes"] == ["A"]
    onward = recall(memory, basis(0)[None, :], from_nodes=explorable["DEPENDS_ON"]["from_nodes"],
                    relations=["DEPENDS_ON"], depth=1)
    assert [node["card_id"] for node in onward["nodes"]] == ["C"]


def test_depth_limits_and_cold_cards_are_reachable(memory):
    shallow = by_id(recall(memory, basis(0)[None, :], depth=2))
    assert "C" in shallow and shallow["C"]["depth"] == 2 and "E" not in shallow
    deep = by_id(recall(memory, basis(0)[None, :], depth=3))
    assert deep["E"]["tier"] == "COLD" and deep["E"]["depth"] == 3 and deep["E"]["via"] == "C"
    # a COLD card counts as half as similar as the card it was reached through
    assert deep["E"]["concept_distance"] == pytest.approx(1.0 - 0.5 * (1.0 - deep["C"]["concept_distance"]), abs=2e-4)
    only_seeds = by_id(recall(memory, basis(0)[None, :], depth=0))
    assert set(only_seeds) == {"A"}


def keep_cold(engine: Engine, card_id: str, vector: np.ndarray) -> None:
    """Give a COLD card the vector cool-down keeps for it: embedded, then moved to the COLD codes."""
    cold = card(card_id, tier="COLD")
    cold.content = "Docker 容器内存溢出 because no memory limit was set"
    engine.vectors().upsert_cards([cold], vector[None, :])
    engine.vectors().archive_vectors([card_id])


def test_a_cold_card_found_by_full_text_is_ranked_by_its_kept_vector(memory):
    """E's text is indexed for full-text search (as every card's is) and its vector kept as 8-bit codes, as
    cool-down leaves it: its distance is its own vector's, read from the codes, not its title embedded."""
    direction = basis(DIM - 2) + memory.embedder().embed(["容器内存溢出"])[0]
    keep_cold(memory, "E", direction / np.linalg.norm(direction))
    assert "E" not in memory.vectors().vector_ids() and memory.vectors().cold_ids() == ["E"]
    memory.vectors().refresh_full_text_index()
    memory.config["recall"]["lexical_floor"] = 0.0  # the only hit then counts as exact, whatever its score
    found = by_id(memory.recall({"text": "容器内存溢出", "depth": 0}).to_json())
    query = memory.embedder().embed_query(["容器内存溢出"])[0]
    assert found["E"]["tier"] == "COLD" and found["E"]["depth"] == 0
    # the only full-text hit: its lexical share is 1, so λ of its cosine distance is taken off
    cosine_distance = 1.0 - float(query @ direction / np.linalg.norm(direction))
    lexical_weight = memory.config["recall"]["lexical_weight"]
    assert found["E"]["concept_distance"] == pytest.approx(cosine_distance * (1 - lexical_weight), abs=3e-3)


def test_cold_cards_are_found_by_meaning_and_scored_on_their_own_vectors(memory):
    """A COLD card with kept codes is a vector-search hit like any other, and one reached through the graph
    counts its own similarity, not a share of its via's."""
    keep_cold(memory, "E", basis(7))
    seeds = by_id(recall(memory, basis(7)[None, :], depth=0))
    assert seeds["E"]["tier"] == "COLD" and seeds["E"]["concept_distance"] == pytest.approx(0.0, abs=1e-3)
    tilted = (basis(0) + 0.5 * basis(7)) / np.linalg.norm(basis(0) + 0.5 * basis(7))
    deep = by_id(recall(memory, tilted[None, :], depth=3, max_results=10))
    assert deep["E"]["concept_distance"] == pytest.approx(1.0 - float(tilted[7]), abs=3e-3)


def test_from_nodes_continues_navigation(memory):
    document = recall(memory, np.zeros((0, DIM), np.float32), from_nodes=["B"], relations=["DEPENDS_ON"], depth=1)
    nodes = by_id(document)
    assert set(nodes) == {"C"}
    assert nodes["C"]["via"] == "B" and nodes["C"]["concept_distance"] == 1.0
    with pytest.raises(AlayaError) as caught:
        recall(memory, np.zeros((0, DIM), np.float32), from_nodes=["nope"], depth=1)
    assert caught.value.code == "unknown_card"


def test_types_filter(memory):
    assert set(by_id(recall(memory, basis(0)[None, :], types=["decision"], depth=1))) == {"F"}


def test_unknown_relation_suggests_the_nearest(memory):
    with pytest.raises(AlayaError) as caught:
        recall(memory, basis(0)[None, :], relations=["CAUSED_B"])
    assert caught.value.code == "unknown_relation" and "did you mean CAUSED_BY" in caught.value.message


@pytest.mark.parametrize(("request_document", "message"), [
    ({"concepts": ["x"], "depth": 4}, "'depth' is 4; it must be from 0 to 3"),
    ({"concepts": ["x"], "depth": "2"}, "'depth' must be an integer"),
    ({"concepts": "x", "types": ["bug"]}, "unknown type 'bug'"),
    ({}, "nothing to recall"),
    ({"concept": ["x"]}, "unknown field 'concept'"),
    ([1, 2], "must be a JSON object"),
])
def test_bad_requests(request_document, message):
    with pytest.raises(AlayaError) as caught:
        build_query(request_document, SETTINGS)
    assert caught.value.code == "bad_query" and message in caught.value.message


def test_free_text_is_split_into_concepts():
    query = build_query({"text": "Gateway 重启，Telegram 消息丢失; plugins.allow"}, SETTINGS)
    assert query.concepts == ["Gateway 重启，Telegram 消息丢失; plugins.allow", "Gateway 重启", "Telegram 消息丢失",
                              "plugins.allow"]
    assert build_query({"text": "why did nginx return 502"}, SETTINGS).concepts == ["why did nginx return 502"]


def test_lexical_share_is_relative_to_the_best_hit_but_never_to_a_weak_one():
    fusion = LexicalFusion.for_query("gateway restart telegram", {"lexical_weight": 0.5, "lexical_floor": 1.5})
    assert fusion.floor == 4.5
    assert fusion.shares({"a": 9.0, "b": 3.0}) == {"a": 1.0, "b": 1 / 3}
    assert fusion.shares({"a": 3.0}) == {"a": 3.0 / 4.5}  # only common words matched: not an exact match
    assert fusion.distance(0.6, 1.0) == pytest.approx(0.3) and fusion.distance(0.6, 0.0) == 0.6
    assert LexicalFusion(0.5, 0.0).shares({}) == {}


# A hop keeps its goal -------------------------------------------------------------------------------------------


@pytest.fixture
def near_the_start(memory):
    """G lies beside B (cosine 0.9) and far from A's direction; B ─DEPENDS_ON→ G."""
    vector = 0.9 * basis(1) + np.sqrt(1 - 0.81) * basis(7)
    memory.vectors().upsert_cards([card("G")], vector[None, :].astype(np.float32))
    with memory.step() as graph:
        graph.upsert_card(card("G"))
        graph.merge_link(Link("B", "G", "DEPENDS_ON", 1.0, "test", 0))
    return memory


def test_a_hop_with_a_goal_measures_distances_to_the_goal(near_the_start):
    document = recall(near_the_start, basis(0)[None, :], from_nodes=["B"], relations=["DEPENDS_ON"], depth=1)
    nodes = by_id(document)
    assert nodes["G"]["concept_distance"] == pytest.approx(1.0, abs=1e-4)
    assert document["goal"] == "placeholder"
    assert document["verdict"].startswith("far from target")


def test_a_hop_without_a_goal_says_so(near_the_start):
    document = recall(near_the_start, np.zeros((0, DIM), np.float32), from_nodes=["B"], relations=["DEPENDS_ON"],
                      depth=1, concepts=[])
    nodes = by_id(document)
    assert nodes["G"]["concept_distance"] == pytest.approx(0.1, abs=1e-3)  # close to B, which is no goal
    assert document["goal"] is None
    assert document["verdict"].startswith("no goal given")


def _result(best_h: float, explorable: list[Explorable], returned: int = 1, asked: int | None = None) -> RecallResult:
    nodes = [RecallNode(card_id=f"card-{n}", title="t", content="c", score=1 - best_h, h_distance=best_h,
                        matched_rel=None, rel_similarity=None, type="gotcha", tags=[], tier="HOT", depth=0, via=None,
                        source="test", concept_distance=best_h, relation_distance=0.0) for n in range(returned)]
    query = {} if asked is None else {"text": "why did the gateway restart", "max_results": asked}
    return RecallResult(nodes, explorable, query, goal="why did the gateway restart")


@pytest.mark.parametrize(("returned", "asked", "further"), [
    (10, 10, 20), (150, 150, 200), (120, 150, None), (200, 200, None), (3, 10, None)])
def test_reading_further_down_stays_within_what_a_recall_accepts_and_stops_when_the_list_ran_out(
        returned, asked, further):
    result = _result(0.3, [], returned, asked)
    if further is None:
        assert result.next_request is None and "read further down" not in result.verdict
    else:
        assert result.next_request["max_results"] == further and f"max_results {further}" in result.verdict
        assert build_query(result.next_request, SETTINGS).max_results == further  # a request recall accepts


@pytest.mark.parametrize("best_h", np.linspace(0.0, 1.0, 21).round(3).tolist())
def test_the_verdict_advises_reading_further_down_never_a_relation(best_h):
    for explorable in ([], [Explorable("DEPENDS_ON", 2, 0.4, ["card-1"])]):
        result = _result(best_h, explorable)
        assert "follow" not in result.verdict and "navigate" not in result.verdict
        if best_h < CLOSE_ENOUGH:
            assert result.verdict == "close to target" and result.next_request is None
        else:
            assert result.verdict.endswith("read further down (max_results 2)")
            assert result.next_request == {"concepts": [], "max_results": 2}


def test_the_cli_hop_carries_the_goal(demo_cli):
    first = demo_cli("recall", "gateway restart telegram messages lost", "--json").json()
    best = first["explorable"][0]
    goal = "why were telegram messages lost"
    hop = demo_cli("recall", "--from-nodes", ",".join(best["from_nodes"]), "--rel", best["rel"], goal, "--json")
    assert hop.exit_code == 0, hop.stderr
    document = hop.json()
    assert document["goal"] == goal and document["query"]["from_nodes"] == best["from_nodes"]
    assert not document["verdict"].startswith("no goal")
    bare = demo_cli("recall", "--from-nodes", ",".join(best["from_nodes"]), "--rel", best["rel"], "--json").json()
    assert bare["goal"] is None and bare["verdict"].startswith("no goal given")


def test_a_large_card_index_reloads_beside_recalls_and_swaps_in_the_new_cards(memory, monkeypatch):
    """Above ``background_above`` rows a change of the table starts a reload on a thread of its own: the refresh
    returns at once with the previous load (a recall during a long ingest into a large store must not reload every
    HOT and WARM vector itself), and the next refresh once it is done holds the new card."""
    import threading
    import time

    from alaya_engine.recall import index as index_module

    monkeypatch.setattr(index_module, "RELOAD_PAUSE", 0)
    index = CardIndex(memory.vectors(), background_above=1)
    index.refresh()
    before = set(index.ids)
    assert len(before) > 1 and "N" not in before
    memory.vectors().upsert_cards([card("N")], basis(9)[None, :])
    reading, finish = threading.Event(), threading.Event()
    read = index._read

    def slow_read(version: int):
        reading.set()
        finish.wait(30)
        return read(version)

    monkeypatch.setattr(index, "_read", slow_read)
    index.refresh()
    assert reading.wait(30) and set(index.ids) == before  # the refresh returned while the reload still reads
    finish.set()
    deadline = time.monotonic() + 30
    while "N" not in index.ids and time.monotonic() < deadline:
        time.sleep(0.05)
        index.refresh()
    assert set(index.ids) == before | {"N"}
    assert index.vector_search(basis(9)[None, :], 1, 0.5) == ["N"]


def test_a_card_written_since_the_last_load_is_scored_on_its_own_vector_until_the_index_loads_it(home):
    """A large store reloads its resident vectors in the background: until then a card a distill step has just
    written is held as written (never embedded from its title at query time); the load then holds it, and what
    was kept for it is let go. A store without a resident index keeps nothing."""
    engine = Engine.open(home)
    vectors = engine.vectors()
    vectors.upsert_cards([card("A")], basis(0)[None, :])
    assert vectors.written_vector("A") is None  # nobody asked to keep them yet
    index = CardIndex(vectors)
    index.refresh()
    vectors.upsert_cards([card("N")], basis(7)[None, :])
    assert index.resident.vector_of("N") is None  # not loaded yet
    assert np.array_equal(index.vector_of("N"), basis(7))
    vectors.upsert_cards([card("A")], basis(3)[None, :])  # distilled again: newer than the load's vector
    assert np.array_equal(index.resident.vector_of("A"), basis(0)) and np.array_equal(index.vector_of("A"), basis(3))
    index.refresh()
    assert vectors.written_vector("N") is None and vectors.written_vector("A") is None
    assert np.array_equal(index.vector_of("N"), basis(7)) and np.array_equal(index.vector_of("A"), basis(3))


def test_the_vectors_kept_for_cards_not_loaded_yet_are_bounded(home, monkeypatch):
    from alaya_engine.vectors import store as vector_store

    monkeypatch.setattr(vector_store, "WRITTEN_KEPT", 2)
    vectors = Engine.open(home).vectors()
    CardIndex(vectors)
    vectors.upsert_cards([card("X"), card("Y"), card("Z")], np.vstack([basis(1), basis(2), basis(3)]))
    assert vectors.written_vector("X") is None
    assert np.array_equal(vectors.written_vector("Y"), basis(2))
    assert np.array_equal(vectors.written_vector("Z"), basis(3))


def test_a_node_s_document_is_its_fields_and_changing_it_changes_no_node():
    from dataclasses import asdict

    from alaya_engine.foundations.domain import Fact

    node = RecallNode(card_id="w1", title="t", content="c", score=0.8, h_distance=0.2, matched_rel=None,
                      rel_similarity=None, type="session_turns", tags=["a"], tier="RAW", depth=0, via=None,
                      source="search", concept_distance=0.2, relation_distance=0.0, kind="session_turns",
                      session_id="s1", turn_range=[2, 4], time=5, facts=[Fact("api", "timeout", "90 s", 7)],
                      superseded_by=["card-2"], valid_to=9)
    document = node.to_json()
    assert document == asdict(node) and list(document) == list(asdict(node))
    document["tags"].append("b")
    document["turn_range"][0] = 0
    document["facts"][0]["value"] = "1 s"
    document["superseded_by"].clear()
    assert node.tags == ["a"] and node.turn_range == [2, 4] and node.facts[0].value == "90 s"
    assert node.superseded_by == ["card-2"]


def test_during_a_write_job_full_text_reads_the_tables_as_before_it_and_after_it_finds_what_it_wrote(demo_home,
                                                                                                      tmp_path):
    """Each write of a job makes a new version of a table, and a full-text search of the newest waited behind the
    job's writes (recall p95 during an ingest at 100k cards ~110 -> ~68 ms): while a job runs, the cards' search
    reads the version the last search before the job read, the windows' the version their load holds. What the
    job wrote is found by its words once the job is over."""
    from conftest import write_session

    from alaya_engine.recall.turns import TurnSearch

    engine = Engine.open(demo_home)
    engine.recall({"text": "gateway timeout"})  # a search before the job; the windows' load is read
    word = "quokkabarometer"
    path = write_session(tmp_path / "incoming", "session-20260401-101010", turns=[
        {"role": "user", "content": f"The {word} service keeps timing out after the deploy, why?"},
        {"role": "assistant", "content": f"The cause is the {word} pool: max_connections is 20 on db-7."}])
    with engine.job():
        engine.ingest([str(path)])
        engine.distill()
        during = engine.vectors().start_full_text_search(word, 20, during_job=True).result()
        latest = engine.vectors().start_full_text_search(word, 20).result()
        index = engine.turn_index()  # not refreshed: its load is of the version before the ingest
        held = TurnSearch.start(index, engine.raw, word, 20, during_job=True).full_text.result()
        newest = TurnSearch.start(index, engine.raw, word, 20).full_text.result()
    assert during == {} and held == {}
    assert latest and any(window.startswith("session-20260401-101010") for window in newest)
    found = engine.recall({"text": word}).to_json()["nodes"]
    assert any(node["card_id"] in latest for node in found)
    assert any(node["card_id"].startswith("session-20260401-101010") for node in found if node["kind"] != "card")


def test_a_full_text_search_of_a_version_that_cannot_be_read_searches_the_latest(demo_home):
    from alaya_engine.vectors.store import CARD_META

    store = Engine.open(demo_home).vectors()
    latest = store._async.search("gateway", 20, index_only=False).result()
    gone = store._async.search("gateway", 20, index_only=False, version=store.version(CARD_META) + 1000).result()
    assert latest and gone == latest
