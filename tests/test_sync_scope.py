"""Per-agent isolation: a recall scoped to ``agent=NAME`` plus ``shared`` returns that agent's sessions and the shared
ones (by config.json's share rules, a session's own ``metadata.share``, or because another machine pushed it), never
another agent's private ones; a store made before the graph kept share marks gets them from L3 when opened."""

from __future__ import annotations

import json
import shutil

from conftest import cli_for, write_session

from alaya_engine.raw.windows import parse_window_id

SESSIONS = {  # id: agent, channel, metadata
    "own-1": ("main", "telegram", {}),
    "ops-private": ("ops", "telegram", {}),
    "ops-team": ("ops", "platform", {}),
    "ops-marked": ("ops", "telegram", {"share": "shared"}),
    "main-marked-private": ("main", "platform", {"share": "private"}),
    "pulled-1": ("other", "elsewhere", {"origin": "laptop-7f3a"}),  # as a pull stores another machine's session
}
VISIBLE = {"own-1", "ops-team", "ops-marked", "pulled-1", "main-marked-private"}
"""To agent main with ``shared``: its own sessions (a private mark keeps a session from others, not from its own
agent), the platform project's (a share rule), the one marked shared and the one pulled."""


def sources(engine, request: dict) -> set[str]:
    """The sessions of the windows of raw turns a recall returns (cards obey the same scope: test_sync.py)."""
    nodes = engine.recall({**request, "max_results": 40}).nodes
    return {parse_window_id(node.card_id)[0] for node in nodes if parse_window_id(node.card_id)}


def test_an_agent_sees_its_own_sessions_and_the_shared_ones_only(template_home, tmp_path):
    from alaya_engine.engine import Engine

    home = tmp_path / "store"
    shutil.copytree(template_home, home)
    config = json.loads((home / "config.json").read_text())
    (home / "config.json").write_text(json.dumps({**config, "share": {"include": ["project=platform"],
                                                                      "exclude": []}}))
    paths = [write_session(tmp_path / "in", session_id, agent=agent, channel=channel, metadata=metadata,
                           turns=[{"role": "user", "content": f"The {session_id} gateway drops telegram messages "
                                                              "after a restart. Why?"},
                                  {"role": "assistant", "content": f"The cause is the {session_id} webhook timeout."}])
             for session_id, (agent, channel, metadata) in SESSIONS.items()]
    engine = Engine.open(home)
    engine.ingest(list(map(str, paths)))
    asked = {"text": "gateway drops telegram messages after a restart"}
    assert sources(engine, asked) == set(SESSIONS)
    assert sources(engine, {**asked, "scope": ["agent=main", "shared"]}) == VISIBLE
    assert sources(engine, {**asked, "scope": ["shared"]}) == {"ops-team", "ops-marked", "pulled-1"}
    with engine.hold() as graph:  # as a store made before the graph kept the marks (opened again after this)
        graph.query("ALTER TABLE Session DROP share")
    assert sources(engine, {**asked, "scope": ["agent=main", "shared"]}) == VISIBLE

    cli = cli_for(home)
    refused = cli("recall", "x", "--scope", "sharing", "--json")
    assert refused.exit_code == 2 and "or shared" in refused.json()["error"]["message"]
    (home / "config.json").write_text(json.dumps({**config, "share": {"include": ["shared"], "exclude": []}}))
    assert cli("push", "--dry-run", "--json").json()["error"]["code"] == "bad_scope"
