"""The synthetic benchmark store: verify finds nothing wrong but its cards' missing L3 records; its entities are
read from its cards' pieces as the reader reads whole cards."""

from __future__ import annotations

from alaya_engine.engine import Engine
from alaya_engine.entities.read import read_card
from bench.synthetic import build_store, composed_reading, generate


def test_composed_readings_name_what_the_reader_names():
    data = generate(400)
    for card in data["cards"]:
        pieces = data["pieces"][card.id]
        assert pieces[0] == card.title and ("" if pieces[1][-1] == "。" else " ").join(pieces[1:]) == card.content
        assert {mention.name for mention in composed_reading(pieces).mentions} \
            == {mention.name for mention in read_card(card).mentions}


def test_a_small_synthetic_store_verifies_but_for_its_cards_l3_records(tmp_path):
    """Its cards and their edges are bulk loaded without the distilled records L3 would hold (the module's doc):
    verify says so, and nothing else."""
    home = tmp_path / "synthetic"
    built = build_store(home, 300)
    engine = Engine.open(home)
    report = engine.verify().to_json()
    assert set(report["counts"]) == {"card_without_l3", "link_without_l3"}
    assert report["counts"]["card_without_l3"] == 300
    with engine.step() as graph:
        mentions = graph.query("MATCH (:Card)-[m:MENTIONS]->(:Entity) RETURN count(m)")[0][0]
    assert built["cards"] == 300 and mentions >= 300
