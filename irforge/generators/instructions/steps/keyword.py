"""Step 1 of InfoSearch (A.1): a keyword condition picked from the document, offered as an
enum of the document's own terms (verbatim by construction on constraining backends).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from pydantic import Field, create_model

from irforge.core.digest import short_digest
from irforge.generators.instructions.steps.common import (
    MAX_KEYWORD_WORDS,
    STEP,
    _Output,
)
from irforge.generators.instructions.text import (
    STOPWORDS,
    mentions,
    normalize,
    words,
)
from irforge.generators.instructions.units import (
    Group,
    Member,
)
from irforge.prompts.context import doc_context
from irforge.steps import Step

# -- step 1: keyword condition (A.1) -----------------------------------------------------------

class KeywordCondition(_Output):
    """A keyword condition for one query-document pair (A.1, table 3)."""

    keyword: str = Field(min_length=1, max_length=60,
                         description="a term from the document that refines the query")


MAX_KEYWORD_CHOICES = 40


def keyword_choices(query: str, document: str, others: Sequence[str] = ()) -> tuple[str, ...]:
    """Terms of the document that pass :func:`check_keyword`: content words and two-word
    names, in document order, at most :data:`MAX_KEYWORD_CHOICES`."""
    tokens = re.findall(r"[^\W_]+(?:['’-][^\W_]+)*", document)
    candidates: list[str] = []
    for index, token in enumerate(tokens):
        candidates.append(token)
        if index + 1 < len(tokens):
            candidates.append(f"{token} {tokens[index + 1]}")
    seen: set[str] = set()
    out: list[str] = []
    for term in candidates:
        key = normalize(term)
        if key in seen or len(key) < 3 or any(w in STOPWORDS for w in words(term)):
            continue
        seen.add(key)
        if not check_keyword(term, query, document, others) and not mentions(query, term):
            out.append(term)
    return tuple(out[:MAX_KEYWORD_CHOICES])


@lru_cache(maxsize=256)
def keyword_model(choices: tuple[str, ...]) -> type[KeywordCondition]:
    """KeywordCondition whose schema enumerates the terms the document allows."""
    if not choices:
        return KeywordCondition
    return create_model(  # type: ignore[call-overload, no-any-return]
        f"KeywordCondition{len(choices)}x{short_digest(choices)}",
        __base__=KeywordCondition,
        keyword=(str, Field(min_length=1, max_length=60,
                            json_schema_extra={"enum": list(choices)})))


def clean_keyword(keyword: str) -> str:
    """The keyword without surrounding quotes, brackets, labels or punctuation."""
    text = keyword.strip()
    text = re.sub(r"^(?:condition|keyword)\s*:\s*", "", text, flags=re.IGNORECASE)
    return text.strip(" \t\n\"'“”‘’`[](){}<>.,;:!?")


def check_keyword(keyword: str, query: str, document: str,
                  other_documents: Sequence[str] = ()) -> list[str]:
    """A keyword must be a content term found in its document and in no other positive."""
    term = clean_keyword(keyword)
    tokens = words(term)
    if not tokens:
        return ["keyword is empty"]
    reasons = []
    if len(tokens) > MAX_KEYWORD_WORDS:
        reasons.append(f"keyword has {len(tokens)} words (at most {MAX_KEYWORD_WORDS})")
    if all(token in STOPWORDS for token in tokens):
        reasons.append(f"keyword {term!r} is a stop-word")
    if normalize(term) == normalize(query).rstrip("?.!"):
        reasons.append("keyword repeats the whole query")
    if not mentions(document, term):
        reasons.append(f"keyword {term!r} does not occur in the document")
    shared = sum(mentions(other, term) for other in other_documents)
    if shared:
        reasons.append(f"keyword {term!r} also occurs in {shared} other positive document(s) "
                       "of the query, so it cannot single out one document")
    return reasons


@dataclass(frozen=True)
class KeywordItem:
    """Step 1 input: one positive of a group whose keyword is still to be extracted."""

    group: Group
    member: Member

    @property
    def key(self) -> str:
        return f"{self.group.query_id}/{self.member.doc.doc_id}"

    @property
    def others(self) -> list[str]:
        return [m.doc.text for m in self.group.members if m.doc.doc_id != self.member.doc.doc_id]


def keyword_step() -> Step[KeywordItem, str]:
    """Step 1: one keyword of the document that narrows the query to it."""

    def valid(item: KeywordItem, value: KeywordCondition) -> list[str]:
        return check_keyword(value.keyword, item.group.query, item.member.doc.text, item.others)

    return Step(
        name=f"{STEP}.keyword", template="instructions.keyword",
        output_model=lambda item: keyword_model(keyword_choices(
            item.group.query, item.member.doc.text, item.others)),
        variables=lambda item: {"query": item.group.query, "document": item.member.doc.text,
                                "context": doc_context(item.member.doc)},
        item_id=lambda item: item.key, validators=(valid,),
        accept=lambda item, value: clean_keyword(value.keyword),
        metadata=lambda item: {"dimension": item.group.dimension,
                               "source_doc": item.member.doc.doc_id})


