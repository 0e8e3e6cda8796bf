"""Plumbing shared by the clients of OpenAI-compatible HTTP endpoints.

The embedder and the LLM distiller talk to the same kinds of servers, so their
retry timing, error excerpts, key handling and connection setup live here once
and cannot drift apart.
"""

from __future__ import annotations

import os
import random
import threading
from collections.abc import Mapping
from typing import Any, Protocol

import httpx

from .errors import RUNTIME, USAGE, AlayaError

BACKOFF_CAP_S = 8.0
RETRY_AFTER_CAP_S = 30.0
_EXCERPT_CHARS = 200

TRANSIENT_ERRORS = (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError)
"""Failures where the same request may well succeed a moment later."""


class _Uniform(Protocol):
    def uniform(self, a: float, b: float) -> float: ...


def is_transient_status(status: int) -> bool:
    """Whether an HTTP error status is worth retrying: rate limits and server faults."""
    return status == 429 or status >= 500


def backoff_delay(base_s: float, attempt: int, rng: _Uniform = random) -> float:
    """Exponential delay capped at 8 s, with up to 10% jitter so parallel callers don't retry in lockstep."""
    return min(BACKOFF_CAP_S, base_s * 2**attempt) * rng.uniform(1.0, 1.1)


def retry_after(response: httpx.Response) -> float | None:
    """The server's ``Retry-After`` in seconds, capped; None if absent or an HTTP date."""
    try:
        seconds = float(response.headers["Retry-After"])
    except (KeyError, ValueError):
        return None
    return min(max(seconds, 0.0), RETRY_AFTER_CAP_S)


def excerpt(response: httpx.Response, secret: str) -> str:
    """The server's error message on one line, ≤200 chars, with ``secret`` redacted.

    Some servers echo the rejected key back in their error text.
    """
    text = response.text
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and error.get("message"):
            text = str(error["message"])
        elif error or payload.get("detail") or payload.get("message"):
            text = str(error or payload.get("detail") or payload.get("message"))
    if secret:
        text = text.replace(secret, "***")
    text = " ".join(text.split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "…"


def read_api_key(env_name: str | None, environ: Mapping[str, str] | None, *, code: str, config_key: str) -> str:
    """The key from ``env_name`` in ``environ`` (default ``os.environ``).

    Empty when no key is configured; an :class:`AlayaError` with ``code`` when
    one is configured but unset. The message names the variable and
    ``config_key``, never a value.
    """
    if not env_name:
        return ""
    key = (os.environ if environ is None else environ).get(env_name, "").strip()
    if not key:
        raise AlayaError(
            code,
            f"environment variable {env_name} is not set; export it or change {config_key} in config.json",
            USAGE,
        )
    return key


def rejected(
    endpoint: str, status: int, detail: str, *, code: str, api_key_env: str | None, config_key: str
) -> AlayaError:
    """A non-retryable 4xx from ``endpoint`` (e.g. "LLM endpoint URL"), with a hint at the usual cause of 401/403."""
    message = f"{endpoint} rejected the request: HTTP {status} {detail}".rstrip()
    if status in (401, 403):
        if api_key_env:
            message += f"; check the API key in environment variable {api_key_env}"
        else:
            message += f"; the endpoint wants an API key: set {config_key} in config.json"
    return AlayaError(code, message, RUNTIME)


class LazyClient:
    """One ``httpx.Client`` with bearer auth, built on first use and rebuilt after :meth:`close`.

    Creation is deferred because building a client costs ~50 ms of TLS setup,
    and locked because callers share it across threads.
    """

    def __init__(self, *, api_key: str, timeout_s: float, max_connections: int | None = None):
        """``max_connections`` None keeps httpx's default pool limits."""
        self._api_key = api_key
        self._timeout_s = timeout_s
        self._max_connections = max_connections
        self._client: httpx.Client | None = None
        self._lock = threading.Lock()

    def get(self) -> httpx.Client:
        """The shared client, creating it if needed."""
        with self._lock:
            if self._client is None:
                options: dict[str, Any] = {
                    "headers": {"Authorization": f"Bearer {self._api_key}"} if self._api_key else {},
                    "timeout": self._timeout_s,
                    "follow_redirects": True,
                }
                if self._max_connections is not None:
                    options["limits"] = httpx.Limits(max_connections=self._max_connections)
                self._client = httpx.Client(**options)
            return self._client

    def close(self) -> None:
        """Release pooled connections; a later :meth:`get` opens new ones."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None
