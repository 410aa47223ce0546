"""Plain-code checks of every LLM output before it becomes part of a benchmark.

Each validator returns the cleaned value or raises :class:`Rejected` with a reason that ends up
in ``failures.jsonl``. None of them calls an LLM.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from irforge.generators.common import Rejected
from irforge.generators.multicon.models import SubQuery
from irforge.generators.multicon.sentences import (
    MIN_WORDS,
    Located,
    Span,
    locate,
    normalize,
    split_sentences,
    word_count,
)

_LIST_MARKER = re.compile(r"(?:^|\s)(?:\d+[.)]|[-*•])\s")
_LEADING_MARKER = re.compile(r"^\s*(?:\d+[.)]|[-*•])\s+")
_WORD = re.compile(r"[a-z0-9]+")
_STOPWORDS = frozenset({
    "the", "and", "for", "with", "was", "were", "are", "his", "her", "its", "their", "this",
    "that", "from", "into", "onto", "over", "under", "after", "before", "has", "had", "have",
    "not", "but", "who", "which"})
MIN_SHARED_WORDS = 0.2
_TERM = re.compile(r"[A-Za-z0-9][\w'&.-]*\w|\w")


def validate_conditions(sentences: Sequence[str], document: str, n: int,
                        threshold: float = 90.0) -> list[Located]:
    """Step 1: N distinct sentences, each found in the document (exact or fuzzy and snapped)."""
    if len(sentences) != n:
        raise Rejected(f"expected {n} condition sentences, got {len(sentences)}")
    doc_sentences = split_sentences(document)
    located: list[Located] = []
    for index, sentence in enumerate(sentences, start=1):
        if word_count(sentence) < MIN_WORDS:
            raise Rejected(f"condition {index} {sentence!r} is shorter than {MIN_WORDS} words")
        found = locate(sentence, document, threshold, doc_sentences)
        if found is None:
            raise Rejected(f"condition {index} {sentence!r} does not occur in the document "
                           f"(no exact match, no sentence run with similarity >= {threshold:g})")
        for earlier_index, earlier in enumerate(located, start=1):
            if _overlap(found.span, earlier.span) or \
                    normalize(found.span.text) == normalize(earlier.span.text):
                raise Rejected(f"condition {index} duplicates condition {earlier_index} "
                               f"({found.span.text!r})")
        located.append(found)
    return located


def _overlap(a: Span, b: Span) -> bool:
    return a.start < b.end and b.start < a.end


def validate_instruction(conditions: Sequence[str], k: int) -> list[str]:
    """Step 2: an instruction-style query lists exactly k distinct, non-empty conditions."""
    cleaned = [_LEADING_MARKER.sub("", " ".join(condition.split())) for condition in conditions]
    if len(cleaned) != k:
        raise Rejected(f"instruction-style query lists {len(cleaned)} conditions, expected {k}")
    seen: dict[str, int] = {}
    for index, condition in enumerate(cleaned, start=1):
        if not normalize(condition):
            raise Rejected(f"condition {index} of the instruction-style query is empty")
        first = seen.setdefault(normalize(condition), index)
        if first != index:
            raise Rejected(f"condition {index} repeats condition {first}: {condition!r}")
    return cleaned


def render_instruction(instruction: str, conditions: Sequence[str]) -> str:
    """The instruction-style query text: the request, then a numbered list of conditions."""
    items = " ".join(f"{i}. {c.rstrip('.')}." for i, c in enumerate(conditions, start=1))
    return f"{instruction.strip()} {items}"


def validate_descriptive(query: str, k: int) -> str:
    """Step 2: a descriptive query is one piece of prose, not a list, long enough for k."""
    text = " ".join(query.split())
    if word_count(text) < max(MIN_WORDS, k):
        raise Rejected(f"descriptive query {text!r} is too short for {k} conditions")
    if len(_LIST_MARKER.findall(text)) >= 2:
        raise Rejected("descriptive query is written as a list; it must be natural prose")
    return text


def salient_terms(sentence: str) -> list[str]:
    """Terms a keyword hard negative must keep: capitalised words after the first, numbers."""
    terms = _TERM.findall(sentence)
    out = [term for position, term in enumerate(terms)
           if any(ch.isdigit() for ch in term) or (position > 0 and term[0].isupper()
                                                   and term not in ("I", "A"))]
    return list(dict.fromkeys(out))


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) >= 3 and w not in _STOPWORDS}


def _contains_term(text: str, term: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(term)}(?!\w)", text, flags=re.IGNORECASE) is not None


def validate_hard_negative(original: str, sentence: str, strategy: str,
                           key_terms: Sequence[str] = ()) -> tuple[str, list[str]]:
    """Step 3: the hard negative differs from the original; 'keyword' keeps the key terms.

    Returns the cleaned sentence and the key terms that were checked (empty for 'modify').
    """
    text = " ".join(sentence.split())
    if word_count(text) < MIN_WORDS:
        raise Rejected(f"hard negative {text!r} is shorter than {MIN_WORDS} words")
    if normalize(text) == normalize(original):
        raise Rejected("hard negative is the original sentence unchanged")
    if normalize(original) in normalize(text):
        raise Rejected("hard negative still contains the whole original sentence")
    words = _content_words(original)
    if words and len(words & _content_words(text)) / len(words) < MIN_SHARED_WORDS:
        raise Rejected(f"hard negative shares under {MIN_SHARED_WORDS:.0%} of the original's "
                       "words; it must rewrite that sentence, not replace it")
    if strategy != "keyword":
        return text, []
    declared = [" ".join(term.split()) for term in key_terms if term.strip()]
    foreign = [term for term in declared if not _contains_term(original, term)]
    if foreign:
        raise Rejected(f"key terms {foreign} do not occur in the original sentence")
    required = list(dict.fromkeys([*declared, *salient_terms(original)]))
    if not required:
        raise Rejected("keyword strategy needs at least one key term from the original sentence")
    lost = [term for term in required if not _contains_term(text, term)]
    if lost:
        raise Rejected(f"keyword strategy must keep the key terms; missing {lost}")
    return text, required


def validate_adaptive(subqueries: Sequence[SubQuery], k: int) -> list[SubQuery]:
    """Adaptive decomposition: non-empty sub-queries covering conditions 1..k exactly once."""
    covered: list[int] = []
    for index, sub in enumerate(subqueries, start=1):
        if not sub.text.strip():
            raise Rejected(f"sub-query {index} is empty")
        if not sub.conditions:
            raise Rejected(f"sub-query {index} covers no condition")
        covered.extend(sub.conditions)
    if sorted(covered) != list(range(1, k + 1)):
        raise Rejected(f"sub-queries must cover conditions 1..{k} exactly once, "
                       f"got {sorted(covered)}")
    return [SubQuery(text=" ".join(s.text.split()), conditions=list(s.conditions))
            for s in subqueries]
