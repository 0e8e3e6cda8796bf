"""Navigation a person can act on: recall ends with the command of the next step and never advises navigating
when nothing is explorable; ``alaya link`` catches a mistyped relation and says when a link already existed."""

from __future__ import annotations

import json
import shlex

import jsonschema

from alaya_engine.schemas import json_schema

SCHEMA = json_schema("recall")
QUESTION = "nginx 502 after deploy"


def test_recall_ends_with_the_command_that_follows_the_best_relation(demo_cli, demo_home):
    document = demo_cli("recall", QUESTION, "--json").json()
    jsonschema.validate(document, SCHEMA)
    best = document["explorable"][0]
    assert document["next_request"] == {"from_nodes": best["from_nodes"], "relations": [best["rel"]], "depth": 1,
                                        "text": QUESTION}
    human = demo_cli("recall", QUESTION).stdout.rstrip().splitlines()
    assert human[-1].startswith(f"Next step: alaya --home {demo_home} recall --from-nodes ")
    words = shlex.split(human[-1].removeprefix("Next step: "))
    assert words[-1] == QUESTION and words[words.index("--rel") + 1] == best["rel"]
    followed = demo_cli(*words[3:], "--json")  # the pasted command, without "alaya --home H"
    assert followed.exit_code == 0, followed.stderr
    assert followed.json()["query"]["from_nodes"] == best["from_nodes"]
    assert {node["via"] for node in followed.json()["nodes"] if node["kind"] == "card"} <= set(best["from_nodes"])


def test_nothing_explorable_means_no_advice_to_navigate(cli, tmp_path):
    session = tmp_path / "first.json"
    session.write_text(json.dumps({"id": "lonely", "timestamp": 1764547200000, "turns": [
        {"role": "user", "content": "Our nginx returns 502 after every deploy. Why?"},
        {"role": "assistant", "content": "The cause is proxy_read_timeout: the upstream restarts slower than 60 s."}]}))
    assert cli("ingest", str(session), "--distill").exit_code == 0
    document = cli("recall", "upstream restart", "--json").json()
    jsonschema.validate(document, SCHEMA)
    assert document["nodes"] and document["explorable"] == [] and document["next_request"] is None
    assert "navigate" not in document["verdict"] and document["verdict"].startswith(("far from", "getting closer"))
    human = cli("recall", "upstream restart").stdout
    assert "navigate" not in human and "Next step" not in human and "Explorable" not in human
