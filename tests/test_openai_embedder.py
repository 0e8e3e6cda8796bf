"""OpenAIEmbedder against a real HTTP server on 127.0.0.1.

The server answers ``POST /v1/embeddings`` with vectors derived from a hash of
each input, so expected results can be computed independently, and each test
can queue scripted replies (errors, delays, bad bodies) ahead of the default.
"""

from __future__ import annotations

import hashlib
import json
import logging
import socket
import subprocess
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import numpy as np
import pytest
from conftest import local_http_server

from alaya_engine.embedding.openai_provider import OpenAIEmbedder
from alaya_engine.foundations.errors import RUNTIME, USAGE, AlayaError

DIM = 8
KEY_ENV = "ALAYA_TEST_EMBED_KEY"
SECRET = "sk-test-very-secret-4242"


def fake_vector(text: str, dim: int = DIM) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [byte - 127.5 for byte in digest[:dim]]


def expected_rows(texts: list[str]) -> np.ndarray:
    rows = np.asarray([fake_vector(t) for t in texts], dtype=np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


@dataclass
class Reply:
    """One scripted answer; ``body=None`` means the normal embedding response."""

    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    delay_s: float = 0.0


class FakeEndpoint:
    """Shared state between the test and the server's handler threads."""

    def __init__(self) -> None:
        self.url = ""
        self.dim = DIM
        self.delay_s = 0.0
        self.script: deque[Reply] = deque()
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()

    def next_reply(self) -> Reply:
        with self.lock:
            return self.script.popleft() if self.script else Reply(delay_s=self.delay_s)


def make_handler(endpoint: FakeEndpoint) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # else keep-alive replies stall ~40 ms on delayed ACKs

        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            reply = endpoint.next_reply()
            with endpoint.lock:
                endpoint.requests.append(
                    {"path": self.path, "headers": dict(self.headers), "body": body, "port": self.client_address[1]}
                )
                endpoint.in_flight += 1
                endpoint.max_in_flight = max(endpoint.max_in_flight, endpoint.in_flight)
            try:
                time.sleep(reply.delay_s)
                payload = reply.body
                if payload is None:
                    data = [
                        {"object": "embedding", "index": i, "embedding": fake_vector(text, endpoint.dim)}
                        for i, text in enumerate(body["input"])
                    ]
                    # Reversed so the client must order by index, not position.
                    payload = json.dumps({"object": "list", "data": data[::-1]}).encode()
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            finally:
                with endpoint.lock:
                    endpoint.in_flight -= 1

    return Handler


@pytest.fixture
def endpoint() -> Iterator[FakeEndpoint]:
    state = FakeEndpoint()
    with local_http_server(make_handler(state)) as url:
        state.url = url
        yield state


def make_embedder(endpoint: FakeEndpoint, **overrides: object) -> OpenAIEmbedder:
    options: dict = {
        "base_url": endpoint.url,
        "model": "test-embed",
        "dimensions": DIM,
        "api_key_env": None,
        "backoff_base_s": 0.0,
        "environ": {},
    }
    options.update(overrides)
    return OpenAIEmbedder(**options)


def test_batches_are_split_and_reassembled_in_input_order(endpoint: FakeEndpoint) -> None:
    texts = [f"memory {i % 200}" for i in range(250)]  # 50 duplicates
    embedder = make_embedder(endpoint, batch_size=100)

    result = embedder.embed(texts)

    assert embedder.name == "openai:test-embed"
    assert embedder.dimension == DIM
    assert sorted(len(r["body"]["input"]) for r in endpoint.requests) == [50, 100, 100]
    sent = sorted(t for r in endpoint.requests for t in r["body"]["input"])
    assert sent == sorted(texts)
    assert result.dtype == np.float32
    assert result.shape == (250, DIM)
    np.testing.assert_allclose(np.linalg.norm(result, axis=1), 1.0, rtol=1e-5)
    np.testing.assert_allclose(result, expected_rows(texts), rtol=1e-5)
    assert np.array_equal(result[3], result[203])
    assert not np.array_equal(result[3], result[4])


def test_lists_embedded_together_come_back_each_as_its_own_call_would(endpoint: FakeEndpoint) -> None:
    lists = [["memory 1", "memory 2"], [], ["memory 3"]]
    embedder = make_embedder(endpoint, batch_size=100)

    result = embedder.embed_each(lists)

    assert len(endpoint.requests) == 1 and [matrix.shape for matrix in result] == [(2, DIM), (0, DIM), (1, DIM)]
    for texts, matrix in zip(lists, result):
        if texts:
            np.testing.assert_allclose(matrix, expected_rows(texts), rtol=1e-5)
    assert embedder.embed_each([]) == []


def test_request_body_shape_and_dimensions_flag(endpoint: FakeEndpoint) -> None:
    make_embedder(endpoint).embed(["a"])
    make_embedder(endpoint, send_dimensions=True).embed(["b"])

    plain, with_dims = endpoint.requests
    assert plain["path"] == "/v1/embeddings"
    assert plain["body"] == {"model": "test-embed", "input": ["a"], "encoding_format": "float"}
    assert with_dims["body"]["dimensions"] == DIM


def test_queries_and_documents_carry_their_own_prefixes(endpoint: FakeEndpoint) -> None:
    """An asymmetric model (e5) is told which side a text is on; without prefixes both sides are sent as is."""
    embedder = make_embedder(endpoint, query_prefix="query: ", document_prefix="passage: ")

    asked = embedder.embed_query(["where do I live"])
    stored = embedder.embed(["I live in Lyon"])
    make_embedder(endpoint).embed_query(["plain"])

    assert [r["body"]["input"] for r in endpoint.requests] == [["query: where do I live"], ["passage: I live in Lyon"],
                                                              ["plain"]]
    np.testing.assert_allclose(asked, expected_rows(["query: where do I live"]), rtol=1e-5)
    np.testing.assert_allclose(stored, expected_rows(["passage: I live in Lyon"]), rtol=1e-5)


def test_batches_run_concurrently_up_to_the_limit(endpoint: FakeEndpoint) -> None:
    endpoint.delay_s = 0.1
    embedder = make_embedder(endpoint, batch_size=1, max_concurrency=4)

    result = embedder.embed([f"t{i}" for i in range(8)])

    assert len(endpoint.requests) == 8
    assert 2 <= endpoint.max_in_flight <= 4
    np.testing.assert_allclose(result, expected_rows([f"t{i}" for i in range(8)]), rtol=1e-5)


def test_429_is_retried_then_succeeds(endpoint: FakeEndpoint) -> None:
    endpoint.script.append(Reply(429, {"Retry-After": "0"}, b'{"error": {"message": "slow down"}}'))

    result = make_embedder(endpoint).embed(["hello"])

    assert len(endpoint.requests) == 2
    np.testing.assert_allclose(result, expected_rows(["hello"]), rtol=1e-5)


def test_retry_after_is_honoured_and_capped(endpoint: FakeEndpoint) -> None:
    endpoint.script.extend([Reply(429, {"Retry-After": "7"}, b"{}"), Reply(503, {"Retry-After": "120"}, b"{}")])
    sleeps: list[float] = []

    make_embedder(endpoint, sleep=sleeps.append).embed(["x"])

    assert sleeps == [7.0, 30.0]


def test_backoff_is_exponential_and_capped(endpoint: FakeEndpoint) -> None:
    endpoint.script.extend(Reply(503, body=b"busy") for _ in range(4))
    sleeps: list[float] = []

    make_embedder(endpoint, backoff_base_s=3.0, sleep=sleeps.append).embed(["x"])

    assert len(sleeps) == 4
    for actual, base in zip(sleeps, [3.0, 6.0, 8.0, 8.0]):
        assert base <= actual <= base * 1.1


def test_5xx_exhausted_raises_unavailable(endpoint: FakeEndpoint) -> None:
    endpoint.script.extend(Reply(503, body=b'{"error": {"message": "model overloaded"}}') for _ in range(3))

    with pytest.raises(AlayaError) as info:
        make_embedder(endpoint, max_retries=2).embed(["x"])

    assert info.value.code == "embedding_unavailable"
    assert info.value.exit_code == RUNTIME
    assert "after 3 attempts" in info.value.message
    assert "HTTP 503 model overloaded" in info.value.message
    assert endpoint.url in info.value.message
    assert len(endpoint.requests) == 3


def test_each_failed_attempt_is_logged_and_the_key_never_is(endpoint: FakeEndpoint, caplog) -> None:
    echo = json.dumps({"error": {"message": f"bad gateway for Bearer {SECRET}"}}).encode()
    endpoint.script.extend(Reply(502, body=echo) for _ in range(3))
    embedder = make_embedder(endpoint, api_key_env=KEY_ENV, environ={KEY_ENV: SECRET}, max_retries=2)

    logger = logging.getLogger("alaya_engine")
    # an engine opened earlier in this process stops propagation to the root, where caplog listens
    added = not logger.propagate
    if added:
        logger.addHandler(caplog.handler)
    try:
        with caplog.at_level(logging.WARNING, logger="alaya_engine"), pytest.raises(AlayaError) as info:
            embedder.embed(["x"])
    finally:
        if added:
            logger.removeHandler(caplog.handler)

    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2  # the third failure is the error itself
    for number, line in enumerate(lines, start=1):
        assert line.startswith(f"embedding endpoint {endpoint.url}: attempt {number}/3 failed (HTTP 502 ")
    assert "bad gateway for Bearer ***" in info.value.message
    assert SECRET not in "\n".join(lines) + info.value.message


def test_timeout_is_retried(endpoint: FakeEndpoint) -> None:
    endpoint.script.append(Reply(delay_s=2.0))

    # The retry's prompt answer must arrive within the timeout on a loaded machine too (0.1 s was missed there).
    result = make_embedder(endpoint, timeout_s=0.5).embed(["slow"])

    assert len(endpoint.requests) == 2
    np.testing.assert_allclose(result, expected_rows(["slow"]), rtol=1e-5)


def test_connection_refused_exhausts_retries() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    embedder = OpenAIEmbedder(
        base_url=f"http://127.0.0.1:{port}/v1",
        model="m",
        dimensions=DIM,
        api_key_env=None,
        max_retries=2,
        backoff_base_s=0.0,
    )

    with pytest.raises(AlayaError) as info:
        embedder.embed(["x"])

    assert info.value.code == "embedding_unavailable"
    assert "after 3 attempts" in info.value.message


def test_401_names_the_env_var_and_never_the_key(endpoint: FakeEndpoint) -> None:
    echo = json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}}).encode()
    endpoint.script.append(Reply(401, body=echo))
    embedder = make_embedder(endpoint, api_key_env=KEY_ENV, environ={KEY_ENV: SECRET})

    with pytest.raises(AlayaError) as info:
        embedder.embed(["x"])

    error = info.value
    assert error.code == "embedding_rejected"
    assert error.exit_code == RUNTIME
    assert "HTTP 401" in error.message and KEY_ENV in error.message
    for rendering in (error.message, str(error), repr(error), json.dumps(error.to_json()), repr(embedder)):
        assert SECRET not in rendering
    assert len(endpoint.requests) == 1


