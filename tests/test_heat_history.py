"""A card's temperature day by day is cool-down's formula replayed over the access log: its last point is what
introspect computed, recalls after it are counted apart, and lines naming other cards are not read."""

from __future__ import annotations

import json

import pytest

from alaya_engine.foundations.config import default_config
from alaya_engine.foundations.errors import AlayaError
from alaya_engine.introspect.heat_history import heat_history
from alaya_engine.introspect.temperature import DAY_MS, CardHeat, temperature

SETTINGS = default_config()["temperature"]
CREATED = 1_774_938_540_000


def test_the_history_replays_cooldowns_formula_up_to_the_last_introspect(tmp_path):
    log = tmp_path / "access.jsonl"
    recalls = [(CREATED + 2 * DAY_MS, 0.8), (CREATED + 5 * DAY_MS, 0.6)]
    lines = [{"at": at, "cards": [["card-a", similarity], ["card-b", 0.9]]} for at, similarity in recalls]
    lines.append({"at": CREATED + 3 * DAY_MS, "cards": [["card-b", 0.5]]})
    lines.append({"at": CREATED + 20 * DAY_MS, "cards": [["card-a", 0.7]]})  # after the introspect
    log.write_text("".join(json.dumps(line) + "\n" for line in lines) + "{torn", encoding="utf-8")
    as_of = CREATED + 10 * DAY_MS
    history = heat_history(log, "card-a", CREATED, as_of, SETTINGS)
    assert [point["day"] for point in history["points"]][0] == "2026-03-31" and len(history["points"]) == 11
    assert history["accesses"] == 2 and history["since"] == 1
    assert [point["accesses"] for point in history["points"]] == [0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0]
    stored = temperature(CardHeat("card-a", CREATED, recalls[-1][0], 2, 0.7), as_of, SETTINGS)
    assert history["points"][-1]["temperature"] == stored
    assert history["points"][0]["temperature"] == pytest.approx(0.7)  # a new card starts at the HOT threshold
    assert len(heat_history(log, "card-a", CREATED, as_of, SETTINGS, days=3)["points"]) == 3
    assert heat_history(tmp_path / "none.jsonl", "card-a", CREATED, as_of, SETTINGS)["accesses"] == 0
    with pytest.raises(AlayaError):
        heat_history(log, "card-a", CREATED, as_of, SETTINGS, days=0)
