"""Abbreviations a passage spells out: initials of a run of its words ("ppm" for "parts per
million", "MBR" for "master boot record") and clipped forms of its long words ("ich" for
"Ichthyophthirius", "hygro" for "Hygrophila")."""

from __future__ import annotations

from collections.abc import Sequence

#: initials are read for abbreviations of this many letters
INITIALS_LETTERS = (3, 5)
#: a clipped form keeps at least this many letters of a word at least CLIPPED_FROM long
CLIPPED_MIN, CLIPPED_FROM = 3, 8


def initials_in(term: str, passage_words: Sequence[str]) -> bool:
    """Whether ``term`` is the initials of a run of consecutive passage words."""
    letters = term.lower()
    low, high = INITIALS_LETTERS
    if not (low <= len(letters) <= high and letters.isalpha()):
        return False
    size = len(letters)
    heads = [w[0] for w in passage_words]
    return any("".join(heads[i:i + size]) == letters for i in range(len(heads) - size + 1))


def clipped_in(term: str, passage_words: Sequence[str]) -> bool:
    """Whether ``term`` is the start of a long passage word ("ich" in "ichthyophthirius")."""
    lower = term.lower()
    if len(lower) < CLIPPED_MIN or not lower.isalpha():
        return False
    return any(len(w) >= CLIPPED_FROM and len(w) >= len(lower) + 3 and w.startswith(lower)
               for w in passage_words)
