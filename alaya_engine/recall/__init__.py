"""Recall as navigation: seeds by hybrid search, graph expansion, h-distance ranking."""
