"""Looking after a store: replaying L3, verifying the layers agree, rebuilding, backups."""
