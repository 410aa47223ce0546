"""Sentence boundaries as character spans, without a model.

A sentence ends at ``.``, ``!`` or ``?`` (plus closing quotes or brackets) followed by space
and a capital, digit or opening quote, unless the word before the period is a common
abbreviation or a single initial. A blank line (paragraph break) always ends a sentence.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

Span = tuple[int, int]

ABBREVIATIONS = frozenset({
    "e.g", "i.e", "etc", "vs", "cf", "al", "fig", "figs", "eq", "no", "nos", "vol", "pp", "p",
    "dr", "mr", "mrs", "ms", "prof", "st", "jr", "sr", "inc", "ltd", "co", "corp", "dept",
    "approx", "ca", "jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct",
    "nov", "dec", "u.s", "u.k", "u.n", "sec", "ch", "art", "min", "max", "est",
    "messrs", "mme", "mlle", "rev", "capt", "col", "lt", "gen", "gov", "hon", "mt", "op", "viz",
    "a.k.a",
})
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+[\"'“‘(\[]?[A-Z0-9])")
_PARAGRAPH = re.compile(r"\n\s*\n")
_LAST_WORD = re.compile(r"([\w.]+)$")


def _is_abbreviation(text: str, end: int) -> bool:
    if text[end - 1] != ".":
        return False
    match = _LAST_WORD.search(text, max(0, end - 41), end - 1)
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    return word in ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _trimmed(text: str, start: int, end: int) -> Span | None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if end > start else None


def sentence_spans(text: str) -> list[Span]:
    """Spans ``(start, end)`` of the sentences of ``text``, whitespace trimmed, in order."""
    return list(iter_sentence_spans(text))


def iter_sentence_spans(text: str) -> Iterator[Span]:
    """Like :func:`sentence_spans`, one at a time (for documents of many megabytes)."""
    paragraph_start = 0
    breaks = itertools.chain((m.start() for m in _PARAGRAPH.finditer(text)), [len(text)])
    for paragraph_end in breaks:
        start = paragraph_start
        for match in _END.finditer(text, paragraph_start, paragraph_end):
            end = match.end()
            if match.group(0).startswith(".") and len(match.group(0).rstrip("\"'”’)]")) == 1 \
                    and _is_abbreviation(text, match.start() + 1):
                continue
            span = _trimmed(text, start, end)
            if span:
                yield span
            start = end
        span = _trimmed(text, start, paragraph_end)
        if span:
            yield span
        paragraph_start = paragraph_end
