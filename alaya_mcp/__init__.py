"""`alaya mcp`: the Model Context Protocol server over stdio, a face of the engine like the CLI and the explorer."""
