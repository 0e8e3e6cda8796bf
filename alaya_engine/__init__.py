"""Alaya engine: raw sessions (L3), a knowledge graph (L2) and vectors (L1) behind one API.

This package must stay importable without Textual: the TUI and the CLI sit on
top of it, never the other way round.
"""

__version__ = "0.1.0"
