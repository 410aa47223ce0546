"""Near-miss negatives for judge controls: passages on the query's topic that do not answer it.

A judge that calls every on-topic passage relevant passes positives and other-document
negatives; near-misses catch it. Candidates are the other passages of the source's own
document (same document, often the same section; most query words first), then the query's
BM25 neighbours from other documents. A candidate is a near-miss when it is on topic (it
shares a content word with the query) and does not answer:

- with a known answer: it holds no part of the answer (:func:`passage_text.has_answer`);
- without one: it holds fewer than half of the answer's words, read from the source: the
  content words and numbers of the source sentence that best matches the query, less the
  query's own words. This is a proxy; a correct judge that still finds such a passage
  relevant loses accuracy, so the controls err towards calling a judge untrusted.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Protocol

from irforge.core.records import Doc
from irforge.generators.passage_text import content_words, document_of, has_answer

Ranker = Callable[[str, Sequence[Doc]], list[str]]
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
SAME_DOCUMENT, NEIGHBOUR = "same-document", "bm25-neighbour"


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


def _words(text: str) -> set[str]:
    return content_words(text) | set(_NUMBER.findall(text))


def answer_words(query: str, passage: str) -> set[str]:
    """What the source passage adds to the query: the words and numbers of its sentence that
    best matches the query, less the query's own words."""
    asked = _words(query)
    sentences = [s for s in _SENTENCE_END.split(passage) if s.strip()] or [passage]
    best = max(sentences, key=lambda sentence: len(_words(sentence) & asked))
    return _words(best) - asked


class Source(Protocol):
    """What a near-miss is made for: a query, its source passage's id and its answer."""

    query: str
    doc_id: str
    answer: str | None


def lacks_answer(source: Source, source_text: str, candidate: str) -> bool:
    """Whether ``candidate`` is on the query's topic and still does not answer it."""
    words = _words(candidate)
    if not words & content_words(source.query):
        return False  # off topic: that is an other-document negative, not a near-miss
    if source.answer is not None:
        return not has_answer(candidate, source.answer)
    needed = answer_words(source.query, source_text)
    if not needed:
        return False  # nothing says what answering takes: no proof the candidate lacks it
    return len(needed & words) * 2 < len(needed)


def near_miss(source: Source, pool: Sequence[Doc], ranker: Ranker
              ) -> tuple[Doc, str] | None:
    """The best-ranked on-topic passage that does not answer ``source``'s query, from its own
    document first, then from other documents; with where it came from."""
    by_id = {doc.doc_id: doc for doc in pool}
    home = by_id.get(source.doc_id)
    if home is None:
        return None
    own = document_of(home)
    asked = content_words(source.query)
    same = [doc for doc in pool if doc.doc_id != source.doc_id and document_of(doc) == own]
    same.sort(key=lambda doc: (-len(asked & content_words(doc.text)), doc.doc_id))
    for doc in same:  # most query words first: the likeliest to fool a lenient judge
        if lacks_answer(source, home.text, doc.text):
            return doc, SAME_DOCUMENT
    for doc_id in ranker(source.query, pool):
        doc = by_id.get(doc_id)
        if doc is not None and doc_id != source.doc_id and document_of(doc) != own \
                and lacks_answer(source, home.text, doc.text):
            return doc, NEIGHBOUR
    return None
