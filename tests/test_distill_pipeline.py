"""The distill pipeline on real stores: L3 record first, then graph and vectors, idempotent, crash-safe."""

from __future__ import annotations

import json
import shutil

import pytest

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.distill import pipeline
from alaya_engine.distill.pipeline import DistillPipeline
from alaya_engine.engine import Engine
from alaya_engine.vectors.store import VectorStore

GATEWAY = "session-20260309-013000"
OOM = "session-20260302-021500"
SMALL_TALK = "session-20260417-100000"


def ingest_demo(engine: Engine, *ids: str) -> None:
    folder = sample_sessions_dir()
    report = engine.ingest([str(folder / f"{session_id}.json") for session_id in ids])
    assert report.refused == 0


def graph_rows(engine: Engine, cypher: str) -> list:
    with engine.step() as graph:
        return graph.query(cypher)


def store_state(engine: Engine) -> dict:
    vectors = VectorStore(engine.layout.vectors_dir, 512)
    ids, _ = vectors.active_vectors()
    return {
        "cards": sorted(row[0] for row in graph_rows(engine, "MATCH (c:Card) RETURN c.id")),
        "edges": graph_rows(engine, "MATCH ()-[r]->() RETURN count(r)")[0][0],
        "vectors": sorted(ids),
        "contexts": sorted(p.name for p in engine.layout.contexts.iterdir()),
    }


def test_distill_writes_every_layer_consistently(home):
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM, SMALL_TALK)
    report = engine.distill()
    by_session = {o.session_id: o for o in report.sessions}
    assert by_session[GATEWAY].status == "distilled" and by_session[GATEWAY].cards
    assert by_session[SMALL_TALK].status == "skipped" and by_session[SMALL_TALK].reason
    state = store_state(engine)
    record = json.loads((home / f"raw/distilled/{GATEWAY}.json").read_text())
    record_ids = {card["id"] for card in record["cards"]}
    assert record_ids <= set(state["cards"]) and record_ids <= set(state["vectors"])
    assert state["cards"] == state["vectors"]
    assert state["contexts"] == sorted(f"{card_id}-context.json" for card_id in state["cards"])
    extracted = graph_rows(engine, "MATCH (c:Card)-[:EXTRACTED_FROM]->(s:Session) RETURN c.id, s.id")
    assert len(extracted) == len(state["cards"])
    temporal = graph_rows(engine, "MATCH (a:Card)-[:TEMPORAL_NEXT]->(b:Card) RETURN count(*)")[0][0]
    assert temporal >= len(record["cards"]) - 1
    context = json.loads((home / f"raw/contexts/{record['cards'][0]['id']}-context.json").read_text())
    assert context["session_id"] == GATEWAY and context["turns"]
    assert all("index" in turn and "content" in turn for turn in context["turns"])
    cards = graph_rows(engine, "MATCH (c:Card) RETURN c.temperature, c.tier, c.source LIMIT 1")[0]
    assert cards == [1.0, "HOT", "distill"]


def test_distill_is_idempotent_and_force_replaces_exactly_one_session(home):
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)
    engine.distill()
    before = store_state(engine)
    again = engine.distill()
    assert again.sessions == [] and store_state(engine) == before
    explicit = engine.distill([GATEWAY])
    assert [o.status for o in explicit.sessions] == ["up_to_date"]
    forced = engine.distill([GATEWAY], force=True)
    assert [o.status for o in forced.sessions] == ["distilled"]
    assert store_state(engine) == before


def test_a_session_distilled_by_another_run_meanwhile_is_not_distilled_twice(home, monkeypatch):
    """Two runs on the owner server (``ingest --distill`` and introspect) both find a session to distill; the
    second to reach its write step leaves the first one's record, so L3 and the graph keep agreeing."""
    from alaya_engine.distill.offline.distiller import OfflineDistiller

    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)
    distill = OfflineDistiller.distill
    calls = []

    def distill_while_another_run_finishes(self, session):
        calls.append(session.id)
        if len(calls) == 1:
            assert [o.status for o in engine.distill([OOM, GATEWAY]).sessions] == ["distilled", "distilled"]
        return distill(self, session)

    monkeypatch.setattr(OfflineDistiller, "distill", distill_while_another_run_finishes)
    late = engine.distill([GATEWAY])
    assert calls[0] == GATEWAY and [o.status for o in late.sessions] == ["up_to_date"]
    assert engine.verify().to_json()["problems"] == []


def similar_links(engine: Engine) -> set[tuple[str, str]]:
    return {tuple(row) for row in graph_rows(engine, "MATCH (a:Card)-[:SIMILAR_TO]->(b:Card) RETURN a.id, b.id")}


def distill_in_order(engine: Engine, *session_ids: str) -> None:
    """Distill one session after the other with a similarity threshold low enough to link the demo's topics."""
    engine.config["distill"]["similar_threshold"] = 0.2
    for session_id in session_ids:
        assert [o.status for o in engine.distill([session_id]).sessions] == ["distilled"]


def redistill_without_similar_links(engine: Engine, session_id: str) -> None:
    engine.config["distill"]["similar_threshold"] = 1.01
    assert [o.status for o in engine.distill([session_id], force=True).sessions] == ["distilled"]


