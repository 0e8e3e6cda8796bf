"""Embedding providers behind one interface (:class:`~.base.Embedder`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import Embedder


def make_embedder(settings: dict[str, Any], cache_dir: Path | None = None) -> Embedder:
    """Build the provider ``config.json``'s ``embedding`` section asks for."""
    if settings["provider"] == "openai":
        from .openai_provider import OpenAIEmbedder

        return OpenAIEmbedder(
            base_url=settings["base_url"] or "https://api.openai.com/v1",
            model=settings["model"],
            dimensions=settings["dimensions"],
            api_key_env=settings["api_key_env"],
            batch_size=settings["batch_size"],
            max_concurrency=settings["max_concurrency"],
            timeout_s=settings["timeout_s"],
            max_retries=settings["max_retries"],
            query_prefix=settings["query_prefix"],
            document_prefix=settings["document_prefix"],
        )
    from .local import LocalEmbedder

    return LocalEmbedder(cache_dir=cache_dir)


def embedder_identity(settings: dict[str, Any]) -> tuple[str, int]:
    """(name, dimension) the configured provider will produce, without loading it."""
    if settings["provider"] == "openai":
        return f"openai:{settings['model']}", settings["dimensions"]
    from .local import DIMENSION, MODEL_NAME

    return MODEL_NAME, DIMENSION
