"""LLMDistiller against a real HTTP server on 127.0.0.1, plus the prompt and parser on their own.

The server answers ``POST /v1/chat/completions`` from a queue of scripted
replies the test fills, and records every request so tests can check what was
sent and how often.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

import alaya_engine
from alaya_engine.distill.base import Distillation
from alaya_engine.distill.llm import LLMDistiller
from alaya_engine.distill.parse import UnparseableOutput, parse_distillation
from alaya_engine.distill.prompt import load_prompt, render_turns
from alaya_engine.foundations.domain import Session, Turn
from alaya_engine.foundations.errors import RUNTIME, USAGE, AlayaError
from alaya_engine.foundations.relations import is_core

PROMPT = Path(alaya_engine.__file__).parent / "prompts" / "distill.txt"
KEY_ENV = "ALAYA_TEST_LLM_KEY"
SECRET = "sk-test-llm-secret-1337"


@dataclass
class Reply:
    status: int = 200
    body: bytes = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def answer(content: str | dict) -> Reply:
    """A chat completion whose message is ``content`` (a dict is sent as its JSON text)."""
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    completion = {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}]}
    return Reply(body=json.dumps(completion).encode())


class FakeLLM:
    """Shared state between a test and the server's handler threads."""

    def __init__(self) -> None:
        self.url = ""
        self.script: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.lock = threading.Lock()

    def queue(self, *replies: Reply) -> None:
        self.script.extend(replies)

    def next_reply(self) -> Reply:
        with self.lock:
            return self.script.popleft() if self.script else Reply(500, b'{"error": {"message": "no scripted reply"}}')


def make_handler(llm: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with llm.lock:
                llm.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
            reply = llm.next_reply()
            time.sleep(reply.delay_s)
            self.send_response(reply.status)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(reply.body)))
            self.end_headers()
            self.wfile.write(reply.body)

    return Handler


def make_distiller(llm: FakeLLM, **overrides: object) -> LLMDistiller:
    options: dict = {
        "base_url": llm.url,
        "model": "test-chat",
        "api_key_env": None,
        "prompt_path": PROMPT,
        "backoff_base_s": 0.0,
        "max_retries": 2,
        "environ": {},
    }
    options.update(overrides)
    return LLMDistiller(**options)


def make_session(session_id: str = "session-llm-1", tokens: int = 500, turns: list[Turn] | None = None) -> Session:
    return Session(
        id=session_id,
        timestamp=1774938540000,
        channel="telegram",
        turns=turns
        or [
            Turn("user", "Why did no Telegram notification arrive?"),
            Turn(
                "assistant",
                "Checking the gateway config: plugins.allow is missing telegram.",
                tool_calls=[{"name": "exec", "arguments": {"command": "cat gw.json"}}],
            ),
            Turn("tool", '{"plugins": {"allow": []}}', tool_name="exec"),
        ],
        metadata={"tokens": tokens},
    )


def card(title: str, **fields: object) -> dict:
    return {"title": title, "content": f"About {title}.", "type": "gotcha", "tags": ["gateway"], "importance": 0.7,
            **fields}


GOOD = {
    "cards": [
        card("plugins.allow gates channels", tags=["gateway", "telegram"], importance=0.9, turns=[1, 2]),
        card("Check the allow list first", type="pattern", importance=0.6),
    ],
    "links": [
        {"from_title": "Check the allow list first", "to_title": "plugins.allow gates channels",
         "relation": "DEPENDS_ON", "reason": "the check exists because of the gate"},
    ],
}


# --- the distiller over HTTP ---------------------------------------------------------------


def test_well_formed_answer_becomes_cards_and_links(llm: FakeLLM) -> None:
    llm.queue(answer(GOOD))

    result = make_distiller(llm).distill(make_session())

    assert [c.title for c in result.cards] == ["plugins.allow gates channels", "Check the allow list first"]
    assert [c.type for c in result.cards] == ["gotcha", "pattern"]
    assert result.cards[0].tags == ["gateway", "telegram"]
    assert result.cards[0].importance == 0.9
    assert result.cards[0].turns == [1, 2]
    assert result.cards[1].turns == []
    assert [(link.from_title, link.to_title, link.relation) for link in result.links] == [
        ("Check the allow list first", "plugins.allow gates channels", "DEPENDS_ON")
    ]
    assert result.links[0].reason == "the check exists because of the gate"
    assert result.dropped_links == 0 and result.skipped_reason is None
    assert len(llm.requests) == 1


