"""Memex integration (seed 5.3): read a memex vault and import its cards as ``source: memex`` cards."""
