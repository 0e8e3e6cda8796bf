"""Build the distiller ``config.json`` asks for: offline by default, any OpenAI-compatible chat endpoint on request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Distiller

DEFAULT_BASE_URL = "https://api.openai.com/v1"
DEFAULT_CHAT_MODEL = "gpt-4o"


def chat_endpoint(settings: dict[str, Any]) -> tuple[str, str]:
    """(base_url, model) of the configured chat LLM: distill's settings, which merge confirmation shares."""
    return settings["base_url"] or DEFAULT_BASE_URL, settings["model"] or DEFAULT_CHAT_MODEL


def make_distiller(settings: dict[str, Any], home: Path, cache_dir: Path) -> Distiller:
    if settings["llm_provider"] == "openai":
        from .llm import LLMDistiller

        prompt = Path(settings["prompt_template"]).expanduser()
        base_url, model = chat_endpoint(settings)
        return LLMDistiller(
            base_url=base_url,
            model=model,
            api_key_env=settings["api_key_env"],
            prompt_path=prompt if prompt.is_absolute() else home / prompt,
            max_cards_per_session=settings["max_cards_per_session"],
            min_session_tokens=settings["min_session_tokens"],
            timeout_s=settings["timeout_s"],
            max_retries=settings["max_retries"],
            cache_dir=cache_dir / "distill",
        )
    from .offline import OfflineDistiller

    return OfflineDistiller(min_session_tokens=settings["min_session_tokens"],
                            max_cards_per_session=settings["max_cards_per_session"])
