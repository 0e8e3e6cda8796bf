"""Prompt templates shipped with the package and copied into a new home by ``alaya init``."""

from importlib.resources import files

DEFAULT_PROMPTS = ("distill.txt", "merge.txt")
"""Every file ``alaya init`` writes under ``<home>/prompts/`` (yours to edit there)."""


def default_prompt(name: str) -> str:
    return files(__name__).joinpath(name).read_text(encoding="utf-8")


def default_distill_prompt() -> str:
    return default_prompt("distill.txt")
