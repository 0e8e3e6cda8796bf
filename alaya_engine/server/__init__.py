"""The owner server: one resident process per store that every client talks to.

The graph database admits one read-write process and the model and LanceDB
take seconds to load, so one long-lived process owns the store (its lock, the
open graph, the warm model, the HOT vectors in memory) and clients — the CLI,
the TUI, cron, MCP — send it requests over a Unix socket in the home.
"""
