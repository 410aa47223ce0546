"""Aliases the corpus itself defines: "ultraviolet (UV)", "UV (ultraviolet)", and initials.

A definition counts when the letters of the short form occur in order in the long form, the
first one opening a word (after Schwartz and Hearst's abbreviation rule). The alias table maps
each lower-case form to the forms it stands for, both ways, so a query may use either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from irforge.core.records import Doc

_PAREN = re.compile(r"\(([^()]{1,60})\)")
_WORDS = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’-]*")
_SHORT = re.compile(r"^[A-Za-z][A-Za-z0-9&.-]{0,9}$")


def _matches(short: str, long_words: list[str]) -> bool:
    """Whether the letters of ``short`` occur in order in ``long_words``, the first letter
    opening the first word (Schwartz and Hearst's test)."""
    letters = [c.lower() for c in short if c.isalnum()]
    text = " ".join(long_words).lower()
    if not letters or not text or text[0] != letters[0]:
        return False
    position = len(text)
    for index in range(len(letters) - 1, -1, -1):
        position = text.rfind(letters[index], 0, position)
        if position < 0:
            return False
        if index == 0 and position != 0:
            return False
    return True


def _long_form(short: str, before: list[str]) -> list[str] | None:
    """The shortest run of words ending ``before`` whose letters spell ``short``."""
    limit = min(len(short) + 5, 2 * len(short))
    for size in range(1, min(limit, len(before)) + 1):
        candidate = before[-size:]
        if _matches(short, candidate) and len(candidate) <= limit:
            return candidate
    return None


def definitions(text: str) -> list[tuple[str, str]]:
    """(short form, long form) pairs defined in ``text`` by a parenthesis, either order."""
    pairs: list[tuple[str, str]] = []
    for match in _PAREN.finditer(text):
        inside = match.group(1).strip()
        before = _WORDS.findall(text[max(0, match.start() - 200):match.start()])
        if not before:
            continue
        if _SHORT.match(inside) and any(c.isupper() for c in inside):
            long_words = _long_form(inside, before)
            if long_words:
                pairs.append((inside, " ".join(long_words)))
        elif _SHORT.match(before[-1]) and before[-1].isupper():
            inner = _WORDS.findall(inside)
            if inner and _matches(before[-1], inner):
                pairs.append((before[-1], " ".join(inner)))
    return pairs


_NAME_RUN = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:of|the|and|for|de)?\s*[A-Z][a-z]+)+")


def name_initials(text: str) -> list[tuple[str, str]]:
    """(initials, name) for each capitalised multi-word name ("Hollis Institute of
    Technology" -> "HIT")."""
    from irforge.check.text import initials

    out = []
    for match in _NAME_RUN.finditer(text):
        name = " ".join(match.group().split())
        short = initials(name.split())
        if len(short) >= 2:
            out.append((short, name))
    return out


@dataclass
class Aliases:
    """Lower-case form -> the forms it stands for (both directions)."""

    table: dict[str, set[str]] = field(default_factory=dict)

    def add(self, short: str, long: str) -> None:
        a, b = short.lower(), " ".join(long.lower().split())
        if a != b:
            self.table.setdefault(a, set()).add(b)
            self.table.setdefault(b, set()).add(a)

    def of(self, term: str) -> set[str]:
        """The forms ``term`` stands for (empty when the corpus defines none)."""
        return self.table.get(term.lower(), set())


def corpus_aliases(docs: Iterable[Doc]) -> Aliases:
    """Every abbreviation defined anywhere in the corpus, and initials of multi-word names."""
    aliases = Aliases()
    for doc in docs:
        for text in (doc.title, doc.text):
            if not text:
                continue
            if "(" in text:
                for short, long in definitions(text):
                    aliases.add(short, long)
            for short, long in name_initials(text):
                aliases.add(short, long)
    return aliases
