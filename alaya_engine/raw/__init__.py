"""L3, the raw layer: session files are the source of truth everything else is rebuilt from."""
