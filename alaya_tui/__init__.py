"""The Alaya explorer: a Textual app over the same engine API the CLI uses."""
