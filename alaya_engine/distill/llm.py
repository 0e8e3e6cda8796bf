"""Distillation by any OpenAI-compatible ``POST {base_url}/chat/completions`` endpoint.

One request per session, at temperature 0, asking for a JSON object. Answers
are parsed forgivingly (:mod:`.parse`); transient failures (429, 5xx,
timeouts, dropped connections) and answers with no usable JSON are retried
with the same budget, transport failures after capped exponential backoff.
Parsed-clean answers can be cached on disk, keyed by session content, model
and prompt text, so re-distilling an unchanged session costs nothing.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx

from ..foundations.atomic import atomic_write_json
from ..foundations.domain import Session
from ..foundations.errors import USAGE, AlayaError
from ..foundations.http_common import LazyClient, RetryableFailure, RetryLoop, excerpt, read_api_key, rejected
from .base import Distillation
from .parse import UnparseableOutput, parse_distillation
from .prompt import load_prompt

log = logging.getLogger(__name__)


UNPARSEABLE = ("distill_failed", "model output could not be parsed")
"""How the retry loop gives up when not even the last answer held usable JSON."""


class _JsonModeRefused(Exception):
    """The server rejected ``response_format``; ask again without it."""


class LLMDistiller:
    """A :class:`~alaya_engine.distill.base.Distiller` backed by a chat-completions endpoint."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        api_key_env: str | None,
        prompt_path: Path,
        max_cards_per_session: int = 10,
        min_session_tokens: int = 200,
        timeout_s: float = 60,
        max_retries: int = 4,
        backoff_base_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        environ: Mapping[str, str] | None = None,
        cache_dir: Path | None = None,
    ):
        """Read the API key and the prompt now, so a bad setup fails before any session is sent."""
        if max_retries < 0 or max_cards_per_session < 1:
            raise AlayaError(
                "distill_config_invalid",
                "distill.max_cards_per_session must be at least 1 and max_retries at least 0",
                USAGE,
            )
        self.name = f"openai:{model}"
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api_key_env = api_key_env or None
        self._api_key = read_api_key(
            self._api_key_env, environ, code="distill_api_key_missing", config_key="distill.api_key_env"
        )
        self._prompt = load_prompt(prompt_path)
        self._max_cards = max_cards_per_session
        self._min_tokens = min_session_tokens
        self._retry = RetryLoop(
            endpoint=f"LLM endpoint {self._base_url}",
            code="distill_unavailable",
            max_retries=max_retries,
            backoff_base_s=backoff_base_s,
            secret=self._api_key,
            sleep=sleep,
        )
        self._cache_dir = cache_dir
        self._json_mode = True
        """Cleared for good once the server refuses ``response_format``."""
        self._client = LazyClient(api_key=self._api_key, timeout_s=timeout_s)

    def __repr__(self) -> str:
        # Spelled out so the API key can never leak through a debug print.
        return f"LLMDistiller(name={self.name!r}, base_url={self._base_url!r})"

    def distill(self, session: Session) -> Distillation:
        """Cards and links for ``session``; too-short sessions are skipped without a request."""
        if session.tokens < self._min_tokens:
            return Distillation(
                cards=[],
                links=[],
                skipped_reason=f"{session.tokens} tokens, below distill.min_session_tokens ({self._min_tokens})",
            )
        key = self._cache_key(session)
        cached = self._cache_read(key)
        if cached is not None:
            try:
                return parse_distillation(cached, self._max_cards, session.timestamp)
            except UnparseableOutput:
                log.warning("distill cache entry %s is unusable; asking the model again", key)
        text, distillation = self._ask(session)
        self._cache_write(key, session, text)
        return distillation

    def close(self) -> None:
        """Release pooled connections; a later :meth:`distill` opens new ones."""
        self._client.close()

    def _ask(self, session: Session) -> tuple[str, Distillation]:
        """The model's raw answer and its parse, retrying until one parses or the budget is spent."""
        system, user = self._prompt.render(session)

        def attempt() -> tuple[str, Distillation]:
            text = self._complete(system, user)
            return text, self._parse(text, session.timestamp)

        return self._retry.run(attempt, subject=f"session {session.id}: ")

    def _complete(self, system: str, user: str) -> str:
        """One attempt; a server that refuses JSON mode is asked again without it, within the attempt."""
        try:
            return self._post(system, user)
        except _JsonModeRefused:
            self._json_mode = False
            return self._post(system, user)

    def _post(self, system: str, user: str) -> str:
        """One request; returns the answer text or raises what to do next."""
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "temperature": 0,
        }
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        response = self._retry.post(self._client.get(), f"{self._base_url}/chat/completions", body)
        if response.is_success:
            return _answer_text(response)
        if response.status_code == 400 and self._json_mode and "response_format" in response.text:
            raise _JsonModeRefused()
        raise rejected(
            self._retry.endpoint,
            response.status_code,
            excerpt(response, self._api_key),
            code="distill_rejected",
            api_key_env=self._api_key_env,
            config_key="distill.api_key_env",
        )

    def _parse(self, text: str, said_at: int) -> Distillation:
        try:
            return parse_distillation(text, self._max_cards, said_at)
        except UnparseableOutput as exc:
            raise RetryableFailure(exc.reason, wait=False, gives_up_as=UNPARSEABLE) from None

    def _cache_key(self, session: Session) -> str:
        material = f"{session.content_hash()}\0{self._model}\0{self._prompt.digest}"
        return hashlib.sha256(material.encode("utf-8")).hexdigest()

    def _cache_read(self, key: str) -> str | None:
        """The cached answer, or None if absent or unreadable (a damaged entry only costs a request)."""
        if self._cache_dir is None:
            return None
        try:
            content = json.loads((self._cache_dir / f"{key}.json").read_text(encoding="utf-8"))["content"]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return content if isinstance(content, str) else None

    def _cache_write(self, key: str, session: Session, text: str) -> None:
        """Store the raw answer; a failed write only costs a request next time, never this result."""
        if self._cache_dir is None:
            return
        document = {"session_id": session.id, "model": self._model, "prompt": self._prompt.digest, "content": text}
        try:
            atomic_write_json(self._cache_dir / f"{key}.json", document)
        except OSError as exc:
            log.warning("cannot write distill cache entry %s: %s", key, exc)


def _answer_text(response: httpx.Response) -> str:
    """``choices[0].message.content``; a malformed envelope is treated like an unusable answer."""
    try:
        content = response.json()["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise RetryableFailure(
            "response has no choices[0].message.content", wait=False, gives_up_as=UNPARSEABLE
        ) from None
    if not isinstance(content, str):
        raise RetryableFailure("choices[0].message.content is not text", wait=False, gives_up_as=UNPARSEABLE)
    return content