def test_request_carries_the_rendered_prompt(llm: FakeLLM) -> None:
    llm.queue(answer(GOOD))
    distiller = make_distiller(llm, api_key_env=KEY_ENV, environ={KEY_ENV: SECRET})

    distiller.distill(make_session("session-xyz-42"))

    (request,) = llm.requests
    body = request["body"]
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == f"Bearer {SECRET}"
    assert body["model"] == "test-chat"
    assert body["temperature"] == 0
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    file_system = PROMPT.read_text(encoding="utf-8").split("=== USER ===")[0].split("=== SYSTEM ===")[1].strip()
    assert system == {"role": "system", "content": file_system}
    assert user["role"] == "user"
    assert "Session ID: session-xyz-42" in user["content"]
    assert "Channel: telegram" in user["content"]
    assert "Timestamp: 2026-03-31T06:29:00+00:00" in user["content"]
    assert "[0] user: Why did no Telegram notification arrive?" in user["content"]
    assert '    → exec({"command": "cat gw.json"})' in user["content"]
    assert '[2] tool: [exec] {"plugins": {"allow": []}}' in user["content"]
    assert "{session_content}" not in user["content"]


def test_fenced_answer_with_prose_around_it(llm: FakeLLM) -> None:
    fenced = f"Sure! Here are the cards:\n```json\n{json.dumps(GOOD, indent=2)}\n```\nHope this helps {{:}}"
    llm.queue(answer(fenced))

    result = make_distiller(llm).distill(make_session())

    assert [c.title for c in result.cards] == ["plugins.allow gates channels", "Check the allow list first"]
    assert len(result.links) == 1


def test_malformed_answer_is_asked_again(llm: FakeLLM) -> None:
    llm.queue(answer("I could not find any JSON to give you, sorry."), answer(GOOD))
    sleeps: list[float] = []

    result = make_distiller(llm, sleep=sleeps.append).distill(make_session())

    assert len(llm.requests) == 2
    assert len(result.cards) == 2
    assert sleeps == [0.0]


def test_429_is_retried_after_retry_after(llm: FakeLLM) -> None:
    llm.queue(Reply(429, b'{"error": {"message": "slow down"}}', {"Retry-After": "0"}), answer(GOOD))
    sleeps: list[float] = []

    result = make_distiller(llm, sleep=sleeps.append).distill(make_session())

    assert len(llm.requests) == 2
    assert sleeps == [0.0]
    assert len(result.cards) == 2


def test_5xx_backs_off_exponentially_then_gives_up(llm: FakeLLM) -> None:
    llm.queue(*(Reply(503, b'{"error": {"message": "overloaded"}}') for _ in range(3)))
    sleeps: list[float] = []

    with pytest.raises(AlayaError) as info:
        make_distiller(llm, backoff_base_s=1.0, sleep=sleeps.append).distill(make_session())

    assert info.value.code == "distill_unavailable"
    assert info.value.exit_code == RUNTIME
    assert "session-llm-1" in info.value.message
    assert "after 3 attempts: HTTP 503 overloaded" in info.value.message
    assert len(sleeps) == 2 and 1.0 <= sleeps[0] <= 1.1 and 2.0 <= sleeps[1] <= 2.2


def test_timeout_is_retried(llm: FakeLLM) -> None:
    llm.queue(Reply(delay_s=0.3), answer(GOOD))

    result = make_distiller(llm, timeout_s=0.1).distill(make_session())

    assert len(llm.requests) == 2
    assert len(result.cards) == 2


