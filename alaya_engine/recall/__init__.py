"""Recall as navigation: seeds by hybrid search, graph expansion, h-distance ranking (seed 4.4)."""
