"""First person to third person: 'I went to my class' → 'Caroline went to Caroline's class'."""

from __future__ import annotations

import re

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
dealt meant hung dug stuck struck spoke broke froze stole hid bit shook used been
""".split())
"""Words after "I" that need no third-person -s: modals and past forms."""
IRREGULAR_PRESENT = {"have": "has", "do": "does", "go": "goes", "don't": "doesn't", "am": "is", "haven't": "hasn't"}


def third_person(sentence: str, name: str) -> str:
    """'I went to my class' → 'Caroline went to Caroline's class': a fact that stands alone."""
    text = IMAGE.sub("", sentence).strip()
    subjectless = SUBJECTLESS_START.match(text)
    if subjectless and not GERUND_SUBJECT.search(text):
        text = f"{name} {SUBJECTLESS_AUXILIARY.get(subjectless.group(1).lower(), '')}{text[0].lower()}{text[1:]}"
    for pattern, replacement in THIRD_PERSON_FORMS:
        text = pattern.sub(replacement.format(name=name), text)
    text = re.sub(r"\bI\b((?:\s+(?:" + "|".join(ADVERBS) + r"))*)\s+([a-z']+)",
                  lambda match: f"{name}{match.group(1)} {_conjugate(match.group(2))}", text)
    return re.sub(r"\bI\b", name, text)


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
