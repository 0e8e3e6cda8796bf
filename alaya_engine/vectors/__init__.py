"""L1, the vector layer: card and relation embeddings in LanceDB."""
