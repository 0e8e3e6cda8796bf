"""Alaya's benchmarks: ``python -m bench`` prints one table and writes JSON to ``bench/results/``."""
