"""Alaya engine: raw sessions (L3), a knowledge graph (L2) and vectors (L1) behind one API.

This package must stay importable without Textual: the TUI and the CLI sit on
top of it, never the other way round.
"""

import logging

__version__ = "0.1.0"

logging.getLogger(__name__).addHandler(logging.NullHandler())
"""Before the store's log file is set up, an error logged on the way out must not reach the terminal as a traceback
(logging's last-resort handler would print it): the CLI has already shown its one line."""
