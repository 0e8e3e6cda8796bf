"""Embeddings from any OpenAI-compatible ``POST {base_url}/embeddings`` endpoint.

OpenAI, SiliconFlow, Ollama and vLLM all speak this wire format, so one small
client covers hosted and local models. Batches run concurrently on a thread
pool sharing one connection pool, which lives as long as the embedder because
building an ``httpx.Client`` costs ~50 ms of TLS setup. Transient failures
(429, 5xx, timeouts, dropped connections) are retried with capped exponential
backoff. numpy is imported only inside :meth:`OpenAIEmbedder.embed` so that
importing this module stays cheap for the CLI's fast path.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

import httpx

from alaya_engine.embedding.base import normalise_rows
from alaya_engine.foundations.errors import RUNTIME, USAGE, AlayaError
from alaya_engine.foundations.http_common import LazyClient, RetryLoop, excerpt, read_api_key, rejected

if TYPE_CHECKING:
    import numpy as np


class OpenAIEmbedder:
    """An :class:`~alaya_engine.embedding.base.Embedder` backed by an HTTP endpoint."""

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dimensions: int,
        api_key_env: str | None,
        batch_size: int = 100,
        max_concurrency: int = 4,
        timeout_s: float = 30.0,
        max_retries: int = 5,
        send_dimensions: bool = False,
        query_prefix: str = "",
        document_prefix: str = "",
        backoff_base_s: float = 0.5,
        sleep: Callable[[float], None] = time.sleep,
        environ: Mapping[str, str] | None = None,
    ):
        """Read the API key now, so a missing key fails before any work starts.

        ``send_dimensions`` is off by default because many compatible servers
        reject the ``dimensions`` field; turn it on for models that can
        shorten their vectors (e.g. OpenAI ``text-embedding-3-*``). The prefixes mark the two sides of an
        asymmetric model (e5: ``"query: "`` and ``"passage: "``); OpenAI's own models take none.
        """
        if dimensions < 1 or batch_size < 1 or max_concurrency < 1 or max_retries < 0:
            raise AlayaError(
                "embedding_config_invalid",
                "embedding.dimensions, batch_size and max_concurrency must be at least 1 "
                "and max_retries at least 0",
                USAGE,
            )
        self.name = f"openai:{model}"
        self.dimension = dimensions
        self._base_url = base_url.rstrip("/")
        self._model = model
        self._api_key_env = api_key_env or None
        self._api_key = read_api_key(
            self._api_key_env, environ, code="embedding_api_key_missing", config_key="embedding.api_key_env"
        )
        self._batch_size = batch_size
        self._max_concurrency = max_concurrency
        self._send_dimensions = send_dimensions
        self._query_prefix, self._document_prefix = query_prefix, document_prefix
        self._retry = RetryLoop(
            endpoint=f"embedding endpoint {self._base_url}",
            code="embedding_unavailable",
            max_retries=max_retries,
            backoff_base_s=backoff_base_s,
            secret=self._api_key,
            sleep=sleep,
        )
        self._client = LazyClient(api_key=self._api_key, timeout_s=timeout_s, max_connections=max_concurrency)

    def __repr__(self) -> str:
        # Spelled out so the API key can never leak through a debug print.
        return f"OpenAIEmbedder(name={self.name!r}, base_url={self._base_url!r}, dimension={self.dimension})"

    def embed(self, texts: list[str]) -> "np.ndarray":
        """Embed documents in input order; float32 ``(len(texts), dimension)``, unit rows."""
        return self._embed([self._document_prefix + text for text in texts])

    def embed_each(self, lists: list[list[str]]) -> list["np.ndarray"]:
        """One request stream for all the lists: the endpoint embeds each text alone, whatever its neighbours."""
        import numpy as np

        vectors = self.embed([text for texts in lists for text in texts])
        return np.split(vectors, np.cumsum([len(texts) for texts in lists])[:-1]) if lists else []

    def embed_query(self, texts: list[str]) -> "np.ndarray":
        return self._embed([self._query_prefix + text for text in texts])

    def _embed(self, texts: list[str]) -> "np.ndarray":
        import numpy as np

        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        batches = [texts[i : i + self._batch_size] for i in range(0, len(texts), self._batch_size)]
        client = self._client.get()
        with ThreadPoolExecutor(max_workers=min(self._max_concurrency, len(batches))) as pool:
            futures = [pool.submit(self._embed_batch, client, batch) for batch in batches]
            try:
                results = [future.result() for future in futures]
            except BaseException:
                # One batch failing dooms the call; don't keep the endpoint busy.
                pool.shutdown(cancel_futures=True)
                raise
        rows = [vector for batch_vectors in results for vector in batch_vectors]
        try:
            matrix = np.asarray(rows, dtype=np.float32)
        except (TypeError, ValueError) as exc:
            raise self._bad_response(f"vectors are not numeric ({exc})") from exc
        return normalise_rows(matrix)

    def close(self) -> None:
        """Release pooled connections; a later :meth:`embed` opens new ones."""
        self._client.close()

    def _embed_batch(self, client: httpx.Client, batch: list[str]) -> list[list[float]]:
        """POST one batch, retrying transient failures; returns vectors in batch order."""
        body: dict = {"model": self._model, "input": batch, "encoding_format": "float"}
        if self._send_dimensions:
            body["dimensions"] = self.dimension
        return self._retry.run(lambda: self._post(client, body, len(batch)))

    def _post(self, client: httpx.Client, body: dict, expected: int) -> list[list[float]]:
        """One attempt at one batch."""
        response = self._retry.post(client, f"{self._base_url}/embeddings", body)
        if not response.is_success:
            raise rejected(
                self._retry.endpoint,
                response.status_code,
                excerpt(response, self._api_key),
                code="embedding_rejected",
                api_key_env=self._api_key_env,
                config_key="embedding.api_key_env",
            )
        return self._parse(response, expected)

    def _parse(self, response: httpx.Response, expected: int) -> list[list[float]]:
        """Vectors from a success body, ordered by ``data[i].index`` and checked for size."""
        try:
            items = sorted(response.json()["data"], key=lambda item: item["index"])
            indices = [item["index"] for item in items]
            vectors = [item["embedding"] for item in items]
        except (ValueError, KeyError, TypeError) as exc:
            raise self._bad_response(f"expected JSON with data[].index/embedding ({exc})") from exc
        if indices != list(range(expected)):
            raise self._bad_response(f"expected indices 0..{expected - 1}, got {len(indices)} items")
        for vector in vectors:
            if not isinstance(vector, list):
                raise self._bad_response("an embedding is not a list of numbers")
            if len(vector) != self.dimension:
                raise AlayaError(
                    "embedding_dimension_mismatch",
                    f"embedding endpoint {self._base_url} returned {len(vector)}-dimensional vectors "
                    f"but embedding.dimensions is {self.dimension}; fix embedding.dimensions in config.json",
                    USAGE,
                )
        return vectors

    def _bad_response(self, detail: str) -> AlayaError:
        return AlayaError(
            "embedding_bad_response",
            f"embedding endpoint {self._base_url} returned a malformed response: {detail}",
            RUNTIME,
        )

