"""Sharing L3 with other machines through a git remote: what travels, how it is masked, how it comes back.

Only L3 travels (session files, distillation records, journal events, review decisions), never the graph or the
vectors: each machine rebuilds its own L2/L1 from what it pulls, through the same ingest and distill paths a local
session takes. Transport, authentication and access control are git's and the remote's (SSH keys, tokens).
"""
