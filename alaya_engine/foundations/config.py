"""``config.json``: defaults, loading and validation.

Validation walks the user's document against :data:`DEFAULTS`: an unknown key
or a value of the wrong type is reported with its dotted path, so a typo never
surfaces as a traceback deep inside a command.
"""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

from .errors import RUNTIME, AlayaError
from .json_input import JsonInputError, load_json

CONFIG_VERSION = "1.0"

DEFAULTS: dict[str, Any] = {
    "version": CONFIG_VERSION,
    "embedding": {
        "provider": "local",
        "model": "universal-sentence-encoder-multilingual-3",
        "dimensions": 512,
        "base_url": None,
        "api_key_env": None,
        "batch_size": 100,
        "max_concurrency": 4,
        "timeout_s": 30.0,
        "max_retries": 5,
        "query_prefix": "",
        "document_prefix": "",
    },
    "graph": {"engine": "ladybug", "buffer_pool_mb": 1024},
    "temperature": {
        "hot_threshold": 0.7,
        "warm_threshold": 0.3,
        "cold_days": 30,
        "hot_limit": 5000,
        "warm_limit": 20000,
        "recency_decay": 30,
        "frequency_cap": 20,
    },
    "distill": {
        "llm_provider": "offline",
        "model": None,
        "base_url": None,
        "api_key_env": None,
        "prompt_template": "prompts/distill.txt",
        "min_session_tokens": 200,
        "max_cards_per_session": 10,
        "auto_distill": False,
        "similar_threshold": 0.65,
        "timeout_s": 60.0,
        "max_retries": 4,
    },
    "recall": {
        "vector_top_k": 20,
        "graph_expand_depth": 1,
        "min_similarity": 0.25,
        "min_rel_similarity": 0.3,
        "max_results": 10,
        "alpha": 0.5,
        "beta": 0.3,
        "gamma": 0.2,
        "hybrid": True,
        "include_sessions": True,
        "lexical_weight": 0.5,
        "lexical_floor": 1.5,
    },
    "introspect": {
        "schedule": "0 */4 * * *",
        "consolidate_threshold": 0.95,
        "forget_threshold": 0.1,
        "forget_days": 90,
        "forget_minutes": 5.0,
        "llm_confirm_merges": True,
        "llm_merges_per_run": 20,
    },
    "ingest": {"max_file_mb": 64},
    "sync": {"session_idle_minutes": 30, "git_timeout_s": 120.0},
    "share": {"include": ["*"], "exclude": []},
    "server": {"autostart": True, "idle_timeout": 900, "start_timeout": 30.0, "connect_timeout": 5.0,
               "request_timeout": 30.0},
    "lock": {"wait_seconds": 10.0},
    "logging": {"level": "info", "file": "logs/alaya.log", "max_bytes": 1_000_000, "backups": 3},
}

OPTIONAL_STRINGS = {
    "embedding.base_url",
    "embedding.api_key_env",
    "distill.model",
    "distill.base_url",
    "distill.api_key_env",
}
"""Keys whose default is ``None`` and that otherwise take a string."""

CHOICES = {
    "embedding.provider": ("local", "openai"),
    "graph.engine": ("ladybug", "kuzu"),
    "distill.llm_provider": ("offline", "openai"),
    "logging.level": ("debug", "info", "warning", "error"),
}


MINIMUMS = {
    "sync.session_idle_minutes": 0, "sync.git_timeout_s": 1, "graph.buffer_pool_mb": 64,
    "embedding.dimensions": 1, "embedding.batch_size": 1, "embedding.max_concurrency": 1, "embedding.timeout_s": 0.01,
    "embedding.max_retries": 0,
    "temperature.hot_threshold": 0, "temperature.warm_threshold": 0, "temperature.cold_days": 0,
    "temperature.hot_limit": 0, "temperature.warm_limit": 0, "temperature.recency_decay": 1,
    "temperature.frequency_cap": 1,
    "distill.min_session_tokens": 0, "distill.max_cards_per_session": 1, "distill.similar_threshold": 0,
    "distill.timeout_s": 0.01, "distill.max_retries": 0,
    "recall.vector_top_k": 1, "recall.graph_expand_depth": 0, "recall.min_similarity": -1,
    "recall.min_rel_similarity": -1, "recall.max_results": 1, "recall.alpha": 0, "recall.beta": 0, "recall.gamma": 0,
    "recall.lexical_weight": 0, "recall.lexical_floor": 0,
    "introspect.consolidate_threshold": 0, "introspect.forget_threshold": 0, "introspect.forget_days": 0,
    "introspect.forget_minutes": 0, "introspect.llm_merges_per_run": 0,
    "ingest.max_file_mb": 1, "server.idle_timeout": 0, "server.start_timeout": 0.01, "server.connect_timeout": 0.1,
    "server.request_timeout": 2, "lock.wait_seconds": 0,
    "logging.max_bytes": 0, "logging.backups": 0,
}
"""Numeric keys with a lower bound (divisors, counts, timeouts: below it a command would fail or hang)."""

