"""Control items for LLM judges: pairs whose right answer is known, mixed in with real ones.

A judge sees a control exactly as it sees a real item (same prompt; the order is shuffled and
ids are opaque hashes), so its answers on controls measure how well it labels real items:

- ``positive``: a query with its verified source passage (the passage it was written from,
  or a hand-written query's judged document); expected relevant.
- ``other-document``: the query with a passage from another document of another category
  (categories from query metadata; where none are known, the passage of another document that
  shares the fewest words with the query); expected not relevant.
- ``near-miss``: the query with an on-topic passage that does not answer it: another
  passage of the source's document, else a BM25 neighbour from another document
  (``near_miss.py`` says how "does not answer" is decided); expected not relevant. A judge
  that calls every on-topic passage relevant fails these.

Controls never enter qrels: callers keep them apart and score them with
:func:`irforge.validators.control_stats.step_figures`.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from irforge.core.records import Doc, Query
from irforge.core.sources import source_doc_ids
from irforge.generators.near_miss import near_miss
from irforge.generators.passage_text import content_words, document_of
from irforge.generators.passage_text import has_answer as has_answer  # re-exported

POSITIVE, OTHER_DOCUMENT, NEAR_MISS = "positive", "other-document", "near-miss"
KINDS = (POSITIVE, OTHER_DOCUMENT, NEAR_MISS)
NEAR_MISS_DEPTH = 20  # BM25 passages looked at for a near-miss


@dataclass(frozen=True)
class ControlSource:
    """A query whose relevant passage is known: the material controls are made from."""

    query_id: str
    query: str
    doc_id: str
    intent: str | None = None
    category: str | None = None
    answer: str | None = None


@dataclass(frozen=True)
class Control:
    """One control pair: an opaque id, the query, the passage and the answer expected."""

    control_id: str
    query_id: str
    query: str
    doc_id: str
    kind: str
    expected: int  # 1 relevant, 0 not relevant
    intent: str | None = None
    passage: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def control_id(seed: int, query_id: str, doc_id: str, kind: str) -> str:
    """An opaque id that says nothing of the kind (a hash)."""
    digest = hashlib.sha1(f"{seed}\0{query_id}\0{doc_id}\0{kind}".encode()).hexdigest()
    return f"i{digest[:12]}"


def sources_from_queries(queries: Sequence[Query], docs: Mapping[str, Doc]
                         ) -> list[ControlSource]:
    """Queries whose metadata names a real (not generated) corpus passage they came from."""
    out = []
    for query in queries:
        meta = query.metadata or {}
        doc_id = next((d for d in source_doc_ids(meta) if d in docs
                       and not (docs[d].metadata or {}).get("generated")), None)
        if doc_id is None:
            continue
        answer = meta.get("answer")
        out.append(ControlSource(query.query_id, query.text, doc_id, meta.get("intent"),
                                 meta.get("category"), answer if isinstance(answer, str)
                                 and answer.strip() else None))
    return out


Ranker = Callable[[str, Sequence[Doc]], list[str]]


def bm25_ranker(query: str, docs: Sequence[Doc]) -> list[str]:
    """Doc ids by BM25 score for ``query``, best first (needs irforge's ``eval`` extra)."""
    return indexed_bm25(docs)(query, docs)


def indexed_bm25(pool: Sequence[Doc]) -> Ranker:
    """A BM25 ranker over ``pool`` indexed once (on first use), for many queries."""
    index: list[Any] = []

    def rank(query: str, docs: Sequence[Doc]) -> list[str]:
        if not index:
            from irforge.retrievers.bm25 import BM25Retriever

            retriever = BM25Retriever()
            retriever.index(list(pool))
            index.append(retriever)
        run = index[0].search([Query("q", query)], min(NEAR_MISS_DEPTH, len(pool)))
        return [doc_id for doc_id, _ in sorted(run.scores["q"].items(),
                                               key=lambda kv: -kv[1])]

    return rank


def _other_document(source: ControlSource, pool: Sequence[Doc], categories: Mapping[str, str],
                    rng: random.Random) -> Doc | None:
    """A passage of another document and another category, else the least related one."""
    home = categories.get(source.doc_id)
    by_id = {doc.doc_id: doc for doc in pool}
    own = document_of(by_id[source.doc_id]) if source.doc_id in by_id else source.doc_id
    others = [doc for doc in pool if doc.doc_id != source.doc_id and document_of(doc) != own]
    if source.category is not None or home is not None:
        mine = source.category or home
        known = [doc for doc in others if categories.get(doc.doc_id) not in (None, mine)]
        if known:
            return rng.choice(known)
    if not others:
        return None
    words = content_words(source.query)
    return min(others, key=lambda doc: (len(words & content_words(doc.text)), doc.doc_id))


def make_controls(sources: Sequence[ControlSource], pool: Sequence[Doc], seed: int = 0,
                  limit: int = 50, ranker: Ranker | None = None) -> list[Control]:
    """Per source (up to ``limit`` sources, seeded): a positive, an other-document negative
    and a near-miss negative (``near_miss.py``) where the pool has one."""
    rng = random.Random(seed)
    chosen = list(sources)
    rng.shuffle(chosen)
    chosen = chosen[:limit]
    categories = {s.doc_id: s.category for s in sources if s.category is not None}
    rank = ranker or indexed_bm25(pool)
    by_id = {doc.doc_id: doc for doc in pool}
    controls: list[Control] = []
    for source in chosen:
        positive = by_id.get(source.doc_id)
        other = _other_document(source, pool, categories, rng)
        if positive is None or other is None:
            continue  # a one-document pool has no negative: no controls from this source
        found = near_miss(source, pool, rank)
        pairs = [(positive, POSITIVE, 1), (other, OTHER_DOCUMENT, 0)]
        if found is not None and found[0].doc_id != other.doc_id:
            pairs.append((found[0], NEAR_MISS, 0))
        for doc, which, expected in pairs:
            controls.append(Control(control_id(seed, source.query_id, doc.doc_id, which),
                                    source.query_id, source.query, doc.doc_id, which, expected,
                                    source.intent, doc.text))
    return controls


def mix(real: int, controls: int, seed: int = 0) -> list[tuple[bool, int]]:
    """A shuffled order of ``real`` items and ``controls`` controls: ``(is_control, index)``
    per position, so a judge cannot tell controls by where they come."""
    order = [(False, i) for i in range(real)] + [(True, i) for i in range(controls)]
    random.Random(seed).shuffle(order)
    return order


def relevant_from(top_label: int) -> int:
    """The lowest grade that counts as "relevant" on a 0..top scale: half the scale, rounded
    up (2 of 0-3, 1 of 0-2, 3 of 0-5)."""
    return max(1, -(-top_label // 2))
