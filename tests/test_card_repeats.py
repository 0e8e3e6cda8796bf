"""One point, one card: a card another card of the session says nearly in full folds into it without losing what
it added; an assistant's answer the user accepts naming what is decided is that decision's, not also an addition
to the message it answered; two decisions one after the other, each about its own thing, stay two cards.
Sessions and cards written by hand for these tests."""

from __future__ import annotations

from alaya_engine.distill.offline import OfflineDistiller
from alaya_engine.distill.offline.candidate import Candidate
from alaya_engine.distill.offline.distiller import _fold_contained
from alaya_engine.distill.offline.text.overlap import content_words
from alaya_engine.foundations.domain import Session, Turn

DEC_1 = 1764547200000
SAID = "(said by the assistant on 1 December 2025.)"


def distilled(*turns: tuple[str, str]):
    made = [Turn(role=role, content=content) for role, content in turns]
    return OfflineDistiller().distill(Session(id="s", timestamp=DEC_1, channel="chat", turns=made))


def card(kind: str, label: str, said: str, turns: list[int]) -> Candidate:
    return Candidate(type=kind, title=said.split(". ")[0], content=f"**{label}:** {said}\n\n{SAID}", tags=[],
                     importance=0.6, turns=turns, order=(turns[0], 50), words=content_words(said), body=said)


CAUSE = card("gotcha", "Cause", "The cache key drops the tenant id, so tenants see each other's reports. The fix is "
                                "to add tenant_id to the key in reports/cache.py.", [1, 2])
FIX = "The fix is to add tenant_id to the key in reports/cache.py. Then flush the reports cache once."


def test_a_fix_its_cause_card_says_folds_into_it_keeping_the_sentence_the_cause_lacked():
    kept = _fold_contained([CAUSE, card("pattern", "Fix", FIX, [2, 3])], chinese=False)
    assert len(kept) == 1 and kept[0].type == "gotcha", [(c.type, c.title) for c in kept]
    assert kept[0].turns == [1, 2, 3]
    assert "**Details:** Then flush the reports cache once." in kept[0].content
    assert kept[0].content.endswith(SAID), "the details go before the attribution"


def test_a_decision_a_cause_card_quotes_stays_a_card_of_its_own():
    kept = _fold_contained([CAUSE, card("decision", "Decision", FIX, [2, 3])], chinese=False)
    assert sorted(c.type for c in kept) == ["decision", "gotcha"]


def test_an_accepted_answer_is_on_the_decision_only_and_two_decisions_stay_two_cards():
    result = distilled(
        ("user", "The invoice totals are off by a cent on some orders."),
        ("assistant", "ledgerkit rounds half-up by default. Patch: add round_money() in src/billing/money.py that "
                      "passes ROUND_HALF_EVEN, and use it at every call site."),
        ("user", "tests green, thanks — pip keeps pulling pydantic 2 every time I refresh the lock and the app breaks"),
        ("assistant", "That's expected: ledgerkit 0.9 still uses the pydantic v1 API. Until ledgerkit ships v2 "
                      "support, pin pydantic below 2 in requirements.in."),
        ("user", "fine, pin it. pydantic>=1.10,<2"),
    )
    telling = [c for c in result.cards for _ in range(c.content.count("pin pydantic below 2"))]
    assert len(telling) == 1, [(c.title, c.content) for c in result.cards]
    pin = telling[0]
    assert pin.type == "decision" and "pydantic>=1.10,<2" in pin.content and "round_money" not in pin.content
    patch = [c for c in result.cards if "round_money" in c.content]
    assert len(patch) == 1 and patch[0] is not pin and patch[0].type == "decision"
