"""The rules every generated query passes, whatever method wrote it (docs/generation.md):
one definition each, applied by the generation gates (:mod:`irforge.steps.gates`) and by the
``form`` validators of ``irforge check`` (:mod:`irforge.check.form`).

A query is rejected when it is empty or one word, loops (degenerate repetition), is in the
wrong language, equals or sits inside its passage's title, or copies its passage. Each rule is
a pure function returning a reason or None; reasons read ``gate <name>: <detail>``.

The thresholds are named constants below; they are part of the benchmark's definition of a
usable query and must never be loosened to raise a yield.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

# -- thresholds ------------------------------------------------------------------------------

#: a query needs at least this many words (one-word and empty queries are rejected)
MIN_QUERY_WORDS = 2
#: a run of this many consecutive passage words inside a query is a copy, however long the query
COPY_MAX_RUN_WORDS = 12
#: ... and so is a run of at least COPY_MIN_RUN_WORDS words covering this share of the query
COPY_RUN_FRACTION = 0.6
COPY_MIN_RUN_WORDS = 5
#: word n-grams (this n) of the query found in the passage (title + text) ...
COPY_NGRAM = 3
#: ... above this share make the query a patchwork copy (queries of COPY_NGRAM_MIN_WORDS+ words)
COPY_NGRAM_FRACTION = 0.8
COPY_NGRAM_MIN_WORDS = 6
#: an n-gram (n <= REPEAT_MAX_N) repeated this many times in a row is a loop ("the the the")
REPEAT_TIMES = 3
REPEAT_MAX_N = 4
#: queries of REPEAT_MIN_WORDS+ words whose distinct words are under this share loop too
REPEAT_MIN_DISTINCT = 0.3
REPEAT_MIN_WORDS = 12
#: the same character this many times in a row ("!!!!!!", "aaaaaa") is degenerate
REPEAT_CHAR_RUN = 6
#: the language gate judges queries of this many words or more ...
LANGUAGE_MIN_WORDS = 4
#: ... and rejects one whose top language is another with at least this probability ...
LANGUAGE_MIN_CONFIDENCE = 0.5
#: ... while the expected language gets less than this probability
LANGUAGE_MAX_EXPECTED = 0.02
DEFAULT_LANGUAGE = "en"

_WORD = re.compile(r"\w+", re.UNICODE)


def words(text: str) -> list[str]:
    """Lower-case word tokens (letters and digits)."""
    return _WORD.findall(text.lower())


def normalized(text: str) -> str:
    """The form compared for exact duplicates: lower case, words only, single spaces."""
    return " ".join(words(text))


# -- single-query gates (pure) ---------------------------------------------------------------

def length_reason(query: str) -> str | None:
    """Empty or one-word queries."""
    count = len(words(query))
    if count == 0:
        return "gate empty: the query has no words"
    if count < MIN_QUERY_WORDS:
        return f"gate one-word: {query.strip()!r} has {count} word (min {MIN_QUERY_WORDS})"
    return None


def repetition_reason(text: str) -> str | None:
    """Degenerate repetition: an n-gram repeated in a row, too few distinct words, a char run."""
    char_run = re.search(rf"(\S)\1{{{REPEAT_CHAR_RUN - 1},}}", text)
    if char_run:
        return f"gate repetition: character {char_run.group(1)!r} repeated " \
               f"{len(char_run.group())} times"
    tokens = words(text)
    for n in range(1, REPEAT_MAX_N + 1):
        for start in range(len(tokens) - n * REPEAT_TIMES + 1):
            gram = tokens[start:start + n]
            if all(tokens[start + r * n:start + (r + 1) * n] == gram
                   for r in range(1, REPEAT_TIMES)):
                return (f"gate repetition: {' '.join(gram)!r} repeated {REPEAT_TIMES}+ times "
                        "in a row")
    if len(tokens) >= REPEAT_MIN_WORDS and len(set(tokens)) / len(tokens) < REPEAT_MIN_DISTINCT:
        return (f"gate repetition: {len(set(tokens))} distinct words of {len(tokens)} "
                f"(under {REPEAT_MIN_DISTINCT:.0%})")
    return None


def title_reason(query: str, title: str) -> str | None:
    """A query equal to the passage title, or contained in it."""
    q, t = normalized(query), normalized(title)
    if not q or not t:
        return None
    if q == t:
        return "gate title: the query is the passage title"
    if f" {q} " in f" {t} ":
        return f"gate title: the query is part of the passage title {title.strip()!r}"
    return None


def longest_common_run(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest run of consecutive tokens shared by ``a`` and ``b``."""
    best, previous = 0, [0] * (len(b) + 1)
    for x in a:
        current = [0] * (len(b) + 1)
        for j, y in enumerate(b, start=1):
            if x == y:
                current[j] = previous[j - 1] + 1
                best = max(best, current[j])
        previous = current
    return best


