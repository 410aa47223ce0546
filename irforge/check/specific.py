"""Specificity validator: a query must say what it asks about, not only name a topic.

A query whose content words reduce to a single term ("What is the binding itself?") asks
about whatever that term names; when other passages of the corpus, not relevant to it, also
hold the term, the query cannot single out its relevant passage and its qrels are a guess.
Two content terms (a predicate such as "meet" counts, though the grounding rules skip it),
or one that only its relevant passages hold, pass. Measured on ComLQ's
2,909 human-written queries: one has a single content term ("What is an abbey used for?").
"""

from __future__ import annotations

from collections.abc import Iterator

from irforge.check.base import Case, Context, Finding, validator
from irforge.check.text import PREDICATE_STOPWORDS, content_words, stem, words

#: examples of other passages named in the finding
SHOWN = 3


@validator("form.specific")
def check_specific(case: Case, context: Context) -> Iterator[Finding]:
    """A single-term query whose term also occurs in passages not relevant to it."""
    found = content_words(case.text)
    predicates = [w for w in words(case.text) if w in PREDICATE_STOPWORDS]
    terms = {stem(word) for word in (*found, *predicates)}
    if len(terms) != 1 or not context.docs:
        return
    [term] = terms
    relevant = {doc.doc_id for doc in case.grounds}
    others = sorted(context.stem_postings.get(term, frozenset()) - relevant)
    if others:
        shown = ", ".join(others[:SHOWN]) + (", ..." if len(others) > SHOWN else "")
        term_word = (found or predicates)[0]
        yield Finding("form.specific", "text", f"underspecified: its only content term "
                      f"({term_word!r}) also occurs in {len(others)} passage(s) not relevant "
                      f"to it ({shown})", "say what about it the query asks (a second term from "
                      "its passage), so one passage answers it")
