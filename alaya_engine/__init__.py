"""Alaya engine: raw sessions (L3), a knowledge graph (L2) and vectors (L1) behind one API.

This package must stay importable without Textual: the TUI and the CLI sit on
top of it, never the other way round.

Importing it sets ``OPENBLAS_THREAD_TIMEOUT`` (unless the environment already does): OpenBLAS's worker
threads otherwise spin for ~2^28 cycles after every multi-threaded product, waiting for the next one, so
during a recall a whole core burns beside the query embedding and LanceDB's full-text search. At 100k cards
that doubled the CPU time of a recall (32 ms against 20 ms for 16 ms of wall time) and made it slower. The
setting only takes effect when numpy is imported later, which every entry point of Alaya does lazily.
"""

import os

os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

__version__ = "0.1.0"