MAXIMUMS = {
    "temperature.hot_threshold": 1, "temperature.warm_threshold": 1, "distill.similar_threshold": 1,
    "recall.vector_top_k": 500, "recall.graph_expand_depth": 3, "recall.min_similarity": 1,
    "recall.min_rel_similarity": 1, "recall.max_results": 200, "recall.lexical_weight": 1,
    "introspect.consolidate_threshold": 1, "introspect.forget_threshold": 1,
}
"""Numeric keys with an upper bound: similarities and temperatures, and recall's own request limits."""


def default_config() -> dict[str, Any]:
    return copy.deepcopy(DEFAULTS)


def ingest_limit(config: dict[str, Any]) -> int:
    """Bytes one session (a file, or stdin) or memex note may hold: ``ingest.max_file_mb``."""
    return int(config["ingest"]["max_file_mb"] * 1_000_000)


def load_config(path: Path) -> dict[str, Any]:
    """Read ``path`` (missing file → defaults) and return the validated, merged config."""
    if not path.exists():
        return default_config()
    try:
        document = load_json(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        raise AlayaError("config_invalid", f"{path} is not UTF-8 text ({exc.reason} at byte {exc.start}); "
                                           "fix or delete it") from None
    except JsonInputError as exc:
        raise AlayaError("config_invalid", f"{path} is not valid JSON ({exc.reason}{exc.where}); "
                                           "fix or delete it") from None
    except OSError as exc:
        raise AlayaError("config_unreadable", f"cannot read {path}: {exc.strerror or exc}", RUNTIME) from None
    return validate_config(document, source=str(path))


def validate_config(document: Any, source: str = "config.json") -> dict[str, Any]:
    """Merge ``document`` over the defaults, refusing unknown keys and wrong types."""
    if not isinstance(document, dict):
        raise AlayaError("config_invalid", f"{source}: the top level must be a JSON object")
    merged = default_config()
    _merge(merged, document, DEFAULTS, prefix="", source=source)
    return merged


def _merge(target: dict, given: dict, defaults: dict, prefix: str, source: str) -> None:
    for key, value in given.items():
        path = f"{prefix}{key}"
        if key not in defaults:
            raise AlayaError("config_invalid", f"{source}: unknown key '{path}'; remove it or check its spelling")
        expected = defaults[key]
        if isinstance(expected, dict):
            if not isinstance(value, dict):
                raise AlayaError("config_invalid", f"{source}: '{path}' must be an object")
            _merge(target[key], value, expected, prefix=f"{path}.", source=source)
            continue
        _check_type(path, value, expected, source)
        if path in CHOICES and value not in CHOICES[path]:
            allowed = ", ".join(CHOICES[path])
            raise AlayaError("config_invalid", f"{source}: '{path}' is {value!r}; allowed: {allowed}")
        if path in MINIMUMS and value < MINIMUMS[path]:
            raise AlayaError("config_invalid", f"{source}: '{path}' is {value}; it must be at least {MINIMUMS[path]}")
        if path in MAXIMUMS and value > MAXIMUMS[path]:
            raise AlayaError("config_invalid", f"{source}: '{path}' is {value}; it must be at most {MAXIMUMS[path]}")
        target[key] = value


def _check_type(path: str, value: Any, expected: Any, source: str) -> None:
    if path in OPTIONAL_STRINGS:
        ok, wanted = value is None or isinstance(value, str), "a string or null"
    elif isinstance(expected, list):
        ok, wanted = isinstance(value, list) and all(isinstance(item, str) for item in value), "a list of strings"
    elif isinstance(expected, bool):
        ok, wanted = isinstance(value, bool), "true or false"
    elif isinstance(expected, int):
        ok, wanted = isinstance(value, int) and not isinstance(value, bool), "an integer"
    elif isinstance(expected, float):
        ok, wanted = isinstance(value, (int, float)) and not isinstance(value, bool), "a number"
    else:
        ok, wanted = isinstance(value, str), "a string"
    if not ok:
        raise AlayaError("config_invalid", f"{source}: '{path}' must be {wanted}, got {json.dumps(value)[:80]}")
    if isinstance(value, float) and not math.isfinite(value):
        raise AlayaError("config_invalid", f"{source}: '{path}' must be a finite number, got {value}")
    if isinstance(value, str) and "\x00" in value:
        raise AlayaError("config_invalid", f"{source}: '{path}' must not contain a NUL character")
