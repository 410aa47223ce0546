"""Passage selection and distractors (ComLQ, Passage Selection and Expert Verification).

Queries are generated from one to three passages that share a title (or another grouping
key from the documents' metadata). Distractors are passages whose key is disjoint from every
sampled passage, so they cannot be relevant to a generated query.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.corpus.sentences import sentence_spans
from irforge.generators.logical.types import QueryType


class SelectionError(IrforgeError, ValueError):
    """The corpus cannot provide the passages a request needs."""


@dataclass(frozen=True)
class QueryPlan:
    """One query to generate: its id, type, and the passages it must be grounded in."""

    query_id: str
    qtype: str
    group: str
    doc_ids: tuple[str, ...]


def split_passages(docs: Sequence[Doc], sentences: int) -> list[Doc]:
    """Cut each document into passages of ``sentences`` sentences that keep its title.

    ComLQ segments titled articles into passages and draws multi-passage queries from one
    article; this gives whole-document corpora the same shape. Sentences are the corpus's
    (:func:`irforge.corpus.sentences.sentence_spans`), so no passage ends inside "St. Brigid's";
    a passage is its document's text from its first sentence to its last. Ids are
    ``<doc_id>-p<k>``; ``sentences`` 0 returns the documents unchanged.
    """
    if sentences < 0:
        raise SelectionError(f"sentences per passage must be >= 0, got {sentences}")
    if sentences == 0:
        return list(docs)
    out = []
    for doc in docs:
        spans = sentence_spans(doc.text)  # abbreviations ("St.", "e.g.") end no sentence
        for number, start in enumerate(range(0, len(spans), sentences)):
            window = spans[start:start + sentences]
            out.append(Doc(f"{doc.doc_id}-p{number}", doc.text[window[0][0]:window[-1][1]],
                           doc.title, {**dict(doc.metadata), "parent": doc.doc_id}))
    return out


def group_key(doc: Doc, key: str = "title") -> str:
    """The value passages are grouped by; a passage without one forms a group of its own."""
    value = doc.title if key == "title" else doc.metadata.get(key, "")
    value = str(value).strip() if value is not None else ""
    return value or f"doc:{doc.doc_id}"


def group_docs(docs: Sequence[Doc], key: str = "title") -> dict[str, list[Doc]]:
    """Passages by group, in corpus order."""
    groups: dict[str, list[Doc]] = {}
    for doc in docs:
        groups.setdefault(group_key(doc, key), []).append(doc)
    return groups


def plan_queries(docs: Sequence[Doc], types: Sequence[QueryType], per_type: int, seed: int = 0,
                 key: str = "title", max_passages: int = 3) -> list[QueryPlan]:
    """Choose passages for ``per_type`` queries of each type, reproducibly from ``seed``.

    The passage count is drawn from 1..min(max_passages, edges of the type, largest group),
    so every passage can carry at least one triple of evidence. Each type has its own random
    stream, so adding a type does not change the plans of the others; a (group, passages)
    pair is reused for a type only once every other choice is exhausted.
    """
    if per_type < 1:
        raise SelectionError(f"per-type must be at least 1, got {per_type}")
    if not 1 <= max_passages <= 3:
        raise SelectionError(f"max passages must be 1, 2 or 3, got {max_passages}")
    groups = group_docs(docs, key)
    if not groups:
        raise SelectionError("the corpus has no passages to generate queries from")
    largest = max(len(members) for members in groups.values())
    plans = []
    for qtype in types:
        rng = random.Random(f"{seed}:{qtype.name}")
        used: set[tuple[str, ...]] = set()
        for index in range(per_type):
            count = rng.randint(1, min(max_passages, qtype.max_passages, largest))
            group, chosen = _choose(groups, count, used, rng)
            used.add(tuple(doc.doc_id for doc in chosen))
            plans.append(QueryPlan(f"lq-{qtype.name}-{index:04d}", qtype.name, group,
                                   tuple(doc.doc_id for doc in chosen)))
    return plans


def _choose(groups: dict[str, list[Doc]], count: int, used: set[tuple[str, ...]],
            rng: random.Random) -> tuple[str, list[Doc]]:
    eligible = sorted(name for name, members in groups.items() if len(members) >= count)
    picks = []
    for name in rng.sample(eligible, len(eligible)):
        members = groups[name]
        positions = sorted(rng.sample(range(len(members)), count))
        chosen = [members[i] for i in positions]
        if tuple(doc.doc_id for doc in chosen) not in used:
            return name, chosen
        picks.append((name, chosen))
    return picks[0]


def select_distractors(docs: Sequence[Doc], sampled_keys: set[str], key: str = "title",
                       count: int | None = None, seed: int = 0) -> list[Doc]:
    """Passages whose group key is disjoint from ``sampled_keys``; ``count`` None keeps all."""
    pool = [doc for doc in docs if group_key(doc, key) not in sampled_keys]
    if count is None or count >= len(pool):
        return pool
    if count < 0:
        raise SelectionError(f"distractor count must be >= 0, got {count}")
    keep = set(random.Random(f"{seed}:distractors").sample(range(len(pool)), count))
    return [doc for index, doc in enumerate(pool) if index in keep]
