"""Words a prompt asks for, and the output tokens they take: what sizes ``max_tokens``.

A prompt that asks for "at least 150 words" and a step that stops the model at 334 tokens
disagree: a capable model is cut off and returns broken JSON. Steps size their limit from the
words they ask for (:func:`tokens_for_words`); the prompt lint reads the asks in a rendered
prompt (:func:`asked_words`) and checks the limit covers them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

TOKENS_PER_WORD = 1.4  # English words in common BPE vocabularies, punctuation included
MARGIN = 1.25  # on top: other languages, names and numbers split into more tokens
OPEN_ENDED = 1.5  # "at least N words": a model writes up to this many times N
FIELD_OVERHEAD = 12  # tokens of a JSON key, quotes and separators per field

_NUMBER = r"(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty)"
_ASK = re.compile(
    r"(?P<how>at least|at most|up to|no more than|fewer than|less than|more than|about|"
    r"around|roughly|between|~)?\s*" + _NUMBER + r"(?:\s*(?:to|-|–|and)\s*" + _NUMBER
    + r")?[\s-]*words?\b", re.IGNORECASE)
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10, "twelve": 12, "fifteen": 15, "twenty": 20}


def _value(text: str) -> int:
    return int(text) if text.isdigit() else _WORDS[text.lower()]


def words_allowed(phrase: str) -> int | None:
    """The most words one length phrase lets the model write ("50 to 150 words" -> 150,
    "at least 150 words" -> 225, "fewer than 10 words" -> 10); None when it names none."""
    match = _ASK.search(phrase)
    if match is None:
        return None
    how = (match.group("how") or "").lower()
    low = _value(match.group(2))
    high = _value(match.group(3)) if match.group(3) else None
    if high is not None:
        return max(low, high)
    if how in ("at least", "more than"):
        return math.ceil(low * OPEN_ENDED)
    if how in ("about", "around", "roughly", "~"):
        return math.ceil(low * MARGIN)
    return low


def asked_words(text: str) -> list[tuple[str, int]]:
    """Every length ask in a prompt: (the phrase, the most words it allows)."""
    out = []
    for match in _ASK.finditer(text):
        allowed = words_allowed(match.group(0))
        if allowed is not None:
            out.append((match.group(0).strip(), allowed))
    return out


def tokens_for_words(words: Iterable[int], fields: int = 1) -> int:
    """Output tokens that ``words`` (one count per field) and their JSON take, with margin."""
    total = sum(words)
    return math.ceil(total * TOKENS_PER_WORD * MARGIN) + FIELD_OVERHEAD * max(1, fields)
