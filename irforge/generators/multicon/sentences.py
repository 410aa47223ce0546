"""Sentences with character offsets, and locating an LLM's condition sentence in its document.

The paper asks the LLM to copy sentences verbatim (appendix B, step 1). Models paraphrase a
little, so a sentence is accepted when it occurs exactly (whitespace-insensitive) or when a run of
one to three of the document's own sentences matches it above a rapidfuzz threshold; the span is
then snapped to the document's text, so hard-negative documents always edit real sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from irforge.core.errors import require
from irforge.corpus.sentences import sentence_spans

_CLOSERS = ".!?\"')]"
MIN_WORDS = 3


@dataclass(frozen=True, slots=True)
class Span:
    """A piece of a document: ``text == document[start:end]``."""

    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Located:
    """Where a condition sentence was found, and how."""

    span: Span
    match: Literal["exact", "fuzzy"]
    score: float


def split_sentences(text: str) -> list[Span]:
    """The sentences of ``text`` with offsets (the corpus's splitter: abbreviations, initials
    and a lower-case continuation do not end one, a blank line does); whitespace between them
    belongs to no sentence."""
    return [Span(start, end, text[start:end]) for start, end in sentence_spans(text)]


def normalize(text: str) -> str:
    """Lower case, single spaces, no surrounding punctuation: the form compared for equality."""
    return " ".join(text.lower().split()).strip(" .!?;:,\"'")


def find_exact(sentence: str, document: str) -> Span | None:
    """The first whitespace-insensitive occurrence of ``sentence`` in ``document``."""
    words = sentence.split()
    if not words:
        return None
    pattern = r"\s+".join(re.escape(word) for word in words)
    found = re.search(pattern, document)
    if found is None:
        return None
    end = found.end()
    while end < len(document) and document[end] in _CLOSERS:
        end += 1  # snap to the sentence's own closing punctuation when the copy dropped it
    return Span(found.start(), end, document[found.start():end])


def find_fuzzy(sentence: str, document: str, threshold: float,
               sentences: list[Span] | None = None, max_run: int = 3) -> tuple[Span, float] | None:
    """The run of 1..max_run document sentences most similar to ``sentence``, if >= threshold."""
    fuzz = require("rapidfuzz.fuzz", "generators")
    spans = sentences if sentences is not None else split_sentences(document)
    target = normalize(sentence)
    best: tuple[Span, float] | None = None
    for first in range(len(spans)):
        for last in range(first, min(first + max_run, len(spans))):
            start, end = spans[first].start, spans[last].end
            score = float(fuzz.ratio(target, normalize(document[start:end])))
            if best is None or score > best[1]:
                best = (Span(start, end, document[start:end]), score)
    if best is None or best[1] < threshold:
        return None
    return best


def locate(sentence: str, document: str, threshold: float = 90.0,
           sentences: list[Span] | None = None) -> Located | None:
    """Find a condition sentence in its document: exact first, then fuzzy and snapped."""
    exact = find_exact(sentence.strip(), document)
    if exact is not None:
        return Located(exact, "exact", 100.0)
    fuzzy = find_fuzzy(sentence, document, threshold, sentences)
    if fuzzy is None:
        return None
    return Located(fuzzy[0], "fuzzy", fuzzy[1])


def word_count(text: str) -> int:
    return len(text.split())