def test_custom_relation_is_normalised_and_core_stays_core(llm: FakeLLM) -> None:
    links = [
        {"from_title": "A", "to_title": "B", "relation": "led to"},
        {"from_title": "B", "to_title": "A", "relation": "caused by"},
    ]
    llm.queue(answer({"cards": [card("A"), card("B")], "links": links}))

    result = make_distiller(llm).distill(make_session())

    assert [link.relation for link in result.links] == ["LED_TO", "CAUSED_BY"]
    assert not is_core("LED_TO") and is_core("CAUSED_BY")


def test_link_to_unknown_title_is_dropped_and_counted(llm: FakeLLM) -> None:
    links = [
        {"from_title": "  a ", "to_title": "b", "relation": "SIMILAR_TO"},
        {"from_title": "A", "to_title": "Nowhere", "relation": "CAUSES"},
    ]
    llm.queue(answer({"cards": [card("A"), card("B")], "links": links}))

    result = make_distiller(llm).distill(make_session())

    assert [(link.from_title, link.to_title) for link in result.links] == [("A", "B")]
    assert result.dropped_links == 1


def test_unknown_type_becomes_concept(llm: FakeLLM) -> None:
    llm.queue(answer({"cards": [card("A", type="insight"), card("B", type="Decision")]}))

    result = make_distiller(llm).distill(make_session())

    assert [c.type for c in result.cards] == ["concept", "decision"]
    assert result.links == []


def test_too_many_cards_keeps_the_most_important(llm: FakeLLM) -> None:
    cards = [card("low", importance=0.1), card("high", importance=0.9), card("mid", importance=0.5),
             card("tie", importance=0.5)]
    links = [
        {"from_title": "high", "to_title": "mid", "relation": "CAUSES"},
        {"from_title": "low", "to_title": "high", "relation": "CAUSES"},
        {"from_title": "tie", "to_title": "high", "relation": "CAUSES"},
    ]
    llm.queue(answer({"cards": cards, "links": links}))

    result = make_distiller(llm, max_cards_per_session=2).distill(make_session())

    assert [c.title for c in result.cards] == ["high", "mid"]
    assert [(link.from_title, link.to_title) for link in result.links] == [("high", "mid")]
    assert result.dropped_links == 2


def test_rejected_response_format_is_dropped_and_remembered(llm: FakeLLM) -> None:
    refusal = b'{"error": {"message": "response_format json_object is not supported by this model"}}'
    llm.queue(Reply(400, refusal), answer(GOOD), answer(GOOD))
    distiller = make_distiller(llm, max_retries=0)

    first = distiller.distill(make_session("s1"))
    distiller.distill(make_session("s2"))

    assert len(first.cards) == 2
    assert ["response_format" in r["body"] for r in llm.requests] == [True, False, False]


def test_other_400_fails_fast(llm: FakeLLM) -> None:
    llm.queue(Reply(400, b'{"error": {"message": "context length exceeded"}}'))

    with pytest.raises(AlayaError) as info:
        make_distiller(llm).distill(make_session())

    assert info.value.code == "distill_rejected"
    assert "HTTP 400 context length exceeded" in info.value.message
    assert len(llm.requests) == 1


def test_401_names_the_env_var_and_never_the_key(llm: FakeLLM) -> None:
    llm.queue(Reply(401, json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}).encode()))
    distiller = make_distiller(llm, api_key_env=KEY_ENV, environ={KEY_ENV: SECRET})

    with pytest.raises(AlayaError) as info:
        distiller.distill(make_session())

    error = info.value
    assert error.code == "distill_rejected"
    assert error.exit_code == RUNTIME
    assert "HTTP 401" in error.message and KEY_ENV in error.message
    for rendering in (error.message, str(error), repr(error), json.dumps(error.to_json()), repr(distiller)):
        assert SECRET not in rendering
    assert len(llm.requests) == 1


@pytest.mark.parametrize("value", [None, "", "  "])
def test_missing_api_key_fails_at_construction(llm: FakeLLM, value: str | None) -> None:
    environ = {} if value is None else {KEY_ENV: value}

    with pytest.raises(AlayaError) as info:
        make_distiller(llm, api_key_env=KEY_ENV, environ=environ)

    assert info.value.code == "distill_api_key_missing"
    assert info.value.exit_code == USAGE
    assert KEY_ENV in info.value.message


