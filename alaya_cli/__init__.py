"""The `alaya` command line: a thin client that forwards argv to the store's owner server, and the Typer app
that parses it (in the server, or in this process when no server may run)."""
