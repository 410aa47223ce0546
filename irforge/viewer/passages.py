"""Passages of a query by role (positive, hard negative, other judged), with the words of a
hard negative that differ from the positive marked, and labels rounded to grades."""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Mapping

SNIPPET = 600
_WORDS = re.compile(r"\S+|\s+")


def word_diff(positive: str, other: str) -> list[list]:
    """``other`` as ``[text, changed]`` segments: words not in ``positive`` (in order) are
    changed; whitespace is kept, so joining the texts gives ``other`` back."""
    theirs = _WORDS.findall(other)
    ours = [t for t in _WORDS.findall(positive) if not t.isspace()]
    words = [(i, t) for i, t in enumerate(theirs) if not t.isspace()]
    matcher = difflib.SequenceMatcher(a=ours, b=[t for _, t in words], autojunk=False)
    same = {words[j][0] for block in matcher.get_matching_blocks()
            for j in range(block.b, block.b + block.size)}
    segments: list[list] = []
    for index, token in enumerate(theirs):
        changed = not token.isspace() and index not in same
        if segments and (segments[-1][1] == changed or token.isspace()):
            segments[-1][0] += token
        else:
            segments.append([token, changed])
    return segments


def grade(label: float) -> int:
    """An LLM's continuous label (an ensemble mean such as 2.23) as the grade people give,
    rounded half up (2.5 -> 3)."""
    return math.floor(float(label) + 0.5)


def agreement(labels: Mapping[str, float]) -> bool | None:
    """Do the raters give the same grade (after rounding)? None with fewer than two raters."""
    grades = {grade(value) for value in labels.values()}
    return None if len(labels) < 2 else len(grades) == 1


def roles(grades: Mapping[str, int], judged: set[str], hard_negatives: bool = False
          ) -> dict[str, str]:
    """``positive`` for the documents at the query's best grade (> 0); the other documents
    the qrels grade are ``hard negative`` where the method made hard negatives
    (``hard_negatives``), else ``graded`` (graded relevance: a grade-1 passage is related, not
    a hard negative); ``judged`` for documents only raters labelled."""
    best = max((g for g in grades.values() if g > 0), default=None)
    other = "hard negative" if hard_negatives else "graded"
    out = {doc: ("positive" if best is not None and g == best else other)
           for doc, g in grades.items()}
    out.update({doc: "judged" for doc in judged if doc not in out})
    return out
