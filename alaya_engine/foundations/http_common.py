"""Plumbing shared by the clients of OpenAI-compatible HTTP endpoints.

The embedder and the LLM distiller talk to the same kinds of servers, so their
retry loop (:class:`RetryLoop`), error excerpts, key handling and connection
setup live here once and cannot drift apart.
"""

from __future__ import annotations

import logging
import os
import random
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any, Protocol, TypeVar

import httpx

from .errors import RUNTIME, USAGE, AlayaError

log = logging.getLogger(__name__)
T = TypeVar("T")

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
    text = " ".join(redact(text, secret).split())
    return text if len(text) <= _EXCERPT_CHARS else text[: _EXCERPT_CHARS - 1] + "…"


def redact(text: str, secret: str) -> str:
    """``text`` with ``secret`` replaced by ``***`` (an empty secret redacts nothing)."""
    return text.replace(secret, "***") if secret else text


class RetryableFailure(Exception):
    """One attempt failed in a way that asking again may fix.

    ``retry_after_s`` is the server's ``Retry-After``, waited instead of the backoff. ``wait`` False asks again at
    once: the server answered, only its answer was unusable. ``gives_up_as`` (code, what) names the final error if
    this is the last failure, e.g. ``("distill_failed", "model output could not be parsed")``; by default it is
    the loop's own code and "<endpoint> failed".
    """

    def __init__(
        self,
        failure: str,
        *,
        retry_after_s: float | None = None,
        wait: bool = True,
        gives_up_as: tuple[str, str] | None = None,
    ):
        super().__init__(failure)
        self.failure = failure
        self.retry_after_s = retry_after_s
        self.wait = wait
        self.gives_up_as = gives_up_as


class RetryLoop:
    """The one retry loop of the clients: ``max_retries + 1`` attempts of one request at one endpoint.

    An attempt that raises :class:`RetryableFailure` is logged (the key redacted) and tried again after the
    server's ``Retry-After``, else a capped exponential backoff, or at once for an unusable answer; when none is
    left, an :class:`AlayaError` names the endpoint, the number of attempts and the last failure. Anything else
    an attempt raises ends the loop at once. Shared by threads: it keeps no state between calls.
    """

    def __init__(
        self,
        *,
        endpoint: str,
        code: str,
        max_retries: int,
        backoff_base_s: float,
        secret: str,
        sleep: Callable[[float], None] = time.sleep,
    ):
        """``endpoint`` names it in messages ("LLM endpoint https://…"); ``code`` is the error code of a
        request that never got through; ``secret`` (the API key) never appears in a message or the log."""
        self.endpoint = endpoint
        self.attempts = max_retries + 1
        self._code = code
        self._backoff_base_s = backoff_base_s
        self._secret = secret
        self._sleep = sleep

    def run(self, attempt: Callable[[], T], *, subject: str = "") -> T:
        """``attempt()``'s result once it succeeds; ``subject`` ("session s1: ") leads the log lines and the error."""
        number = 0
        while True:
            number += 1
            try:
                return attempt()
            except RetryableFailure as retry:
                failure = redact(retry.failure, self._secret)
                if number == self.attempts:
                    code, what = retry.gives_up_as or (self._code, f"{self.endpoint} failed")
                    raise AlayaError(
                        code, f"{subject}{what} after {self.attempts} attempts: {failure}", RUNTIME
                    ) from None
                delay = self._delay(retry, number - 1)
                log.warning(
                    "%s%s: attempt %d/%d failed (%s); retrying in %.1f s",
                    subject, self.endpoint, number, self.attempts, failure, delay,
                )
                self._sleep(delay)

    def post(self, client: httpx.Client, url: str, body: dict[str, Any]) -> httpx.Response:
        """One request: its response if it succeeded or was refused for good (a 4xx other than 429, for the
        caller to read), :class:`RetryableFailure` if it is worth asking again, an :class:`AlayaError` if the
        endpoint cannot be reached at all (a bad URL, TLS)."""
        try:
            response = client.post(url, json=body)
        except TRANSIENT_ERRORS as exc:
            raise RetryableFailure(f"{type(exc).__name__} {exc}".strip()) from None
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise AlayaError(self._code, f"cannot reach {self.endpoint}: {exc}", RUNTIME) from exc
        if is_transient_status(response.status_code):
            detail = excerpt(response, self._secret)
            raise RetryableFailure(f"HTTP {response.status_code} {detail}".strip(), retry_after_s=retry_after(response))
        return response

    def _delay(self, retry: RetryableFailure, attempt: int) -> float:
        if not retry.wait:
            return 0.0
        if retry.retry_after_s is not None:
            return retry.retry_after_s
        return backoff_delay(self._backoff_base_s, attempt)


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