def test_a_redistilled_session_takes_back_the_links_only_its_previous_record_named(home):
    """GATEWAY distilled after OOM: its record alone names the SIMILAR_TO links between the two. Distilled again
    where no card is similar enough, its new record names none, and the graph keeps none but the one ``alaya link``
    added: L2 stays what a rebuild from L3 makes of it."""
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)
    distill_in_order(engine, OOM, GATEWAY)
    linked = sorted(similar_links(engine))
    assert linked
    source, target = linked[0]
    engine.link(source, target, "SIMILAR_TO", reason="kept by hand")
    redistill_without_similar_links(engine, GATEWAY)
    assert similar_links(engine) == {(source, target), (target, source)}
    assert engine.verify().to_json()["problems"] == []
    Engine.open(home, for_rebuild=True).rebuild({"l2"})
    assert similar_links(Engine.open(home)) == {(source, target), (target, source)}


def test_links_another_sessions_record_names_stay_when_a_session_is_redistilled(home):
    """OOM distilled after GATEWAY found the same SIMILAR_TO links from its side: they stay."""
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)
    distill_in_order(engine, GATEWAY, OOM)
    linked = similar_links(engine)
    assert linked
    redistill_without_similar_links(engine, GATEWAY)
    assert similar_links(engine) == linked
    assert engine.verify().to_json()["problems"] == []
    Engine.open(home, for_rebuild=True).rebuild({"l2"})
    assert similar_links(Engine.open(home)) == linked


def test_dry_run_writes_nothing(home):
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY)
    before = store_state(engine)
    report = engine.distill(dry_run=True)
    assert report.sessions[0].status == "would_distill" and report.sessions[0].cards
    assert store_state(engine) == before
    assert not (home / "raw/distilled").exists() or not list((home / "raw/distilled").iterdir())


def test_a_crash_after_the_l3_write_is_completed_by_a_rerun_without_duplicates(home, template_home, tmp_path,
                                                                              monkeypatch):
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)

    def crash(self, *applied):
        raise RuntimeError("killed between the L3 write and the graph")

    with monkeypatch.context() as patched:
        patched.setattr(DistillPipeline, "_apply", crash)
        with pytest.raises(RuntimeError):
            engine.distill()
    assert (home / f"raw/distilled/{OOM}.json").exists()
    assert (home / f"raw/distilled/{GATEWAY}.json").exists()  # a step writes its sessions' records together
    assert graph_rows(engine, "MATCH (c:Card) RETURN count(c)")[0][0] == 0
    rerun = engine.distill()
    statuses = {o.session_id: o.status for o in rerun.sessions}
    assert statuses[OOM] == "resumed" and statuses[GATEWAY] == "resumed"
    recovered = store_state(engine)
    assert engine.distill().sessions == []
    clean_home = tmp_path / "clean"
    shutil.copytree(template_home, clean_home)
    clean = Engine.open(clean_home)
    ingest_demo(clean, GATEWAY, OOM)
    clean.distill()
    assert recovered == store_state(clean)


def test_sessions_are_written_a_few_at_once_and_a_slow_distillers_each_at_once(home, monkeypatch):
    """Fast sessions wait for one step that writes them together; once the first has waited ``WRITE_WITHIN``
    (an LLM distiller's session takes seconds), each is written as soon as it is distilled."""
    engine = Engine.open(home)
    ingest_demo(engine, GATEWAY, OOM)
    written: list[int] = []
    engine.distill(progress=lambda done, _total: written.append(done))
    assert written == [2]
    monkeypatch.setattr(pipeline, "WRITE_WITHIN", 0.0)
    written.clear()
    assert [o.status for o in engine.distill(force=True, progress=lambda done, _total: written.append(done)).sessions] \
        == ["distilled", "distilled"]
    assert written == [1, 2]
    assert engine.verify().to_json()["problems"] == []


def test_unknown_session_is_a_clear_error(cli):
    result = cli("distill", "--session", "nope", "--json")
    assert result.exit_code == 2
    assert result.json()["error"]["code"] == "unknown_session"


def test_cli_distill_prints_cards_and_links(cli, home):
    cli("ingest", str(sample_sessions_dir() / f"{GATEWAY}.json"))
    result = cli("distill")
    assert result.exit_code == 0, result.stderr
    assert f"🧠 Distilling {GATEWAY}" in result.stdout and "✓ Card:" in result.stdout
    assert "Distillation complete: 1 session," in result.stdout
    document = cli("distill", "--session", GATEWAY, "--json").json()
    assert document["sessions"][0]["status"] == "up_to_date"


def test_ingest_distills_with_the_flag_or_auto_distill(cli, home):
    flagged = cli("ingest", "--distill", "--json", str(sample_sessions_dir() / f"{GATEWAY}.json"))
    assert flagged.exit_code == 0, flagged.stderr
    assert flagged.json()["distill"]["sessions_distilled"] == 1
    plain = cli("ingest", "--json", str(sample_sessions_dir() / f"{OOM}.json"))
    assert plain.json()["distill"] is None
    config = json.loads((home / "config.json").read_text())
    config["distill"]["auto_distill"] = True
    (home / "config.json").write_text(json.dumps(config))
    auto = cli("ingest", "--json", str(sample_sessions_dir() / f"{OOM}.json"))
    assert auto.json()["distill"]["sessions_distilled"] == 1
