"""First person to third person: 'I went to my class' → 'Caroline went to Caroline's class', '我的' → '孙悦的'.

Names and identifiers that contain a capital I ("Form I-130", "I/O", "I-95", "Richard I", "World War I") are
masked before the rewrite and put back after it: they are not the speaker.
"""

from __future__ import annotations

import re

from ..cues import ZH_FIRST_PERSON
from ..text.chinese import CJK
from ..text.words import FILLER_WORDS, STOPWORDS
from ..turns import chinese_name
from .facts import IMAGE

THIRD_PERSON_FORMS = [
    (re.compile(r"\bI am\b|\bI'm\b|\bI’m\b|\bIm\b"), "{name} is"),
    (re.compile(r"\bI've\b|\bI’ve\b"), "{name} has"),
    (re.compile(r"\bI['’]d((?:\s+(?:just|really|already|never|always|finally))*\s+(?:been|had|done|gone|seen|"
                r"got|made|[a-z]+ed)\b)"), "{name} had\\1"),
    (re.compile(r"\bI'd\b|\bI’d\b"), "{name} would"),
    (re.compile(r"\bI'll\b|\bI’ll\b"), "{name} will"),
    (re.compile(r"\bmyself\b", re.IGNORECASE), "themself"),
    (re.compile(r"\b[Mm]y\b"), "{name}'s"),
    (re.compile(r"\bmine\b"), "{name}'s"),
    (re.compile(r"(?<![\w-])me(?![\w-])"), "{name}"),
]
SUBJECTLESS_START = re.compile(r"^(gonna|gotta|going|planning|thinking|working|trying|heading|hoping|been|just|"
                               r"[a-z]+ed|had|went|got|made|took|saw|spent|found|met|bought)\b", re.IGNORECASE)
GERUND_SUBJECT = re.compile(r"^\w+\s+(?:me|us)\b|\b\w+s\s+(?:me|us)\b", re.IGNORECASE)
"""'Got me thinking…', 'Thinking about it pumps me up': the subject is not the speaker."""
SUBJECTLESS_AUXILIARY = {"gonna": "is ", "going": "is ", "planning": "is ", "thinking": "is ", "working": "is ",
                         "trying": "is ", "heading": "is ", "hoping": "is ", "been": "has ", "gotta": "has "}
ADVERBS = ("really", "also", "just", "still", "always", "usually", "never", "actually", "totally", "definitely",
           "often", "sometimes", "absolutely", "truly", "finally", "recently", "even", "already", "mostly", "ever",
           "first", "probably", "kinda", "sorta", "barely", "hardly", "almost", "personally", "seriously", "only")
UNCHANGED_AFTER_I = frozenset("""
can could will would shall should may might must did didn't can't couldn't won't wouldn't shouldn't was wasn't
had went got made took saw came ran found gave met left felt thought knew told said bought brought taught caught
kept lost won began wrote put set sat stood heard held paid sent spent built drove ate fell flew grew drew swam
sang rode woke wore chose became forgot understood hit cut let quit threw shot slept sold led lent fed fought
dealt meant hung dug stuck struck spoke broke froze stole hid bit shook used been read are
""".split())
"""Words after "I" that need no third-person -s: modals and past forms, and "are" ("I are" is only ever "Marloes
and I are": plural, and so it stays)."""
IRREGULAR_PRESENT = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "am": "is", "haven't": "hasn't"}


IDENTIFIER_WITH_I = re.compile(r"[\w./-]*(?:\bI[-/][\w./-]+|[\w.]+[-/]I\b)")
"""'I-130', 'I/O', 'I-95', 'AC/I': an identifier, not the pronoun."""
NAME_WITH_NUMERAL = re.compile(r"\b([A-Z][a-z]+) I\b(?=\s*(?:[,.;:!?)]|$|\s(?:of|and|or|in|at|on|for|with|from|to|"
                               r"by|about|yesterday|today|last|this|[A-Z])\b))")
"""'Richard I', 'World War I' before punctuation, a preposition, a date or a name (never a verb, as the pronoun is)."""
ZH_FORMS = ((re.compile(r"我们|咱们"), "{name}他们"), (re.compile(r"(?<!自)我|咱"), "{name}"))
ZH_CALL_ME = re.compile(r"(可以|就|都|也|你|请)叫我")
"""'你也可以叫我志强' (call me X) → '你也可以称孙悦为志强': with 我 replaced alone it read '叫孙悦志强'. Only after
these words: '妈妈叫我早点回家' (told me to) stays a plain replacement."""
ZH_SINGULAR_SELF = re.compile(r"(?<!自)我(?!们)")
"""An assistant's 我 is the assistant; its 我们 ('we need to…') is people in general and stays."""


def third_person(sentence: str, name: str) -> str:
    """'I went to my class' → 'Caroline went to Caroline's class': a fact that stands alone."""
    text = IMAGE.sub("", sentence).strip()
    if CJK.search(text):
        return _chinese_third_person(text, chinese_name(name))
    masked, kept = _mask_names(text)
    return lower_roles(re.sub("\x00(\\d+)\x00", lambda match: kept[int(match.group(1))],
                              _english_third_person(masked, name)))


def _chinese_third_person(text: str, name: str) -> str:
    """'我上周去了云台山' → '孙悦上周去了云台山'; a statement with no subject gets the speaker as its subject."""
    if not ZH_FIRST_PERSON.search(text):
        return f"{name}{text}"
    text = text.replace(f"我叫{name}", f"{name}自我介绍叫{name}")  # not '孙悦叫孙悦'
    text = ZH_CALL_ME.sub(lambda match: f"{match.group(1)}称{name}为", text)
    for pattern, replacement in ZH_FORMS:
        text = pattern.sub(replacement.format(name=name), text)
    return text


