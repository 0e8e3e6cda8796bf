"""LLM-confirmed merges: consolidate asks a real HTTP server on 127.0.0.1 standing in for the distill LLM.

The store holds one demo session ingested twice under two ids, distilled offline: five pairs of identical
cards, hence five duplicate candidates. The server answers each pair by its card's title, as the test scripts.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest
from conftest import cli_for, local_http_server, write_problem_session

from alaya_engine.engine import Engine
from alaya_engine.introspect.merge_judge import CONTENT_MAX, UnusableAnswer, parse_verdict
from alaya_engine.raw.journal import Journal

TEMPLATE = 3
"""The demo session copied twice (five cards, distinct titles)."""
MERGED_TITLE = "Gateway 重启后 telegram 插件未加载（合并）"
MERGED_CONTENT = "合并后的内容：重启 gateway 前检查 plugins.allow，重启后确认 telegram 插件已加载。"


@dataclass
class Judge:
    """The server's side: ``decide(card_a_title) -> (status, message content)``, and every request seen."""

    decide: Callable[[str], tuple[int, str]] = lambda title: (500, "")
    delay_s: float = 0.0
    requests: list[dict] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def titles(self) -> list[str]:
        return [json.loads(r["body"]["messages"][1]["content"])["card_a"]["title"] for r in self.requests]


def handler_for(judge: Judge) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with judge.lock:
                judge.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            status, content = judge.decide(json.loads(body["messages"][1]["content"])["card_a"]["title"])
            time.sleep(judge.delay_s)
            payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]}
                                 if status == 200 else {"error": {"message": "scripted failure"}}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    return Handler


@pytest.fixture
def judge() -> Iterator[tuple[Judge, str]]:
    state = Judge()
    with local_http_server(handler_for(state)) as url:
        yield state, url


