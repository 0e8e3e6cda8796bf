"""Who is talking in a session, and whether a message asks something."""

from __future__ import annotations

from ...foundations.domain import Session, Turn
from .cues import AI_SPEAKERS
from .text.chinese import is_chinese
from .text.markdown import FENCED_BLOCK, INLINE_CODE


def speaker_of(turn: Turn) -> str | None:
    """The ``speaker`` a conversation import put on the turn (LoCoMo), if any."""
    speaker = turn.extra.get("speaker")
    return speaker if isinstance(speaker, str) and speaker.strip() else None


ZH_ROLE_NAMES = {"The user": "用户", "The assistant": "助手"}
"""How a card names someone known only by role, in English and in Chinese."""
EN_ROLE_NAMES = {chinese: english for english, chinese in ZH_ROLE_NAMES.items()}
ROLE_NAMES = frozenset(ZH_ROLE_NAMES)
"""How an English card names someone known only by role."""


def is_role_name(name: str) -> bool:
    """A name a card gives someone known only by role ("The user", 助手): no tag, it is on every such card."""
    return name in ROLE_NAMES or name in ZH_ROLE_NAMES.values()


def chinese_name(name: str) -> str:
    """How a Chinese sentence names someone: a role in Chinese ("The user改到晚上" read wrong), a person as named."""
    return ZH_ROLE_NAMES.get(name, name)


def named_in(name: str, chinese: bool) -> str:
    """``name`` as a card in that language writes it: a role in its words ("The user" / 用户), a person as named."""
    if chinese:
        return chinese_name(name)
    return EN_ROLE_NAMES.get(name, name)


def other_than(names: list[str], name: str) -> str:
    """The first of ``names`` who is not ``name``'s person: a role named in either language is one person (a user
    writing one turn in Chinese and the next in English is 用户 and "The user", talking to neither)."""
    return next((other for other in names if chinese_name(other) != chinese_name(name)), "")


def role_name(turn: Turn, chinese: bool | None = None) -> str:
    """How a card names someone known only by role, in the language they speak (or the card's, when ``chinese`` is
    given): a Chinese card reads 用户 and 助手, never "The assistant建议"."""
    if chinese is None:
        chinese = is_chinese(turn.content)
    english = {"user": "The user", "assistant": "The assistant"}.get(turn.role, turn.role.title())
    return chinese_name(english) if chinese else english


def speaker_name(turn: Turn, chinese: bool | None = None) -> str:
    """The speaker's name on the turn, else a name for its role ("The user"; 用户 in a ``chinese`` card)."""
    return speaker_of(turn) or role_name(turn, chinese)


def participants(session: Session) -> list[str]:
    """Everyone who speaks, in order of first turn: the user and the assistant, not a system prompt or a tool's
    output, which talk to no one (a chat opening with its system prompt was "与System聊天时说的")."""
    names: list[str] = []
    for turn in session.turns:
        if turn.role not in ("user", "assistant"):
            continue
        name = speaker_name(turn)
        if name not in names:
            names.append(name)
    return names


def speaks_chinese(session: Session) -> bool:
    """Whether the people of the session talk in Chinese: the language its cards are written in. Their code is not
    what they talk in: a Chinese session pasting a diff had its cards labelled in English. Nor is the assistant's
    English what the user talks in: a user writing Chinese with English words ("我的 2019 Subaru Outback check
    engine light 亮了") to an assistant answering in English is read in Chinese, the language of the person the
    memory is for."""
    def talked(roles: tuple[str, ...]) -> str:
        return INLINE_CODE.sub(" ", " ".join(FENCED_BLOCK.sub(" ", turn.content) for turn in session.turns
                                            if turn.role in roles))

    return is_chinese(talked(("user", "assistant"))) or is_chinese(talked(("user",)))


def asks(text: str) -> bool:
    return "?" in text or "？" in text


def is_ai(turn: Turn) -> bool:
    """An AI assistant's turn: the assistant role with no speaker name, or one that names an AI ("AI", "助手")."""
    if turn.role != "assistant":
        return False
    speaker = speaker_of(turn)
    return speaker is None or speaker.strip().lower() in AI_SPEAKERS