def _mask_names(text: str) -> tuple[str, list[str]]:
    """Identifiers and names holding a capital I, each replaced by a numbered placeholder the rewrite leaves alone."""
    kept: list[str] = []

    def mask(match: re.Match) -> str:
        kept.append(match.group(0))
        return f"\x00{len(kept) - 1}\x00"

    def mask_numeral(match: re.Match) -> str:
        word = match.group(1).lower()
        return match.group(0) if word in STOPWORDS or word in FILLER_WORDS else mask(match)

    return NAME_WITH_NUMERAL.sub(mask_numeral, IDENTIFIER_WITH_I.sub(mask, text)), kept


def _english_third_person(text: str, name: str) -> str:
    subjectless = SUBJECTLESS_START.match(text)
    if subjectless and not GERUND_SUBJECT.search(text):
        text = f"{name} {SUBJECTLESS_AUXILIARY.get(subjectless.group(1).lower(), '')}{text[0].lower()}{text[1:]}"
    for pattern, replacement in THIRD_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=name), text)
    text = re.sub(r"\bI\b((?:\s+(?:" + "|".join(ADVERBS) + r"))*)\s+([a-z']+)",
                  lambda match: f"{name}{match.group(1)} {_verb_after(match)}", text)
    return re.sub(r"\bI\b", name, text)


INVERTED = re.compile(r"\b(?:shall|should|can|could|will|would|may|might|must|did)\s+$", re.IGNORECASE)
"""A question puts the modal before the pronoun ("Shall I draft …?"): the verb after it keeps its plain form."""


def _verb_after(match: re.Match) -> str:
    verb = match.group(2)
    return verb if INVERTED.search(match.string, 0, match.start()) else _conjugate(verb)


def _conjugate(verb: str) -> str:
    """The third-person form of a present-tense verb; past forms, modals and -ed words stay."""
    if verb in IRREGULAR_PRESENT:
        return IRREGULAR_PRESENT[verb]
    if verb in UNCHANGED_AFTER_I or (verb.endswith("ed") and not verb.endswith("eed")) or "'" in verb:
        return verb
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    if verb.endswith("y") and verb[-2] not in "aeiou":
        return verb[:-1] + "ies"
    return verb + "s"


ASKED_YOU = re.compile(r"(?<![\w'’])(do|are|have|were) you\b", re.IGNORECASE)
"""A question to the listener ("Do you want me to …?"): its verb agrees with the name that replaces "you"."""
ASKED_VERBS = {"do": "does", "are": "is", "have": "has", "were": "was"}
SUBJECT_YOU = re.compile(r"((?:^|[.;:!?,—–]\s+|\b(?:if|when|whenever|once|unless|until|before|after|because|so|then|"
                         r"and|but|or|since|while|where)\s+))you((?:\s+(?:" + "|".join(ADVERBS) + r"))*)\s+"
                         r"(?!(?:all|both|guys|two|too|again|there|here|know|see)\b)([a-z']+)\b", re.IGNORECASE)
""""you" as the subject of the verb after it, at a sentence's or clause's start ("If you select them, …"): the verb
agrees with the name that replaces it ("If the user selects them"). After a verb, "you" is its object ("let you
know") and stays as the plain replacement leaves it."""
YOU_VERBS = {"are": "is", "were": "was", "aren't": "isn't", "weren't": "wasn't"}
SECOND_PERSON_FORMS = ((re.compile(r"\byou're\b|\byou’re\b|\byou are\b", re.IGNORECASE), "{name} is"),
                       (re.compile(r"\byou've\b|\byou’ve\b", re.IGNORECASE), "{name} has"),
                       (re.compile(r"\byourself\b", re.IGNORECASE), "themself"),
                       (re.compile(r"\byours?\b", re.IGNORECASE), "{name}'s"),
                       (re.compile(r"\byou\b", re.IGNORECASE), "{name}"))
ZH_SECOND_PERSON_FORMS = ((re.compile(r"你们|您们"), "{name}他们"), (re.compile(r"你|您"), "{name}"))


def said_to(sentence: str, speaker: str, listener: str) -> str:
    """What ``speaker`` told ``listener``, standing alone: 'I suggest you try X' → 'AI suggests Sunny try X'."""
    text = ZH_SINGULAR_SELF.sub(chinese_name(speaker), sentence) if CJK.search(sentence) else \
        third_person(sentence, speaker)
    text = ASKED_YOU.sub(lambda match: f"{_same_case(match.group(1), ASKED_VERBS[match.group(1).lower()])} "
                                       f"{listener}", text)
    text = SUBJECT_YOU.sub(lambda match: f"{match.group(1)}{listener}{match.group(2)} "
                                         f"{YOU_VERBS.get(match.group(3), _conjugate(match.group(3)))}", text)
    for pattern, replacement in SECOND_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=listener), text)
    for pattern, replacement in ZH_SECOND_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=chinese_name(listener)), text)
    return lower_roles(text)


def _same_case(written: str, word: str) -> str:
    return word.capitalize() if written[:1].isupper() else word


def lower_roles(text: str) -> str:
    return ROLE_INSIDE.sub(lambda match: match.group(0).lower(), text)


ROLE_INSIDE = re.compile(r"(?<=[\w,;)'’—-] )The (?:user|assistant)\b")
"""A role named inside a sentence reads "put the user on check-ups", not "put The user on"."""