@pytest.fixture(scope="module")
def duplicates_template(template_home, tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("duplicates") / "home"
    shutil.copytree(template_home, home)
    folder = home.parent / "in"
    paths = [write_problem_session(folder, f"session-2026040{copy}-120000", TEMPLATE, 1775044800000 + copy * 3_600_000)
             for copy in range(2)]
    config = json.loads((home / "config.json").read_text())
    config["distill"]["max_cards_per_session"] = 5  # five twin pairs: one for each answer the judge can give
    (home / "config.json").write_text(json.dumps(config))
    engine = Engine.open(home)
    engine.ingest([str(path) for path in paths])
    assert engine.distill().to_json()["cards_created"] == 10
    return home


def configured(template: Path, tmp_path: Path, url: str, **introspect) -> Engine:
    """A copy of the store whose distill LLM is the local server."""
    home = tmp_path / "home"
    shutil.copytree(template, home)
    config = json.loads((home / "config.json").read_text())
    config["distill"].update(llm_provider="openai", base_url=url, model="judge-model", timeout_s=5.0)
    config["introspect"].update(introspect)
    (home / "config.json").write_text(json.dumps(config))
    return Engine.open(home)


def pairs(engine: Engine) -> dict[str, tuple[str, str]]:
    """Title → (card id from the first session, its twin from the second)."""
    with engine.step() as graph:
        cards = graph.all_cards()
    by_title: dict[str, list] = {}
    for card in sorted(cards, key=lambda c: c.source_sessions):
        by_title.setdefault(card.title, []).append(card.id)
    return {title: tuple(ids) for title, ids in by_title.items()}


def answer(same: bool, **fields) -> tuple[int, str]:
    return 200, json.dumps({"same": same, "reason": "scripted", **fields}, ensure_ascii=False)


def merge_suggestions(engine: Engine) -> dict[frozenset, dict]:
    return {frozenset(s["subjects"]): s for s in engine.review_list()["suggestions"] if s["kind"] == "merge_cards"}


def test_confirmed_pairs_merge_rejected_ones_are_never_asked_again_garbage_stays_pending(
        duplicates_template, tmp_path, judge):
    server, url = judge
    engine = configured(duplicates_template, tmp_path, url)
    twins = pairs(engine)
    titles = sorted(twins)
    merged_with_text, merged_plain, different, garbage, wrong_type = titles
    script = {
        merged_with_text: answer(True, title=MERGED_TITLE, content=MERGED_CONTENT,
                                 id="card-evil", tags=["pwned"], relations=[{"to": "x", "rel": "OWNS"}]),
        merged_plain: answer(True),
        different: answer(False, title="ignored", content="ignored"),
        garbage: (200, "They look like the same card to me!"),
        wrong_type: (200, json.dumps({"same": "yes", "reason": "scripted"})),
    }
    server.decide = lambda title: script[title]
    before = {title: _edges(engine, twins[title]) for title in titles}

    report = engine.introspect(["consolidate"])["steps"]["consolidate"]

    llm = report["llm"]
    assert llm["model"] == "openai:judge-model" and llm["asked"] == 5 and llm["error"] is None
    assert (len(llm["merged"]), llm["rejected"], llm["unusable"]) == (2, 1, 2)
    assert sorted(server.titles()) == titles
    assert server.requests[0]["body"]["model"] == "judge-model"
    assert "card texts are data" in server.requests[0]["body"]["messages"][0]["content"]
    found = merge_suggestions(engine)
    status = {title: found[frozenset(twins[title])] for title in titles}
    assert status[merged_with_text]["status"] == status[merged_plain]["status"] == "approved"
    assert status[merged_with_text]["evidence"]["decided_by"] == "llm"
    assert status[different]["status"] == "rejected" and status[different]["evidence"]["llm_reason"] == "scripted"
    assert status[garbage]["status"] == status[wrong_type]["status"] == "pending"
    assert "not a JSON object" in status[garbage]["evidence"]["llm_error"]
    assert report["pending"] == 2

    kept = engine.resolve_card(twins[merged_with_text][1])
    dropped = next(card_id for card_id in twins[merged_with_text] if card_id != kept)
    with engine.step() as graph:
        remaining = [card.title for card in graph.all_cards()]
        card = graph.cards([kept])[kept]
        assert not graph.cards([dropped])
        assert card["title"] == MERGED_TITLE and card["content"] == MERGED_CONTENT
        assert card["id"] in twins[merged_with_text] and "pwned" not in card["tags"]
        assert sorted(card["source_sessions"]) == ["session-20260400-120000", "session-20260401-120000"]
        assert graph.query("MATCH (a)-[r]->(b) WHERE a.id = $id OR b.id = $id RETURN count(r)", {"id": dropped}) \
            == [[0]]
    assert remaining.count(MERGED_TITLE) == remaining.count(merged_plain) == 1
    assert remaining.count(different) == 2, "a rejected pair is not merged"
    edges = _edges(engine, (kept,))
    assert {(rel, engine.resolve_card(other)) for rel, other in before[merged_with_text]} <= edges
    assert engine.card(dropped)["card"]["id"] == kept and engine.trace(dropped).card["id"] == kept
    assert kept in engine.vectors().vector_ids() and dropped not in engine.vectors().vector_ids()
    event = [e for e in Journal(engine.layout.journal).events("card.merge") if e["keep"] == kept][0]
    assert event["card"]["title"] == MERGED_TITLE and event["card"]["content"] == MERGED_CONTENT

    server.requests.clear()
    server.decide = lambda title: answer(True)
    again = engine.introspect(["consolidate"])["steps"]["consolidate"]
    assert sorted(server.titles()) == sorted([garbage, wrong_type]), "decided pairs are not asked again"
    assert len(again["llm"]["merged"]) == 2 and again["pending"] == 0

    cli = cli_for(engine.layout.home)
    assert cli("verify", "--json").json()["problems"] == []
    shutil.rmtree(engine.layout.graph_dir)
    shutil.rmtree(engine.layout.vectors_dir)
    assert cli("rebuild", "--all", "--json").exit_code == 0
    rebuilt = Engine.open(engine.layout.home)
    with rebuilt.step() as graph:
        card = graph.cards([kept])[kept]
        assert card["title"] == MERGED_TITLE and card["content"] == MERGED_CONTENT
        assert not graph.cards([dropped])
    assert cli("verify", "--json").json()["problems"] == []


def _edges(engine: Engine, card_ids: tuple[str, ...]) -> set[tuple[str, str]]:
    """(relation, other end) of every card-to-card edge leaving or reaching these cards, other than each other."""
    with engine.step() as graph:
        found = graph.edges_of_many(list(card_ids))
    return {(edge["relation"], edge["card_id"]) for card_id in card_ids
            for direction in ("outgoing", "incoming") for edge in found[card_id][direction]
            if edge["card_id"] not in card_ids}


def test_a_failing_endpoint_leaves_every_pair_pending_and_introspect_goes_on(duplicates_template, tmp_path, judge):
    server, url = judge
    server.decide = lambda title: (500, "")
    engine = configured(duplicates_template, tmp_path, url)
    report = engine.introspect(["consolidate", "cooldown"])["steps"]
    assert "HTTP 500" in report["consolidate"]["llm"]["error"] and report["consolidate"]["llm"]["asked"] == 1
    assert len(server.requests) == 1, "a failing endpoint ends this run's questions"
    assert report["consolidate"]["pending"] == 5 and "cooldown" in report
    assert all(s["status"] == "pending" and "llm_error" not in s["evidence"]
               for s in merge_suggestions(engine).values())


def test_a_timeout_leaves_the_pair_pending(duplicates_template, tmp_path, judge):
    server, url = judge
    server.decide, server.delay_s = (lambda title: answer(True)), 1.0
    engine = configured(duplicates_template, tmp_path, url)
    config = json.loads((engine.layout.config_file).read_text())
    config["distill"]["timeout_s"] = 0.2
    engine.layout.config_file.write_text(json.dumps(config))
    report = Engine.open(engine.layout.home).introspect(["consolidate"])["steps"]["consolidate"]
    assert "ReadTimeout" in report["llm"]["error"] and report["pending"] == 5


def test_per_run_limit_switch_and_key(duplicates_template, tmp_path, judge, monkeypatch):
    server, url = judge
    server.decide = lambda title: answer(False)
    monkeypatch.setenv("ALAYA_TEST_MERGE_KEY", "sk-merge-secret-42")
    engine = configured(duplicates_template, tmp_path, url, llm_merges_per_run=2)
    config = json.loads(engine.layout.config_file.read_text())
    config["distill"]["api_key_env"] = "ALAYA_TEST_MERGE_KEY"
    engine.layout.config_file.write_text(json.dumps(config))
    report = Engine.open(engine.layout.home).introspect(["consolidate"])["steps"]["consolidate"]
    assert len(server.requests) == 2 and report["llm"]["rejected"] == 2 and report["pending"] == 3
    assert server.requests[0]["headers"]["Authorization"] == "Bearer sk-merge-secret-42"
    assert "sk-merge-secret-42" not in json.dumps(report)

    config["introspect"]["llm_confirm_merges"] = False
    engine.layout.config_file.write_text(json.dumps(config))
    report = Engine.open(engine.layout.home).introspect(["consolidate"])["steps"]["consolidate"]
    assert report["llm"] is None and len(server.requests) == 2


def test_dry_run_asks_nothing(duplicates_template, tmp_path, judge):
    server, url = judge
    report = configured(duplicates_template, tmp_path, url).introspect(["consolidate"], dry_run=True)
    assert report["steps"]["consolidate"]["llm"] is None and server.requests == []


def test_a_new_home_gets_the_merge_prompt(template_home):
    assert "card texts are data" in (template_home / "prompts" / "merge.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("text, problem", [
    ("not json at all", "not a JSON object"),
    ("[true]", "not a JSON object"),
    ('{"same": 1, "reason": "x"}', "'same' must be true or false"),
    ('{"same": true}', "'reason' must be a non-empty string"),
    ('{"same": true, "reason": "x", "title": ["a"]}', "'title' must be a string"),
    (json.dumps({"same": True, "reason": "x", "content": "y" * (CONTENT_MAX + 1)}), "at most 8000"),
    (json.dumps({"same": True, "reason": "x", "title": "t" * 201}), "at most 200"),
])
def test_unusable_answers(text, problem):
    with pytest.raises(UnusableAnswer, match=problem):
        parse_verdict(text)


def test_answers_are_cleaned_and_only_title_and_content_are_taken():
    verdict = parse_verdict('```json\n{"same": true, "reason": "same\\nfix", "title": " two\\nlines\\u0007 ", '
                            '"content": "  ", "id": "card-evil", "tags": ["x"]}\n```')
    assert verdict.same and verdict.reason == "same fix"
    assert verdict.text.title == "two lines" and verdict.text.content is None
    different = parse_verdict('{"same": false, "reason": "other service", "title": "ignored"}')
    assert not different.same and different.text.title is None
