"""How agents reach Alaya without glue code: an MCP server, OpenClaw transcript sync, and the skill installer.

Each is a client of the engine API like the CLI: it calls named methods through a backend (the owner
server, or in-process with ``--no-server``) and never opens the store itself.
"""
