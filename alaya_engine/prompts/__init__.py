"""Prompt templates shipped with the package and copied into a new home by ``alaya init``."""

from importlib.resources import files


def default_distill_prompt() -> str:
    return files(__name__).joinpath("distill.txt").read_text(encoding="utf-8")