@pytest.mark.parametrize("overrides", [{"max_retries": -1}, {"max_cards_per_session": 0}])
def test_nonsense_limits_are_refused(llm: FakeLLM, overrides: dict) -> None:
    with pytest.raises(AlayaError) as info:
        make_distiller(llm, **overrides)

    assert info.value.code == "distill_config_invalid"
    assert info.value.exit_code == USAGE


def test_malformed_every_time_fails_after_all_attempts(llm: FakeLLM) -> None:
    llm.queue(*(answer("no json here") for _ in range(3)))

    with pytest.raises(AlayaError) as info:
        make_distiller(llm, max_retries=2).distill(make_session())

    assert info.value.code == "distill_failed"
    assert info.value.exit_code == RUNTIME
    assert info.value.message.startswith("session session-llm-1: model output could not be parsed after 3 attempts: ")
    assert len(llm.requests) == 3


def test_cache_hit_makes_no_request(llm: FakeLLM, tmp_path: Path) -> None:
    llm.queue(answer(GOOD), answer(GOOD))
    cache = tmp_path / "cache"

    first = make_distiller(llm, cache_dir=cache).distill(make_session())
    again = make_distiller(llm, cache_dir=cache).distill(make_session())
    assert len(llm.requests) == 1
    make_distiller(llm, cache_dir=cache, model="other-model").distill(make_session())

    assert again == first
    assert len(llm.requests) == 2
    assert len(list(cache.glob("*.json"))) == 2


def test_damaged_cache_entry_costs_one_request(llm: FakeLLM, tmp_path: Path) -> None:
    llm.queue(answer(GOOD), answer(GOOD))
    make_distiller(llm, cache_dir=tmp_path).distill(make_session())
    (entry,) = tmp_path.glob("*.json")
    entry.write_text("{truncated", encoding="utf-8")

    result = make_distiller(llm, cache_dir=tmp_path).distill(make_session())

    assert len(result.cards) == 2
    assert len(llm.requests) == 2
    assert json.loads(entry.read_text(encoding="utf-8"))["session_id"] == "session-llm-1"


def test_unparseable_answers_are_not_cached(llm: FakeLLM, tmp_path: Path) -> None:
    llm.queue(answer("nope"), answer(GOOD))

    make_distiller(llm, cache_dir=tmp_path).distill(make_session())

    (entry,) = tmp_path.glob("*.json")
    assert json.loads(json.loads(entry.read_text(encoding="utf-8"))["content"]) == GOOD


def test_short_session_is_skipped_without_a_request(llm: FakeLLM) -> None:
    result = make_distiller(llm, min_session_tokens=200).distill(make_session(tokens=120))

    assert result == Distillation(cards=[], links=[], skipped_reason=result.skipped_reason)
    assert "120 tokens" in result.skipped_reason and "min_session_tokens (200)" in result.skipped_reason
    assert llm.requests == []


def test_prompt_missing_a_marker_is_refused(llm: FakeLLM, tmp_path: Path) -> None:
    broken = tmp_path / "distill.txt"
    broken.write_text("=== SYSTEM ===\nYou distil.\nSession: {session_content}\n", encoding="utf-8")

    with pytest.raises(AlayaError) as info:
        make_distiller(llm, prompt_path=broken)

    assert info.value.code == "prompt_invalid"
    assert info.value.exit_code == USAGE
    assert str(broken) in info.value.message and "=== USER ===" in info.value.message