def test_other_4xx_fails_fast_with_short_one_line_excerpt(endpoint: FakeEndpoint) -> None:
    long_message = "input too long\n" + "x" * 1000
    endpoint.script.append(Reply(400, body=json.dumps({"error": {"message": long_message}}).encode()))

    with pytest.raises(AlayaError) as info:
        make_embedder(endpoint).embed(["x"])

    message = info.value.message
    assert info.value.code == "embedding_rejected"
    assert "HTTP 400 input too long" in message
    assert "\n" not in message
    assert message.count("x") <= 200
    assert len(endpoint.requests) == 1


@pytest.mark.parametrize("value", [None, "", "  "])
def test_missing_api_key_fails_at_construction(endpoint: FakeEndpoint, value: str | None) -> None:
    environ = {} if value is None else {KEY_ENV: value}

    with pytest.raises(AlayaError) as info:
        make_embedder(endpoint, api_key_env=KEY_ENV, environ=environ)

    assert info.value.code == "embedding_api_key_missing"
    assert info.value.exit_code == USAGE
    assert KEY_ENV in info.value.message
    assert endpoint.requests == []


def test_authorization_header_only_when_a_key_is_configured(endpoint: FakeEndpoint) -> None:
    make_embedder(endpoint, api_key_env=None).embed(["a"])
    make_embedder(endpoint, api_key_env=KEY_ENV, environ={KEY_ENV: SECRET}).embed(["b"])

    anonymous, keyed = (r["headers"] for r in endpoint.requests)
    assert "Authorization" not in anonymous
    assert keyed["Authorization"] == f"Bearer {SECRET}"


