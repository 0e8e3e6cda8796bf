"""The explorer's own engine calls (``neighbourhood``, ``card.heat``, ``browse``, ``timeline``) refuse what they
cannot answer with the project's error, a code and a one-line message (exit code 2 for the command line, the
``{"error": ...}`` document for JSON), instead of an empty answer that looks like "nothing there"."""

from __future__ import annotations

import pytest

from alaya_engine.api import call
from alaya_engine.engine import Engine
from alaya_engine.foundations.errors import USAGE, AlayaError


@pytest.fixture(scope="module")
def engine(demo_template, tmp_path_factory):
    import shutil

    home = tmp_path_factory.mktemp("explorer-errors") / "home"
    shutil.copytree(demo_template, home)
    return Engine.open(home)


def refused(engine: Engine, method: str, params: dict) -> AlayaError:
    with pytest.raises(AlayaError) as caught:
        call(engine, method, params)
    error = caught.value
    assert error.exit_code == USAGE and "\n" not in error.message
    assert error.to_json() == {"error": {"code": error.code, "message": error.message}}
    return error


@pytest.mark.parametrize("method", ["neighbourhood", "card.heat"])
def test_an_unknown_card_id_is_refused(engine, method):
    error = refused(engine, method, {"card_id": "card-nope"})
    assert error.code == "unknown_card" and "card-nope" in error.message


@pytest.mark.parametrize(("chosen", "code", "named"), [
    ({"tier": "TEPID"}, "unknown_tier", "HOT, WARM, COLD"),
    ({"type": "rumour"}, "unknown_type", "concept"),
    ({"band": "0.2-0.4"}, "unknown_band", "0.9-1.0"),
    ({"band": ["0.9-1.0"]}, "unknown_band", "0.9-1.0"),  # not a name at all: refused, never a TypeError
    ({"relation": "CAUSD_BY"}, "unknown_relation", "did you mean CAUSED_BY"),
    ({"relation": "NEVER_SEEN_ANYWHERE"}, "unknown_relation", "alaya schema --relations"),
    ({"relation": 7}, "bad_request", "relation name"),
])
def test_browse_of_an_unknown_filter_is_refused_naming_the_known_ones(engine, chosen, code, named):
    error = refused(engine, "browse", chosen)
    assert error.code == code and named in error.message


def test_browse_of_every_known_name_answers(engine):
    """Every tier, band, type and relation the status and schema documents name is browsable (a relation with no
    edges gives an empty list, not an error)."""
    hot = call(engine, "browse", {"tier": "HOT"})["cards"] + call(engine, "browse", {"tier": "WARM"})["cards"]
    call(engine, "link", {"source": hot[0]["card_id"], "target": hot[1]["card_id"], "relation": "INSPIRED_BY",
                          "reason": "a custom relation of this store", "new_relation": True})
    status = call(engine, "status", {})
    relations = call(engine, "schema", {"relations": True})["relations"]
    names = [item["name"] for group in ("core", "custom") for item in relations[group]]
    assert {"CAUSED_BY", "INSPIRED_BY"} <= set(names)
    assert call(engine, "browse", {"relation": "INSPIRED_BY"})["total"] == 1
    for chosen in ([{"tier": tier} for tier in status["l1"]["by_tier"]]
                   + [{"band": band["range"]} for band in status["temperature"]]
                   + [{"type": kind} for kind in status["l2"]["cards_by_type"]]
                   + [{"relation": name} for name in names]):
        document = call(engine, "browse", chosen)
        assert document["filter"] == chosen and document["total"] >= len(document.get("cards", document.get("edges")))


def test_timeline_refuses_an_unknown_period(engine):
    assert refused(engine, "timeline", {"by": "month"}).code == "bad_request"
