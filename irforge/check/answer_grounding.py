"""A logical query's answer is grounded in its passages (``grounding.answer``).

An answer's words are its facts, so every one must be carried, as a claim's are: each name
and number, and every content word by form (stems, irregular and derived forms, compounds,
abbreviations), never by a phrase of similar meaning (an embedding takes "diesel" for
"petrol"). Where they may come from depends on the writer's profile (irforge.llm.profile):

- a capable model's numbers and content words may come from any sentence of the query's
  passages (title and text), not only the ones it quoted as evidence: a capable model
  quotes the sentences that satisfy the constraints, not the one that counts or describes
  the thing ("2 petrol lawnmowers"); its names must stand in the evidence sentences, since
  the evidence must show that the thing the answer names meets the constraints;
- a small (demo-grade) model's answer must stand in its evidence sentences.

The query's own entities may also be the topic of its passages' source, the names most
documents of that folder write (irforge.check.collection); the answer's names may not.

Either way an answer that says nothing ("it", "none", "N/A") is rejected; a bare yes or no
answers a yes/no question and stays.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence

from irforge.check.aliases import Aliases
from irforge.check.base import Case, Context, Finding, validator
from irforge.check.collection import topics_text
from irforge.check.form_grounding import own_wording
from irforge.check.grounding import _abbreviated, evidence, term_grounded, texts, ungrounded
from irforge.check.text import (
    ENGLISH,
    names,
    normalized,
    quantities,
    without_possessive,
    words,
)

#: answers that say nothing whatever the question ("unknown", "not stated")
NON_ANSWERS = frozenset({"none", "nothing", "unknown", "unclear", "n a", "na", "not stated",
                         "not given", "not mentioned", "not specified", "not applicable",
                         "no answer", "see above", "see passage"})
YES_NO = frozenset({"yes", "no"})


def vacuous(answer: str) -> bool:
    """True when the answer names, counts and states nothing: only function words ("it",
    "the one", "all of them"), a stock non-answer, or no word at all; a bare yes or no is
    an answer."""
    flat = " ".join(re.findall(r"\w+", answer.lower()))
    if flat in YES_NO:
        return False
    if flat in NON_ANSWERS or not re.search(r"\w", answer):
        return True
    return not (any(w not in ENGLISH for w in words(answer)) or names(answer)
                or quantities(answer))


def answer_problem(answer: str, passages: Sequence[str], aliases: Aliases,
                   where: str = "passages", quoted: Sequence[str] | None = None) -> str | None:
    """Why ``answer`` is not grounded in ``passages`` (None: it is): it says nothing, or
    the names, numbers and content words none of them holds (``where`` names them). With
    ``quoted`` (the evidence sentences) its names must also stand in those sentences."""
    if vacuous(answer):
        return "it says nothing (no name, number or content word)"
    problem = ungrounded(answer, passages, aliases).problem(min_share=1.0)
    if problem:
        return f"not in its {where}: {problem}"
    # an answer is a phrase, not a sentence: its opening capital marks a name ("Getting
    # Started"), so it is read after a function word
    as_phrase = f"the {answer}"
    unquoted = ungrounded(as_phrase, quoted, aliases).names \
        if quoted is not None and normalized(answer) not in YES_NO else ()
    if unquoted:
        return (f"name(s) {', '.join(repr(n) for n in unquoted)} not in its evidence "
                "sentences (the evidence must show the thing the answer names)")
    return None


@validator("grounding.answer")
def check_answer(case: Case, context: Context) -> Iterator[Finding]:
    """A logical query's answer occurs in its passages (a small model's: in its evidence
    sentences), its entities in those sentences or their passages (title and text), and
    each evidence sentence in its passage."""
    items = case.meta.get("evidence")
    if not isinstance(items, list) or not items:
        return
    sentences = [str(item.get("text", "")) for item in items if isinstance(item, dict)]
    quoted = [context.docs.get(str(item.get("doc_id", ""))) for item in items
              if isinstance(item, dict)]
    for item in items:
        doc = context.docs.get(str(item.get("doc_id", ""))) if isinstance(item, dict) else None
        sentence = str(item.get("text", "")) if isinstance(item, dict) else ""
        if doc is not None and normalized(sentence) not in normalized(f"{doc.title} {doc.text}"):
            yield Finding("grounding.answer", "evidence", f"evidence {sentence[:60]!r} is not "
                          f"in passage {doc.doc_id}", "quote evidence word for word")
    docs = {doc.doc_id: doc for doc in (*quoted, *case.positives) if doc is not None}
    answer = case.meta.get("answer")
    if isinstance(answer, str) and answer.strip():
        anywhere = own_wording(case, context.profile) and bool(docs)
        where = "passages" if anywhere else "evidence sentences"
        problem = answer_problem(answer, texts(docs.values()) if anywhere else sentences,
                                 context.aliases, where, sentences if anywhere else None)
        if problem:
            yield Finding("grounding.answer", "answer", f"the answer {answer!r}: {problem}",
                          f"answer with words of the {where}")
    missing = ungrounded(case.text, sentences, context.aliases).names
    if missing:  # a name its passages hold (title or text) is the evidence's context
        held = [evidence(text) for text in texts(docs.values())]
        missing = tuple(name for name in missing if not any(
            term_grounded(base, passage, context.aliases) or _abbreviated(base, passage, True)
            for passage in held for base in dict.fromkeys((name, without_possessive(name)))))
    if missing:  # the collection's topic ('Debian' of a Debian guide page): names only
        topics = evidence(topics_text(list(docs.values()), context.collection_topics,
                                      context.docs))
        missing = tuple(name for name in missing
                        if not term_grounded(without_possessive(name), topics, context.aliases))
    if missing:
        yield Finding("grounding.answer", "text", "entities of the query are not in its "
                      f"evidence sentences: {', '.join(repr(n) for n in missing)}",
                      "name only entities the evidence states")