# --- the prompt ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("just text {session_content}", "no '=== SYSTEM ===' and no '=== USER ==='"),
        ("=== USER ===\nu {session_content}\n=== SYSTEM ===\ns", "before"),
        ("=== SYSTEM ===\n\n=== USER ===\nu {session_content}", "empty system"),
        ("=== SYSTEM ===\ns\n=== USER ===\nno placeholder", "lacks {session_content}"),
    ],
)
def test_load_prompt_explains_what_is_wrong(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "p.txt"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(AlayaError) as info:
        load_prompt(path)

    assert info.value.code == "prompt_invalid"
    assert problem in info.value.message


def test_load_prompt_of_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(AlayaError) as info:
        load_prompt(tmp_path / "absent.txt")

    assert info.value.code == "prompt_invalid"
    assert "absent.txt" in info.value.message


def test_render_keeps_json_braces_and_ignores_placeholders_inside_the_session() -> None:
    template = load_prompt(PROMPT)
    session = make_session(turns=[Turn("user", "literally {channel} and {session_id}")])

    system, user = template.render(session)

    assert '"cards": [' in system and "{\n" in system
    assert "[0] user: literally {channel} and {session_id}" in user


def test_openai_style_tool_calls_are_rendered() -> None:
    call = {"id": "c1", "type": "function", "function": {"name": "read", "arguments": '{"path": "a.txt"}'}}

    rendered = render_turns([Turn("assistant", "", tool_calls=[call])])

    assert rendered == '[0] assistant: \n    → read({"path": "a.txt"})'


def test_long_sessions_keep_head_and_tail_with_original_indices() -> None:
    turns = [Turn("user", f"message {i:03d} " + "x" * 80) for i in range(100)]

    rendered = render_turns(turns, budget_chars=2_000)

    assert len(rendered) <= 2_100
    assert rendered.startswith("[0] user: message 000")
    assert rendered.endswith("[99] user: message 099 " + "x" * 80)
    head_end = rendered.index("[… turns ")
    assert "[8] user: message 008" in rendered[:head_end]  # ~103 chars a turn, half the budget
    marker = rendered[head_end:].splitlines()[0]
    first, last = (int(n) for n in marker.split("turns ")[1].split(" ")[0].split("–"))
    assert f"[{first - 1}] user" in rendered and f"[{first}] user" not in rendered
    assert f"[{last + 1}] user" in rendered and f"[{last}] user" not in rendered
    assert f"({last - first + 1} of 100)" in marker


def test_one_huge_turn_is_cut_in_the_middle() -> None:
    huge = "HEAD" + "y" * 10_000 + "TAIL"

    rendered = render_turns([Turn("tool", huge, tool_name="exec")], budget_chars=1_600)

    assert rendered.startswith("[0] tool: [exec] HEAD")
    assert rendered.endswith("TAIL")
    assert "characters cut …]" in rendered
    assert len(rendered) < 400


# --- the parser ------------------------------------------------------------------------------


def test_parse_fills_defaults() -> None:
    result = parse_distillation('{"cards": [{"title": "  Only   a title "}]}', max_cards=10)

    (only,) = result.cards
    assert (only.title, only.content, only.type, only.tags, only.importance, only.turns) == (
        "Only a title", "Only a title", "concept", [], 0.5, []
    )
    assert result.links == [] and result.dropped_links == 0


@pytest.mark.parametrize(
    ("tags", "expected"),
    [
        ("python, asyncio ,, python", ["python", "asyncio"]),
        ("网关，配置、telegram", ["网关", "配置", "telegram"]),
        (["#a", " b ", "", None, 3], ["a", "b", "3"]),
        (42, []),
    ],
)
def test_parse_tags(tags: object, expected: list[str]) -> None:
    result = parse_distillation(json.dumps({"cards": [{"title": "t", "tags": tags}]}), max_cards=10)

    assert result.cards[0].tags == expected


@pytest.mark.parametrize(
    ("importance", "expected"),
    [(1.7, 1.0), (-3, 0.0), ("0.25", 0.25), ("high", 0.5), (None, 0.5), (True, 0.5)],
)
def test_parse_importance_is_clamped(importance: object, expected: float) -> None:
    result = parse_distillation(json.dumps({"cards": [{"title": "t", "importance": importance}]}), max_cards=10)

    assert result.cards[0].importance == expected


@pytest.mark.parametrize(
    ("field_name", "value", "expected"),
    [("turns", [3, 1, "2", 1.5, True, "x", 3], [1, 2, 3]), ("source_turns", [0, 4], [0, 4]), ("turns", 7, [7])],
)
def test_parse_turns(field_name: str, value: object, expected: list[int]) -> None:
    result = parse_distillation(json.dumps({"cards": [{"title": "t", field_name: value}]}), max_cards=10)

    assert result.cards[0].turns == expected


def test_parse_deduplicates_titles_and_links() -> None:
    document = {
        "cards": [card("Same Title"), card("same   title", content="second"), card("Other"), "not a card", {}],
        "links": [
            {"from_title": "same title", "to_title": "other", "relation": "causes"},
            {"from_title": "Same Title", "to_title": "Other", "relation": "CAUSES"},
            {"from_title": "Other", "to_title": "other", "relation": "SIMILAR_TO"},
            {"from_title": "Other", "to_title": "Same Title", "relation": "!!!"},
            {"from_title": "Other", "to_title": "Same Title", "relation": "EXTRACTED_FROM"},
            "not a link",
        ],
    }

    result = parse_distillation(json.dumps(document), max_cards=10)

    assert [c.title for c in result.cards] == ["Same Title", "Other"]
    assert result.cards[0].content == "About Same Title."
    assert [(link.from_title, link.to_title, link.relation) for link in result.links] == [
        ("Same Title", "Other", "CAUSES")]
    assert result.dropped_links == 4


@pytest.mark.parametrize(
    "text",
    [
        '<think>maybe {"cards": 1}?</think>{"cards": [{"title": "t"}]}',
        'prefix {"note": "a {brace} in a string"} then {"cards": [{"title": "t"}]} suffix }',
        '{"result": {"cards": [{"title": "t"}]}}',
        '[{"title": "t"}]',
        '```\n{"cards": [{"title": "t"}], "links": []}\n```',
    ],
)
def test_parse_finds_the_object_wherever_it_is(text: str) -> None:
    assert [c.title for c in parse_distillation(text, max_cards=10).cards] == ["t"]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty answer"),
        ("no json at all", "no JSON object"),
        ('{"cards": [{"title": "t"}', "no JSON object"),
        ('{"items": []}', "no JSON object"),
        ('{"cards": "a, b"}', '"cards" is a str'),
    ],
)
def test_parse_refuses_unusable_text(text: str, reason: str) -> None:
    with pytest.raises(UnparseableOutput) as info:
        parse_distillation(text, max_cards=10)

    assert reason in info.value.reason


