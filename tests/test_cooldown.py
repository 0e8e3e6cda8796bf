"""Temperature, tiers and cool-down with a controlled clock."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from alaya_engine.demo import sample_sessions_dir
from alaya_engine.engine import Engine
from alaya_engine.foundations.config import DEFAULTS
from alaya_engine.foundations.domain import millis_now
from alaya_engine.introspect.temperature import DAY_MS, CardHeat, assign_tiers, temperature
from alaya_engine.recall.access import AccessLog
from alaya_engine.vectors.store import COLD_VECTORS

SETTINGS = DEFAULTS["temperature"]
NOW = 1_800_000_000_000


def heat(created_days_ago: float, accessed_days_ago: float | None = None, count: int = 0, relevance: float = 0.0,
         card_id: str = "c") -> CardHeat:
    last = 0 if accessed_days_ago is None else NOW - int(accessed_days_ago * DAY_MS)
    return CardHeat(card_id, NOW - int(created_days_ago * DAY_MS), last, count, relevance)


def test_the_readme_worked_example():
    assert temperature(heat(40, 10, 5, 0.6), NOW, SETTINGS) == pytest.approx(0.545, abs=1e-3)


@pytest.mark.parametrize(("card", "tier"), [
    (heat(0), "HOT"),                      # new cards start hot: temperature 0.7
    (heat(6.9), "HOT"),                    # within 7 days
    (heat(20), "WARM"),                    # 0.7·e^(−20/30) = 0.36
    (heat(40), "COLD"),                    # 0.19 and untouched for 40 > 30 days
    (heat(40, 29), "WARM"),                # cold enough, but touched 29 days ago
    (heat(200, 100, 11, 0.1), "HOT"),      # recalled more than 10 times
    (heat(3, 1, 20, 1.0, "busy"), "HOT"),
])
def test_tier_boundaries(card, tier):
    assert assign_tiers([card], NOW, SETTINGS)[card.card_id][1] == tier


def test_hot_overflow_is_demoted_coolest_first():
    cards = [heat(1, 0.5, count, 0.9, f"c{count}") for count in (1, 5, 20)]
    result = assign_tiers(cards, NOW, {**SETTINGS, "hot_limit": 2})
    assert [result[f"c{n}"][1] for n in (1, 5, 20)] == ["WARM", "HOT", "HOT"]


def test_warm_overflow_goes_cold_coolest_first_after_the_hot_overflow_joins_it():
    warm = [heat(days, days, 0, 0.5, f"w{days}") for days in (10, 15, 20)]  # WARM by temperature, touched lately
    hot = [heat(1, 0.5, count, 0.9, f"h{count}") for count in (1, 20)]
    result = assign_tiers(warm + hot, NOW, {**SETTINGS, "hot_limit": 1, "warm_limit": 2})
    assert {card_id: tier for card_id, (_, tier) in result.items()} == {
        "h20": "HOT", "h1": "WARM", "w10": "WARM", "w15": "COLD", "w20": "COLD"}


def distilled_engine(home) -> Engine:
    engine = Engine.open(home)
    engine.ingest([str(sample_sessions_dir() / "session-20260309-013000.json")])
    engine.distill()
    return engine


def tiers(engine: Engine) -> dict[str, str]:
    return {row["id"]: row["tier"] for row in engine.vectors().heat_rows()}


def test_cold_cards_move_their_vectors_to_codes_and_get_them_back_when_recalled(home):
    engine = distilled_engine(home)
    cards = sorted(tiers(engine))
    ids, matrix = engine.vectors().active_vectors()
    embedded = dict(zip(ids, matrix))
    later = millis_now() + 60 * DAY_MS
    report = engine.introspect(["cooldown"], now=later)["steps"]["cooldown"]
    assert report["by_tier"] == {"HOT": 0, "WARM": 0, "COLD": len(cards)} and report["newly_archived"] == len(cards)
    assert engine.vectors().vector_ids() == set() and sorted(engine.vectors().cold_ids()) == cards
    cold_ids, codes, scales = engine.vectors().cold_vectors()
    for card_id, code, scale in zip(cold_ids, codes, scales):  # 8-bit codes keep the cosine to within 1e-3
        assert float(embedded[card_id] @ (code * scale)) == pytest.approx(1.0, abs=1e-3)
    with engine.step() as graph:
        assert {row[0] for row in graph.query("MATCH (c:Card) RETURN c.tier")} == {"COLD"}
    AccessLog(engine.layout.access_log).record(later, [(cards[0], 0.9)])
    report = engine.introspect(["cooldown"], now=later + DAY_MS)["steps"]["cooldown"]
    assert report["restored"] == 1 and report["accesses_folded"] == 1
    assert engine.vectors().vector_ids() == {cards[0]} and cards[0] not in engine.vectors().cold_ids()
    ids, matrix = engine.vectors().active_vectors()  # moved back from the codes, not embedded again
    assert float(matrix[0] @ embedded[cards[0]]) == pytest.approx(1.0, abs=1e-3) and not np.array_equal(
        matrix[0], embedded[cards[0]])
    assert tiers(engine)[cards[0]] == "WARM"
    again = engine.introspect(["cooldown"], now=later + DAY_MS)["steps"]["cooldown"]
    assert again["accesses_folded"] == 0
    row = next(r for r in engine.vectors().heat_rows() if r["id"] == cards[0])
    assert row["access_count"] == 1 and row["relevance"] == pytest.approx(0.9)


def test_a_cold_card_of_a_store_from_before_cold_codes_is_embedded_once_by_cool_down(home):
    engine = distilled_engine(home)
    cards = sorted(tiers(engine))
    later = millis_now() + 60 * DAY_MS
    engine.introspect(["cooldown"], now=later)
    engine.vectors().table(COLD_VECTORS).delete(f"id = '{cards[0]}'")  # as such a store holds it
    assert "missing_cold_vector" in {problem["kind"] for problem in engine.verify().to_json()["problems"]}
    report = engine.introspect(["cooldown"], now=later + DAY_MS)["steps"]["cooldown"]
    assert report["newly_archived"] == 0 and sorted(engine.vectors().cold_ids()) == cards
    assert engine.verify().to_json()["ok"]


def test_an_access_to_a_card_whose_l1_row_is_not_written_yet_waits_for_the_next_fold(home, monkeypatch):
    """Distill writes L1 at its next flush, so a recall can return a card, through the graph, that ``card_meta`` does
    not hold yet. A fold meanwhile leaves that access (and those after it) in the log instead of losing it."""
    from alaya_engine.vectors.store import VectorStore

    engine = distilled_engine(home)
    first, second = sorted(tiers(engine))[:2]
    log = AccessLog(engine.layout.access_log)
    log.record(millis_now(), [(second, 0.8)])
    log.record(millis_now(), [(first, 0.9)])
    log.record(millis_now(), [(second, 0.7)])
    heat_columns = VectorStore.heat_columns

    def without_first(store):
        columns = heat_columns(store)
        keep = [index for index, card_id in enumerate(columns["id"]) if card_id != first]
        return {name: [values[index] for index in keep] for name, values in columns.items()}

    with monkeypatch.context() as pending:
        pending.setattr(VectorStore, "heat_columns", without_first)
        assert engine.introspect(["cooldown"])["steps"]["cooldown"]["accesses_folded"] == 1
    assert engine.introspect(["cooldown"])["steps"]["cooldown"]["accesses_folded"] == 2
    counts = {row["id"]: row["access_count"] for row in engine.vectors().heat_rows()}
    assert counts[first] == 1 and counts[second] == 2


def test_dry_run_changes_nothing(home):
    engine = distilled_engine(home)
    before = (engine.vectors().heat_rows(), engine.vectors().vector_ids())
    report = engine.introspect(["cooldown"], dry_run=True, now=millis_now() + 60 * DAY_MS)
    assert report["steps"]["cooldown"]["newly_archived"] > 0
    assert (engine.vectors().heat_rows(), engine.vectors().vector_ids()) == before


def test_cli_introspect_output_and_errors(cli, home):
    distilled_engine(home)
    output = cli("introspect").stdout
    assert ("🧘 Starting introspection..." in output and "[2/5] Consolidate" in output and "[4/5] Cooldown" in output
            and "HOT:" in output and "[5/5] Forget" in output)
    bad = cli("introspect", "--step", "meditate", "--json")
    assert bad.exit_code == 2 and bad.json()["error"]["code"] == "bad_step"


FORGET = DEFAULTS["introspect"]
GONE = {"id": "x", "tier": "COLD", "temperature": 0.05, "created_at": NOW - 200 * DAY_MS,
        "last_accessed": NOW - 100 * DAY_MS, "access_count": 2}


@pytest.mark.parametrize(("change", "forgotten"), [
    ({}, True),
    ({"tier": "WARM"}, False),
    ({"temperature": 0.1}, False),
    ({"last_accessed": NOW - 89 * DAY_MS}, False),
    ({"access_count": 3}, False),
])
def test_forget_criteria_each_on_its_own(change, forgotten):
    from alaya_engine.introspect.forget import forgettable

    assert forgettable(pa.Table.from_pylist([{**GONE, **change}]), NOW, FORGET, set()) == (["x"] if forgotten else [])


def test_a_card_others_depend_on_is_never_forgotten():
    from alaya_engine.introspect.forget import forgettable

    assert forgettable(pa.Table.from_pylist([GONE]), NOW, FORGET, depended_on={"x"}) == []
    assert forgettable(pa.Table.from_pylist([GONE, {**GONE, "id": "y"}]), NOW, FORGET, depended_on={"x"}) == ["y"]


def test_the_most_forgettable_cards_come_first():
    from alaya_engine.introspect.forget import forgettable

    rows = [{**GONE, "id": "warmer", "temperature": 0.09}, {**GONE, "id": "touched later"},
            {**GONE, "id": "coldest", "temperature": 0.01}, {**GONE, "id": "oldest", "last_accessed": 0}]
    assert forgettable(pa.Table.from_pylist(rows), NOW, FORGET, set()) == ["coldest", "oldest", "touched later",
                                                                           "warmer"]


def test_a_run_out_of_minutes_leaves_the_rest_to_the_next(home, monkeypatch):
    """With no minutes to spend, a run forgets its first batch only and says how many wait; the next runs go on
    with them, and together forget what one unbounded run would."""
    from rich.console import Console

    from alaya_cli.views import print_introspect
    from alaya_engine.foundations.human import last_introspect_text
    from alaya_engine.introspect import forget as forget_step
    from alaya_tui.introspect_job import step_summary

    engine = distilled_engine(home)
    later = millis_now() + 200 * DAY_MS
    engine.introspect(["cooldown"], now=later)
    everything = engine.introspect(["forget"], dry_run=True, now=later)["steps"]["forget"]["forgotten"]
    assert len(everything) > 4
    monkeypatch.setattr(forget_step, "BATCH", 2)
    engine.config["introspect"]["forget_minutes"] = 0
    first = engine.introspect(["forget"], now=later)["steps"]["forget"]
    assert first["forgotten"] == everything[:2] and first["left"] == len(everything) - 2
    waiting = engine.status().to_json()["introspect"]
    assert waiting["forget_left"] == len(everything) - 2
    assert last_introspect_text(waiting).endswith(f"; {len(everything) - 2} cards wait to be forgotten by the next run")
    for damaged in ("many", -3, None, True, [1]):
        assert "wait to be forgotten" not in last_introspect_text({**waiting, "forget_left": damaged})
    second = engine.introspect(["forget"], now=later)["steps"]["forget"]
    assert second["forgotten"] == everything[2:4] and second["left"] == len(everything) - 4
    engine.config["introspect"]["forget_minutes"] = 5
    third = engine.introspect(["forget"], now=later)["steps"]["forget"]
    assert third["forgotten"] == everything[4:] and third["left"] == 0
    assert "wait to be forgotten" not in last_introspect_text(engine.status().to_json()["introspect"])
    assert not set(everything) & set(tiers(engine))
    console = Console(record=True, width=200)
    print_introspect(console, {"dry_run": False, "steps": {"forget": first}, "elapsed_s": 0.1})
    shown = console.export_text()
    assert "Forgot 2 long-cold, unused cards" in shown
    assert f"{len(everything) - 2} more cards to forget: the next run goes on" in shown
    assert step_summary("forget", first) == f"forget: 2 cards forgotten, {len(everything) - 2} left for the next run"


def test_forget_keeps_the_card_in_l3_and_restore_brings_it_back(cli, home):
    engine = distilled_engine(home)
    cards = sorted(tiers(engine))
    later = millis_now() + 200 * DAY_MS
    with engine.step() as graph:
        depended = {row[0] for row in graph.query("MATCH (:Card)-[:DEPENDS_ON]->(b:Card) RETURN b.id")}
    dry = engine.introspect(["cooldown", "forget"], dry_run=True, now=later)["steps"]["forget"]
    assert dry["count"] == 0, "a dry run does not cool cards, so none is COLD yet"
    report = engine.introspect(["cooldown", "forget"], now=later)["steps"]["forget"]
    assert sorted(report["forgotten"]) == sorted(set(cards) - depended) and report["count"] > 0
    gone = report["forgotten"][0]
    with engine.step() as graph:
        assert not graph.cards([gone])
    assert gone not in tiers(engine)
    assert (home / f"raw/contexts/{gone}-context.json").exists()
    restored = cli("restore", gone, "--json")
    assert restored.exit_code == 0, restored.stderr
    assert restored.json()["card_id"] == gone
    with engine.step() as graph:
        assert graph.cards([gone])[gone]["tier"] == "WARM"
        assert graph.query("MATCH (c:Card {id: $id})-[:EXTRACTED_FROM]->(s:Session) RETURN s.id", {"id": gone})
    assert tiers(engine)[gone] == "WARM" and gone in engine.vectors().vector_ids()
    assert cli("restore", gone, "--json").json()["error"]["code"] == "card_exists"
    assert cli("restore", "card-never", "--json").json()["error"]["code"] == "unknown_card"


def test_a_forget_cut_short_between_the_layers_is_finished_by_the_next_run(home):
    """A run that had journaled a card and deleted it from the graph, then stopped (a kill, a failing query) before
    its L1 delete, left the card in L1 alone: the next run deletes what is left, without journaling it twice."""
    from alaya_engine.raw.journal import Journal

    engine = distilled_engine(home)
    later = millis_now() + 200 * DAY_MS
    engine.introspect(["cooldown"], now=later)
    with engine.step() as graph:
        depended = {row[0] for row in graph.query("MATCH (:Card)-[:DEPENDS_ON]->(b:Card) RETURN b.id")}
        half_done = next(card_id for card_id in sorted(tiers(engine)) if card_id not in depended)
        graph.delete_cards([half_done])
    assert half_done in engine.vectors().vector_ids() or half_done in tiers(engine)
    report = engine.introspect(["forget"], now=later)["steps"]["forget"]
    assert half_done in report["forgotten"] and report["count"] > 1
    assert half_done not in tiers(engine) and half_done not in engine.vectors().vector_ids()
    journaled = [event["card"]["id"] for event in Journal(engine.layout.journal).events("card.forget")]
    assert half_done not in journaled and len(journaled) == report["count"] - 1
