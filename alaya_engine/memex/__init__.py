"""Memex integration: read a memex vault and import its cards as ``source: memex`` cards."""