def _ngrams(tokens: Sequence[str], n: int) -> list[tuple[str, ...]]:
    return [tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1)]


def copy_reason(query: str, title: str, text: str) -> str | None:
    """A query that copies its passage: a long shared word run, or mostly passage n-grams."""
    q = words(query)
    if not q:
        return None
    run = max(longest_common_run(q, words(text)), longest_common_run(q, words(title)))
    if run >= COPY_MAX_RUN_WORDS:
        return f"gate copy: {run} consecutive words copied from the passage " \
               f"(max {COPY_MAX_RUN_WORDS - 1})"
    if run >= COPY_MIN_RUN_WORDS and run / len(q) >= COPY_RUN_FRACTION:
        return (f"gate copy: {run} of the query's {len(q)} words are one run copied from the "
                f"passage (max {COPY_RUN_FRACTION:.0%})")
    if len(q) >= COPY_NGRAM_MIN_WORDS:
        grams = _ngrams(q, COPY_NGRAM)
        passage = set(_ngrams(words(title), COPY_NGRAM)) | set(_ngrams(words(text), COPY_NGRAM))
        share = sum(1 for g in grams if g in passage) / len(grams)
        if share >= COPY_NGRAM_FRACTION:
            return (f"gate copy: {share:.0%} of the query's word {COPY_NGRAM}-grams occur in "
                    f"the passage (max {COPY_NGRAM_FRACTION:.0%})")
    return None


@lru_cache(maxsize=1)
def _identifier() -> Any:
    """py3langid's identifier with normalised probabilities (its model ships in the wheel)."""
    from irforge.check.langid_model import load_identifier
    from irforge.core.errors import require

    return load_identifier(require("py3langid.langid", "generators"))


def language_reason(query: str, expected: str | None) -> str | None:
    """A query confidently in another language than ``expected`` (None: no language gate)."""
    if not expected or len(words(query)) < LANGUAGE_MIN_WORDS:
        return None
    ranked = dict(_identifier().rank(query))
    top = max(ranked, key=ranked.__getitem__)
    if top != expected and ranked[top] >= LANGUAGE_MIN_CONFIDENCE \
            and ranked.get(expected, 0.0) < LANGUAGE_MAX_EXPECTED:
        return (f"gate language: the query reads as {top!r} (p={ranked[top]:.2f}), "
                f"expected {expected!r}")
    return None


def corpus_language(texts: Iterable[str], sample: int = 20) -> str:
    """The commonest confidently detected language of the first ``sample`` texts, else 'en'."""
    votes: Counter[str] = Counter()
    for text in list(texts)[:sample]:
        if len(words(text)) >= LANGUAGE_MIN_WORDS:
            ranked = _identifier().rank(text[:2000])
            if ranked[0][1] >= LANGUAGE_MIN_CONFIDENCE:
                votes[str(ranked[0][0])] += 1
    return votes.most_common(1)[0][0] if votes else DEFAULT_LANGUAGE


def single_query_reasons(query: str, title: str = "", text: str = "",
                         language: str | None = DEFAULT_LANGUAGE) -> list[str]:
    """Every gate that needs no other query: length, repetition, language, title, copy."""
    short = length_reason(query)
    if short:
        return [short]
    checks = (repetition_reason(query), language_reason(query, language),
              title_reason(query, title), copy_reason(query, title, text))
    return [reason for reason in checks if reason]
