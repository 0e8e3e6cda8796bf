"""Foundations every layer stands on: domain dataclasses, errors, paths, config, atomic files, locks, logs."""
