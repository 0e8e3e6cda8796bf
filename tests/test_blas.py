"""Recall runs numpy's products on one BLAS thread; the process's pool is restored when the last recall ends."""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import numpy  # noqa: F401  (loads OpenBLAS, so the pool can be seen before the first recall)
from threadpoolctl import threadpool_info, threadpool_limits

from alaya_engine.foundations.blas import single_blas_thread


def blas_threads() -> list[int]:
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]


def test_recalls_at_once_share_one_narrowing_and_the_last_one_out_restores_the_pool():
    """Recalls run on the owner server's threads; threadpoolctl would let only the first thread that ever set a
    limit (here the test's own) change the pool."""
    with threadpool_limits(limits=blas_threads()[0]):
        pass
    before = blas_threads()
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen = {}

    def first():
        with single_blas_thread():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second():
        first_in.wait(10)
        with single_blas_thread():
            second_in.set()
            first_out.wait(10)
            seen["after the first left"] = blas_threads()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert before and set(seen["after the first left"]) == {1}
    assert blas_threads() == before


RECALL_IN_A_FRESH_PROCESS = """
import json, sys
from threadpoolctl import threadpool_info
from alaya_engine.engine import Engine

def blas_threads():
    return [info["num_threads"] for info in threadpool_info() if info["user_api"] == "blas"]

engine = Engine.open(sys.argv[1])
embedder = engine.embedder()
embed_query, seen = embedder.embed_query, {"numpy before the recall": "numpy" in sys.modules}

def recording(texts):
    seen["while embedding"] = blas_threads()
    return embed_query(texts)

embedder.embed_query = recording
engine.recall({"text": "which database did we choose"})
seen["after"] = blas_threads()
print(json.dumps(seen))
"""


def test_a_recall_embeds_and_searches_on_one_blas_thread_from_the_first_recall_of_a_process(home):
    """numpy is loaded lazily: the pool must be found even when the first recall is what loads it."""
    child = subprocess.run([sys.executable, "-c", RECALL_IN_A_FRESH_PROCESS, str(home)], capture_output=True,
                           text=True, timeout=120, check=True)
    seen = json.loads(child.stdout.strip().splitlines()[-1])
    assert seen["numpy before the recall"] is False
    assert set(seen["while embedding"]) == {1} and seen["after"] == blas_threads()
