"""A written MultiConIR condition phrase: one fact, in the words its prompt asks for.

MIN_PHRASE_WORDS and MAX_PHRASE_WORDS are the one declaration of a phrase's length: the
``multicon.condition_phrase`` prompt is rendered with them (PHRASE_WORDS) and
:func:`phrase_problem` enforces them; the prompt lint holds a user template to them.
"""

from __future__ import annotations

import re

from irforge.check.referents import opening_anaphor
from irforge.generators.multicon.sentences import word_count
from irforge.steps import Rejected

_LEADING_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
#: a written condition phrase has MIN_PHRASE_WORDS..MAX_PHRASE_WORDS words
MIN_PHRASE_WORDS = 2
MAX_PHRASE_WORDS = 8
#: the bounds as the 'write' prompt states them (the one declaration the prompt renders)
PHRASE_WORDS = {"min_words": MIN_PHRASE_WORDS, "max_words": MAX_PHRASE_WORDS}


def _clean_phrase(phrase: str) -> str:
    return _LEADING_MARKER.sub("", " ".join(phrase.split())).strip(" .;,")


def phrase_problem(phrase: str) -> str | None:
    """Why a written condition is not one condition (None: it is): MIN_PHRASE_WORDS to
    MAX_PHRASE_WORDS words (one fact, not the sentence's every detail), and a subject of its
    own (not 'They ...')."""
    text = _clean_phrase(phrase)
    count = word_count(text)
    if count < MIN_PHRASE_WORDS:
        return (f"condition phrase {text!r} has {count} word(s); it needs at least "
                f"{MIN_PHRASE_WORDS}")
    if count > MAX_PHRASE_WORDS:
        return (f"condition phrase {text!r} has {count} words, over {MAX_PHRASE_WORDS}: a "
                "search condition, not the sentence; state one fact, the most specific one")
    word = opening_anaphor(text)
    if word:
        return (f"condition phrase {text!r} opens with {word!r}: say what it is about, as "
                "the text names it")
    return None


def validate_phrase(phrase: str) -> str:
    """Step 2, 'write': the cleaned phrase (no list marker), or :class:`Rejected` with its
    :func:`phrase_problem`."""
    problem = phrase_problem(phrase)
    if problem:
        raise Rejected(problem)
    return _clean_phrase(phrase)
