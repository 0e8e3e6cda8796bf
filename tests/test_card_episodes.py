"""Consecutive cards about one thing are one card; a cause and the decision answering it stay two, linked; what
another subject says stays apart. Sessions written by hand for these tests."""

from __future__ import annotations

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.foundations.domain import Session, Turn

DEC_1 = 1764547200000


def distilled(*turns: tuple[str, str]):
    made = [Turn(role=role, content=content) for role, content in turns]
    return OfflineDistiller().distill(Session(id="s", timestamp=DEC_1, channel="chat", turns=made))


def holding(cards: list, *needles: str) -> list:
    return [card for card in cards if all(needle in f"{card.title}\n{card.content}" for needle in needles)]


def test_a_result_and_the_change_it_led_to_are_one_card_and_another_subject_stays_apart():
    result = distilled(
        ("user", "My ferritin came back at 12 ug/L today, still low."),
        ("assistant", "Last time Dr Haas had you on 65 mg iron every other day for the low ferritin. "
                      "What did she say this time?"),
        ("user", "She wants it daily now: 65 mg every morning with orange juice, and a retest in 8 weeks."),
        ("assistant", "Updated: 65 mg iron daily with orange juice, retest in 8 weeks, so early March."),
        ("user", "Also, unrelated: my sister Ines moved to Porto last week."),
        ("assistant", "Noted: Ines lives in Porto now."),
    )
    whole = holding(result.cards, "12 ug/L", "every other day", "daily", "8 weeks")
    assert len(whole) == 1, [(card.title, card.turns) for card in result.cards]
    assert whole[0].turns == [0, 1, 2, 3]
    assert "Porto" not in whole[0].content
    assert holding(result.cards, "Ines", "Porto"), "the other subject keeps its own card"
    assert whole[0].content.count("(said by") == 1, "one attribution closes the joined card"


def test_a_cause_and_the_decision_it_led_to_stay_two_cards_linked():
    result = distilled(
        ("user", "The nightly export job on report-01 dies at 02:10 with exit code 137 since Monday."),
        ("assistant", "Exit 137 is the OOM killer: the cause is the container limit of 512Mi while the job loads the "
                      "whole 1.8 GB export into memory."),
        ("user", "I decided to stream the export in 10k-row pages instead of raising the limit, because the node "
                 "has no headroom."),
    )
    cause = holding(result.cards, "512Mi")
    decision = holding(result.cards, "10k-row pages")
    assert cause and decision and cause[0] is not decision[0], [(c.type, c.title) for c in result.cards]
    titles = {card.title: card for card in result.cards}
    assert any(link.relation == "CAUSED_BY" and titles.get(link.from_title) is decision[0]
               and titles.get(link.to_title) is cause[0] for link in result.links), result.links