def test_parse_empty_cards_is_a_valid_answer() -> None:
    assert parse_distillation('{"cards": [], "links": []}', max_cards=10) == Distillation(cards=[], links=[])


# --- the whole pipeline with the LLM distiller chosen in config.json -----------------------


def test_configured_llm_distills_into_the_store_with_a_custom_relation(llm: FakeLLM, home: Path) -> None:
    import json as json_module

    from alaya_engine.demo import sample_sessions_dir
    from alaya_engine.engine import Engine

    config = json_module.loads((home / "config.json").read_text())
    config["distill"].update(llm_provider="openai", base_url=llm.url, model="test-chat")
    (home / "config.json").write_text(json_module.dumps(config))
    engine = Engine.open(home)
    engine.ingest([str(sample_sessions_dir() / "session-20260309-013000.json")])
    answer_document = {**GOOD, "links": [*GOOD["links"], {"from_title": "plugins.allow gates channels",
                                                          "to_title": "Check the allow list first",
                                                          "relation": "led to", "reason": "the outage led to a rule"}]}
    llm.queue(answer(answer_document))
    report = engine.distill().to_json()
    assert report["distiller"] == "openai:test-chat" and report["cards_created"] == 2
    with engine.step() as graph:
        assert graph.query("MATCH (a:Card)-[r:CUSTOM]->(b:Card) RETURN a.title, r.type, b.title") == [
            ["plugins.allow gates channels", "LED_TO", "Check the allow list first"]]
    assert "LED_TO" in engine.vectors().relation_names()
    uses = {r["name"]: r["uses"] for r in engine.schema_relations().to_json()["custom"]}
    assert uses == {"LED_TO": 1}
    requests_before = len(llm.requests)
    forced = engine.distill(["session-20260309-013000"], force=True).to_json()
    assert forced["cards_created"] == 2 and len(llm.requests) == requests_before, "answered from the cache"