def test_dimension_mismatch(endpoint: FakeEndpoint) -> None:
    endpoint.dim = 5

    with pytest.raises(AlayaError) as info:
        make_embedder(endpoint).embed(["x"])

    assert info.value.code == "embedding_dimension_mismatch"
    assert info.value.exit_code == USAGE
    assert "5-dimensional" in info.value.message
    assert f"embedding.dimensions is {DIM}" in info.value.message


@pytest.mark.parametrize(
    "body",
    [
        b"not json {",
        b'{"object": "list"}',
        b'{"data": [{"index": 0, "embedding": [1, 2, 3, 4, 5, 6, 7, 8]}]}',  # 1 vector for 2 inputs
        b'{"data": [{"index": 0, "embedding": "abc"}, {"index": 1, "embedding": "def"}]}',
    ],
)
def test_malformed_response(endpoint: FakeEndpoint, body: bytes) -> None:
    endpoint.script.append(Reply(200, body=body))

    with pytest.raises(AlayaError) as info:
        make_embedder(endpoint).embed(["x", "y"])

    assert info.value.code == "embedding_bad_response"
    assert info.value.exit_code == RUNTIME


def test_connections_are_reused_until_close(endpoint: FakeEndpoint) -> None:
    embedder = make_embedder(endpoint)

    embedder.embed(["a"])
    embedder.embed(["b"])
    embedder.close()
    result = embedder.embed(["c"])

    first, second, third = (r["port"] for r in endpoint.requests)
    assert first == second
    assert third != first
    np.testing.assert_allclose(result, expected_rows(["c"]), rtol=1e-5)


def test_empty_input_makes_no_request(endpoint: FakeEndpoint) -> None:
    result = make_embedder(endpoint).embed([])

    assert result.shape == (0, DIM)
    assert result.dtype == np.float32
    assert endpoint.requests == []


def test_import_does_not_load_numpy() -> None:
    code = "import sys, alaya_engine.embedding.openai_provider; print('numpy' in sys.modules)"
    repo = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=repo, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
