"""L2, the graph layer: cards and sessions as nodes, typed relations as edges."""
