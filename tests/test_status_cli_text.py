"""``alaya status`` in words shows what the status document holds beyond counts: the windows of raw turns and their
vectors, the rules introspect assigns tiers by (with this store's settings), the suggestions pending review and the
last introspect; ``--json`` stays the engine's document, the one every face gets."""

from __future__ import annotations

from conftest import write_session

from alaya_engine.server.backend import LocalBackend

VARYING = ("bytes",)
"""Sizes on disk move between two calls (logs, the graph's files): compared apart from the rest."""


def _without_sizes(document):
    if isinstance(document, dict):
        return {key: _without_sizes(value) for key, value in document.items() if key not in VARYING}
    if isinstance(document, list):
        return [_without_sizes(item) for item in document]
    return document


def test_status_text_names_windows_tier_rules_review_and_last_introspect(home, tmp_path, cli):
    cli("ingest", str(write_session(tmp_path, "s-1")), str(write_session(tmp_path, "s-2")))
    document = cli("status", "--json").json()
    before = cli("status").stdout
    windows = document["l1"]["windows"]
    rules = document["tier_rules"]
    assert f"Window vectors: {windows['windows'] - windows['pending']:,} (windows of raw turns)" in before
    assert (f"HOT: temperature >= {rules['hot_threshold']}, or created within {rules['new_card_days']} days, or "
            f"recalled more than {rules['frequent_accesses']} times (at most {rules['hot_limit']:,} cards)") in before
    assert f"COLD: temperature below {rules['warm_threshold']} and untouched for {rules['cold_days']} days" in before
    assert "Review: 0 suggestions pending" in before and "Last introspect: never (run: alaya introspect)" in before
    assert cli("introspect").exit_code == 0
    after_json = cli("status", "--json").json()
    after = cli("status").stdout
    last = after_json["introspect"]
    assert last is not None and (f"Last introspect: {last['at'][:16].replace('T', ' ')} UTC "
                                 f"({', '.join(last['steps'])}; {last['elapsed_s']:g} s)") in after
    pending = after_json["review"]["pending"]
    assert f"Review: {pending:,} suggestion{'' if pending == 1 else 's'} pending" in after
    explorers = LocalBackend(home).call("status")  # what the explorer (and every other face) is given
    assert _without_sizes(after_json) == _without_sizes(explorers)
