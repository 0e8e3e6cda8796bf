"""The agent skill shipped with Alaya (``alaya skill`` prints it)."""

from importlib.resources import files


def skill_text() -> str:
    return files(__name__).joinpath("alaya", "SKILL.md").read_text(encoding="utf-8")
