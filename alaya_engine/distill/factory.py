"""Build the distiller ``config.json`` asks for: offline by default, any OpenAI-compatible chat endpoint on request."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Distiller


def make_distiller(settings: dict[str, Any], home: Path, cache_dir: Path) -> Distiller:
    if settings["llm_provider"] == "openai":
        from .llm import LLMDistiller

        prompt = Path(settings["prompt_template"]).expanduser()
        return LLMDistiller(
            base_url=settings["base_url"] or "https://api.openai.com/v1",
            model=settings["model"] or "gpt-4o",
            api_key_env=settings["api_key_env"],
            prompt_path=prompt if prompt.is_absolute() else home / prompt,
            max_cards_per_session=settings["max_cards_per_session"],
            min_session_tokens=settings["min_session_tokens"],
            timeout_s=settings["timeout_s"],
            cache_dir=cache_dir / "distill",
        )
    from .offline import OfflineDistiller

    return OfflineDistiller(min_session_tokens=settings["min_session_tokens"],
                            max_cards_per_session=settings["max_cards_per_session"])
