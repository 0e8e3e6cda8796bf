"""Introspect: the memory looks after itself — temperature and tiers now; consolidate and forget next."""
