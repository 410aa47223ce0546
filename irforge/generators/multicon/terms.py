"""The terms of a condition sentence: names, numbers and content words (plain code, no LLM).

Step 2's ``pick`` phrases and step 3's ``substitute`` hard negatives choose among
:func:`key_terms` (the output schemas enumerate them); the ``keyword`` strategy must keep
:func:`salient_terms`; the checks compare texts by :func:`content_words`.
"""

from __future__ import annotations

import re
from functools import lru_cache

from irforge.core.stopwords import ENGLISH

_WORD = re.compile(r"[a-z0-9]+")
_TERM = re.compile(r"[A-Za-z0-9][\w'&.-]*\w|\w")
_CAPITALISED_RUN = re.compile(r"(?<!\w)(?:[A-Z][\w'&.-]*\w(?:\s+(?:of|the|de|van|von)?\s*)?)+")
MAX_KEY_TERMS = 24


def content_words(text: str) -> set[str]:
    """Lower-case words of 3+ letters that are not stopwords."""
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in ENGLISH}


def contains_term(text: str, term: str) -> bool:
    """Whether ``term`` occurs in ``text`` as whole words (case-insensitive)."""
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE) is not None


def salient_terms(sentence: str) -> list[str]:
    """Terms a keyword hard negative must keep: capitalised words after the first, numbers."""
    terms = _TERM.findall(sentence)
    out = [term for position, term in enumerate(terms)
           if any(ch.isdigit() for ch in term) or (position > 0 and term[0].isupper()
                                                   and term not in ("I", "A"))]
    return list(dict.fromkeys(out))


@lru_cache(maxsize=1024)
def key_terms(sentence: str) -> tuple[str, ...]:
    """Terms a substitution may replace: names (capitalised runs, the sentence's first word
    left out), numbers, then other content words; the schema enumerates them."""
    names = []
    for match in _CAPITALISED_RUN.finditer(sentence):
        name = match.group().strip()
        if match.start() == 0:
            name = name.split(" ", 1)[1] if " " in name else ""
        if name:
            names.append(name)
    numbers = [t for t in _TERM.findall(sentence) if any(ch.isdigit() for ch in t)]
    taken = {w for term in [*names, *numbers] for w in _WORD.findall(term.lower())}
    words = sorted(content_words(sentence) - taken, key=lambda w: sentence.lower().find(w))
    terms = [t for t in dict.fromkeys([*names, *numbers, *words]) if contains_term(sentence, t)]
    return tuple(terms[:MAX_KEY_TERMS]) or tuple(dict.fromkeys(sentence.split()))


def asked_terms(sentence: str, condition: str) -> tuple[str, ...]:
    """The sentence's key terms that its query condition names (changing one of them makes
    the sentence stop meeting the condition); all key terms when the condition names none."""
    terms = key_terms(sentence)
    asked = tuple(term for term in terms if contains_term(condition, term))
    return asked or terms
