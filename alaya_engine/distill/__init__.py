"""Distill: from sessions (L3) to knowledge cards and typed links (L2, L1)."""
