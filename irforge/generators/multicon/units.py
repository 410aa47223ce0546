"""Condition units: the sentences a condition may be, each one standing on its own.

A sentence that opens with a pronoun or demonstrative ("They drill 24 mm holes in concrete")
takes its subject from the sentence before it (:func:`irforge.check.referents.opening_anaphor`).
Such a sentence is joined to the sentences before it in its paragraph, up to MAX_RUN sentences
in all, so the unit names its referent; one whose referent is in no such run (the paragraph
opens with it, or the run is full) is not a unit at all. Units never overlap.
"""

from __future__ import annotations

import re
from functools import lru_cache

from irforge.check.referents import opening_anaphor
from irforge.generators.multicon.sentences import MIN_WORDS, Span, split_sentences, word_count

#: the most sentences one unit joins (its referent's sentence and those pointing back to it)
MAX_RUN = 3
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")


def _joined(document: str, run: list[Span]) -> Span:
    return Span(run[0].start, run[-1].end, document[run[0].start:run[-1].end])


@lru_cache(maxsize=256)
def condition_units(document: str) -> tuple[Span, ...]:
    """The document's self-contained units in order: each sentence that names its subject,
    with the sentences after it in the same paragraph that point back to it."""
    units: list[Span] = []
    run: list[Span] = []
    for sentence in split_sentences(document):
        points_back = opening_anaphor(sentence.text) is not None
        if points_back and run and len(run) < MAX_RUN and not _PARAGRAPH_BREAK.search(
                document[run[-1].end:sentence.start]):
            run.append(sentence)
            continue
        if run:
            units.append(_joined(document, run))
        run = [] if points_back else [sentence]
    if run:
        units.append(_joined(document, run))
    return tuple(units)


def resolved(span: Span, document: str) -> Span | None:
    """``span`` from the start of the unit it lies in, when it opens by pointing back (so it
    holds its referent); None when no unit holds that referent. A span that names its own
    subject is returned as it is."""
    if opening_anaphor(span.text) is None:
        return span
    for unit in condition_units(document):
        if unit.start < span.start < unit.end:
            return Span(unit.start, span.end, document[unit.start:span.end])
    return None


#: step 1 shows at most this many numbered units: a whole book (1,480 sentences) is no pick
#: list, and a model reads a short list with care
MAX_CANDIDATES = 60


@lru_cache(maxsize=256)
def candidate_sentences(document: str) -> tuple[Span, ...]:
    """What step 1 may choose from (ids 1..): the document's self-contained condition units
    (a sentence, with the sentences after it that point back to it) of MIN_WORDS+ words; of
    a longer document, MAX_CANDIDATES of them spread evenly over it, in order (the same
    every run)."""
    units = [span for span in condition_units(document) if word_count(span.text) >= MIN_WORDS]
    if len(units) <= MAX_CANDIDATES:
        return tuple(units)
    step = len(units) / MAX_CANDIDATES
    return tuple(units[int(i * step)] for i in range(MAX_CANDIDATES))
