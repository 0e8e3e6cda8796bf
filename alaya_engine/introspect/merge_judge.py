"""Asking a chat model whether two near-duplicate cards are truly the same (调用 LLM 判断是否真的重复).

It uses the endpoint, model and key of the LLM distiller (``distill.llm_provider: "openai"``). The instructions
are ``<home>/prompts/merge.txt`` (the packaged one for a home made before it existed); the two cards travel as
JSON in the user message, so their text reaches the model as data, never as part of the instructions.

One request per pair and no retry within a run: an unusable answer leaves that pair pending (it is asked again
next run), and an endpoint that fails ends this run's questions, so no run waits out a timeout per pair.

The answer is untrusted. It must be one JSON object ``{"same": bool, "reason": str, "title"?: str,
"content"?: str}`` (a code fence around it is tolerated); the title one line of at most :data:`TITLE_MAX`
characters, the content at most :data:`CONTENT_MAX`. Anything else makes it unusable. What it can change is
only ever the kept card's title and content (:class:`~.apply.MergedText`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ..foundations.errors import AlayaError
from ..foundations.http_common import LazyClient, excerpt, read_api_key
from .apply import MergedText

TITLE_MAX = 200
CONTENT_MAX = 8000
REASON_MAX = 500
"""A longer reason is cut (it is only shown in the review queue)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FENCE = re.compile(r"\A```[a-zA-Z]*\n(.*)\n```\Z", re.DOTALL)


class JudgeUnavailable(Exception):
    """The endpoint cannot answer now (unreachable, timed out, refused, or badly set up): stop asking this run."""


class UnusableAnswer(Exception):
    """The model answered, but not with the contract's JSON: this pair stays pending."""


@dataclass(frozen=True)
class Verdict:
    same: bool
    reason: str
    text: MergedText


class MergeJudge:
    """Puts one pair of cards to a chat-completions endpoint and returns its checked verdict."""

    def __init__(self, *, base_url: str, model: str, api_key_env: str | None, prompt_path: Path, timeout_s: float,
                 environ: Mapping[str, str] | None = None):
        """Nothing is read or opened yet: a bad setup becomes :class:`JudgeUnavailable` on the first question."""
        self.name = f"openai:{model}"
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api_key_env = api_key_env or None
        self._prompt_path = prompt_path
        self._timeout_s = timeout_s
        self._environ = environ
        self._api_key = ""
        self._client: LazyClient | None = None
        self._json_mode = True

    def __repr__(self) -> str:
        return f"MergeJudge(name={self.name!r}, base_url={self._base_url!r})"  # never the key

    def judge(self, first: dict[str, Any], second: dict[str, Any]) -> Verdict:
        """``first`` and ``second`` are graph card rows (``GraphStore.cards``)."""
        instructions = self._instructions()
        cards = json.dumps({"card_a": _card_view(first), "card_b": _card_view(second)}, ensure_ascii=False)
        return parse_verdict(self._ask(instructions, cards))

    def close(self) -> None:
        if self._client is not None:
            self._client.close()

    def _instructions(self) -> str:
        from ..prompts import default_prompt

        try:
            text = (self._prompt_path.read_text(encoding="utf-8") if self._prompt_path.exists()
                    else default_prompt("merge.txt")).strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise JudgeUnavailable(f"cannot read merge prompt {self._prompt_path}: {exc}") from None
        if not text:
            raise JudgeUnavailable(f"merge prompt {self._prompt_path} is empty")
        return text

    def _http(self) -> httpx.Client:
        if self._client is None:
            try:
                self._api_key = read_api_key(self._api_key_env, self._environ, code="merge_judge_key",
                                             config_key="distill.api_key_env")
            except AlayaError as exc:
                raise JudgeUnavailable(exc.message) from None
            self._client = LazyClient(api_key=self._api_key, timeout_s=self._timeout_s)
        return self._client.get()

    def _ask(self, system: str, user: str) -> str:
        body: dict[str, Any] = {"model": self._model, "temperature": 0,
                                "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
        if self._json_mode:
            body["response_format"] = {"type": "json_object"}
        try:
            response = self._http().post(f"{self._base_url}/chat/completions", json=body)
        except (httpx.HTTPError, httpx.InvalidURL) as exc:
            raise JudgeUnavailable(f"cannot reach LLM endpoint {self._base_url}: {type(exc).__name__}") from None
        if response.status_code == 400 and self._json_mode and "response_format" in response.text:
            self._json_mode = False
            return self._ask(system, user)
        if not response.is_success:
            detail = excerpt(response, self._api_key)
            raise JudgeUnavailable(f"LLM endpoint {self._base_url} answered HTTP {response.status_code} "
                                   f"{detail}".strip())
        try:
            content = response.json()["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise UnusableAnswer("the response has no choices[0].message.content") from None
        if not isinstance(content, str):
            raise UnusableAnswer("choices[0].message.content is not text")
        return content


def parse_verdict(text: str) -> Verdict:
    """The contract's JSON object, checked field by field; :class:`UnusableAnswer` says what is wrong."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    try:
        document = json.loads(fenced.group(1) if fenced else stripped)
    except ValueError:
        raise UnusableAnswer("the answer is not a JSON object") from None
    if not isinstance(document, dict):
        raise UnusableAnswer("the answer is not a JSON object")
    same, reason = document.get("same"), document.get("reason")
    if not isinstance(same, bool):
        raise UnusableAnswer("'same' must be true or false")
    if not isinstance(reason, str) or not reason.strip():
        raise UnusableAnswer("'reason' must be a non-empty string")
    reason = " ".join(_CONTROL.sub(" ", reason).split())[:REASON_MAX]
    if not same:
        return Verdict(False, reason, MergedText())
    title = _text_field(document, "title", TITLE_MAX)
    content = _text_field(document, "content", CONTENT_MAX)
    return Verdict(True, reason, MergedText(title=" ".join(title.split()) if title else None, content=content))


def _text_field(document: dict, key: str, limit: int) -> str | None:
    """An optional string: absent, null or blank → None (the kept card's own); too long → unusable."""
    value = document.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise UnusableAnswer(f"'{key}' must be a string")
    value = _CONTROL.sub("", value).strip()
    if len(value) > limit:
        raise UnusableAnswer(f"'{key}' is {len(value)} characters; at most {limit}")
    return value or None


def _card_view(card: dict[str, Any]) -> dict[str, Any]:
    return {"title": card["title"], "type": card["type"], "tags": list(card["tags"] or []), "content": card["content"]}


def make_merge_judge(config: dict[str, Any], home: Path) -> MergeJudge | None:
    """The judge ``config.json`` asks for: the distill LLM, unless ``introspect.llm_confirm_merges`` is off."""
    distill, introspect = config["distill"], config["introspect"]
    if distill["llm_provider"] != "openai" or not introspect["llm_confirm_merges"] \
            or introspect["llm_merges_per_run"] == 0:
        return None
    from ..distill.factory import chat_endpoint

    base_url, model = chat_endpoint(distill)
    return MergeJudge(base_url=base_url, model=model, api_key_env=distill["api_key_env"],
                      prompt_path=home / "prompts" / "merge.txt", timeout_s=distill["timeout_s"])
