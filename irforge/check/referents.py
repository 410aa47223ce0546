"""Words that point outside their sentence: a condition must say what it is about.

A sentence that opens with a pronoun or demonstrative ("They drill 24 mm holes...", "It is
lent with...", "The latter costs...") takes its subject from the text before it. Taken alone
as a MultiConIR condition, the subject is lost and the condition reads as if it were about
whatever the query names first (the cordless drills instead of the hammer drills). The same
holds after a short opening phrase ("In 2023, they were lent..."). Plain code, no model.

Personal pronouns (he, she) are left out: in the documents MultiConIR asks about (a person, a
patient, a case) they follow the person the document is about, whom the query seeks, and the
sentence before them often does not name that person either.
"""

from __future__ import annotations

import re

#: opening words whose referent is outside the sentence (pronouns, possessives, demonstratives)
ANAPHORS = frozenset({"it", "its", "they", "them", "their", "theirs", "this", "these", "that",
                      "those", "such", "both"})
#: two-word openers that refer back the same way
ANAPHOR_PHRASES = ("the latter", "the former")
#: subject pronouns that a short opening phrase may come before ("In 2023, they were lent...")
SUBJECTS = frozenset({"it", "its", "they", "their", "this", "these"})
#: the most words an opening phrase before such a subject has ("For most uses, it ...")
MAX_OPENING_WORDS = 4

_WORD = re.compile(r"[A-Za-z]+(?:['’][A-Za-z]+)?")


def opening_anaphor(sentence: str) -> str | None:
    """The word(s) of ``sentence`` whose referent is outside it when they open it (or follow
    a short opening phrase and a comma), as written; None when the sentence names its own
    subject."""
    found = _WORD.findall(sentence[:200])
    if not found:
        return None
    two = " ".join(found[:2]).lower()
    if two in ANAPHOR_PHRASES:
        return " ".join(found[:2])
    if found[0].lower() in ANAPHORS:
        return found[0]
    head, comma, rest = sentence.partition(",")
    if comma and len(_WORD.findall(head)) <= MAX_OPENING_WORDS:
        after = _WORD.findall(rest[:60])
        if after and after[0].lower() in SUBJECTS:
            return after[0]
    return None
