"""Navigation a person can act on: unless the result is close, recall ends with the command of the next step
(the same question, twice as many results: reading further down finds more than a hop at the same tokens) and
never advises following a relation; ``alaya link`` catches a mistyped relation and says when a link already
existed."""

from __future__ import annotations

import json
import shlex

import jsonschema

from alaya_engine.engine import Engine
from alaya_engine.schemas import json_schema

SCHEMA = json_schema("recall")
QUESTION = "nginx 502 after deploy"
FAR = "how long do backups stay"
"""A question the demo store has no close answer to."""


def test_recall_ends_with_the_command_that_reads_further_down(demo_cli, demo_home):
    document = demo_cli("recall", FAR, "--json").json()
    jsonschema.validate(document, SCHEMA)
    assert document["verdict"] != "close to target" and document["explorable"], document["verdict"]
    assert document["next_request"] == {"text": FAR, "max_results": 20}
    assert "follow" not in document["verdict"] and "max_results 20" in document["verdict"]
    human = demo_cli("recall", FAR).stdout.rstrip().splitlines()
    assert human[-1] == f"Next step: alaya --home {demo_home} recall --max-results 20 {shlex.quote(FAR)}"
    words = shlex.split(human[-1].removeprefix("Next step: "))
    further = demo_cli(*words[3:], "--json")  # the pasted command, without "alaya --home H"
    assert further.exit_code == 0, further.stderr
    nodes = further.json()["nodes"]
    assert len(nodes) == 20  # the first ten again (a window may widen, merged with one ranked further down)
    assert [(node["kind"], node["h_distance"]) for node in nodes[:10]] == [
        (node["kind"], node["h_distance"]) for node in document["nodes"]]
    assert further.json()["next_request"]["max_results"] == 40


def test_a_close_result_advises_nothing_and_a_relation_is_never_advised(demo_cli, cli, tmp_path):
    close = demo_cli("recall", QUESTION, "--json").json()
    assert close["verdict"] == "close to target" and close["next_request"] is None
    assert "Next step" not in demo_cli("recall", QUESTION).stdout
    session = tmp_path / "first.json"
    session.write_text(json.dumps({"id": "lonely", "timestamp": 1764547200000, "turns": [
        {"role": "user", "content": "Our nginx returns 502 after every deploy. Why?"},
        {"role": "assistant", "content": "The cause is proxy_read_timeout: the upstream restarts slower than 60 s."}]}))
    assert cli("ingest", str(session), "--distill").exit_code == 0
    document = cli("recall", "upstream restart", "--json").json()
    jsonschema.validate(document, SCHEMA)
    assert document["nodes"] and document["explorable"] == []
    assert "navigate" not in document["verdict"] and "follow" not in document["verdict"]
    assert document["next_request"] is None or "from_nodes" not in document["next_request"]
    human = cli("recall", "upstream restart").stdout
    assert "navigate" not in human and "--from-nodes" not in human and "Explorable" not in human


def two_cards(demo_cli) -> tuple[str, str]:
    nodes = [node for node in demo_cli("recall", "gateway restart telegram", "--json").json()["nodes"]
             if node["kind"] == "card"]
    return nodes[0]["card_id"], nodes[1]["card_id"]


def test_a_mistyped_relation_is_refused_with_the_nearest_known_one(demo_cli, demo_home):
    first, second = two_cards(demo_cli)
    before = sorted((demo_home / "raw").rglob("*"))
    typo = demo_cli("link", first, second, "--rel", "CAUSD_BY")
    assert typo.exit_code == 2 and typo.stdout == ""
    assert typo.stderr.count("\n") == 1 and "did you mean CAUSED_BY?" in typo.stderr and "--new-relation" in typo.stderr
    as_json = demo_cli("link", first, second, "--rel", "CAUSD_BY", "--json")
    assert as_json.exit_code == 2 and as_json.json()["error"]["code"] == "new_relation"
    assert sorted((demo_home / "raw").rglob("*")) == before, "a refused link writes nothing"
    created = demo_cli("link", first, second, "--rel", "CAUSD_BY", "--new-relation")
    assert created.exit_code == 0, created.stderr
    assert "New relation: CAUSD_BY" in created.stdout and "Created link" in created.stdout
    again = demo_cli("link", second, first, "--rel", "CAUSD_BY", "--json")
    assert again.exit_code == 0 and again.json()["new_relation"] is False, "a relation exists once created"


def test_linking_an_existing_pair_says_so(demo_cli, demo_home):
    first, second = two_cards(demo_cli)
    created = demo_cli("link", first, second, "--rel", "DEPENDS_ON")
    assert created.exit_code == 0 and f"Created link: {first} DEPENDS_ON {second}" in created.stdout
    again = demo_cli("link", first, second, "--rel", "DEPENDS_ON", "--reason", "checked twice")
    assert again.exit_code == 0 and "Created" not in again.stdout
    assert f"Already linked: {first} DEPENDS_ON {second}" in again.stdout
    assert demo_cli("link", first, second, "--rel", "DEPENDS_ON", "--json").json()["created"] is False
    with Engine.open(demo_home).step() as graph:
        edges = [edge for edge in graph.edges_of(first)["outgoing"]
                 if edge["relation"] == "DEPENDS_ON" and edge["card_id"] == second]
    assert len(edges) == 1, "the same edge, updated, not a second one"


def test_on_a_terminal_a_new_relation_is_created_after_a_yes(demo_cli, demo_home):
    """A person at a terminal is asked instead of refused; the answer is typed into a real pseudo-terminal."""
    import os
    import pty
    import shutil
    import subprocess
    import sys
    import time

    first, second = two_cards(demo_cli)
    command = shutil.which("alaya", path=os.path.dirname(sys.executable))
    controller, terminal = pty.openpty()
    process = subprocess.Popen([command, "--home", str(demo_home), "link", first, second, "--rel", "FIXED_BY"],
                               stdin=terminal, stdout=terminal, stderr=terminal, close_fds=True,
                               env={**os.environ, "ALAYA_NO_SERVER": "1"})
    os.close(terminal)
    seen, answered, deadline = b"", False, time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # EIO: the command ended and its terminal closed
            break
        if not chunk:
            break
        seen += chunk
        if not answered and b"Create it anyway? [y/N]" in seen:
            os.write(controller, b"y\n")
            answered = True
    process.wait(timeout=60)
    os.close(controller)
    text = seen.decode(errors="replace")
    assert answered and "FIXED_BY would be a new relation" in text, text
    assert process.returncode == 0 and "New relation: FIXED_BY" in text and "Created link" in text, text
