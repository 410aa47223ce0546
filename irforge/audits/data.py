"""Audits of generated data: near-duplicate queries, query-source overlap, pool depth.

- Near duplicates: generators asked for many queries per passage often repeat themselves;
  the audit reports the pairs the generation gates' duplicate rule rejects (one rule).
- Lexical overlap: a query that copies its source passage's words favors BM25 over dense
  retrievers (a known bias of LLM-generated queries); report the share of query terms found
  in the source passage.
- Pool depth: unjudged documents in a run's top k count as non-relevant in nDCG; report the
  unjudged rate per run and the depth down to which every run is fully judged.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from irforge.check.duplicates import duplicate_pairs
from irforge.check.query_rules import normalized
from irforge.core.records import Doc, Query, Run
from irforge.core.sources import source_doc_ids
from irforge.core.stopwords import ENGLISH

_TOKEN = re.compile(r"\w+", re.UNICODE)
STOPWORDS = ENGLISH  # irforge/core/stopwords.py


def content_terms(text: str) -> list[str]:
    """Lower-cased word tokens without stopwords: the terms BM25 would match on."""
    return [token for token in _TOKEN.findall(text.lower()) if token not in STOPWORDS]


@dataclass(frozen=True)
class DuplicatePair:
    """Two queries the duplicate gate would not both keep; ``similarity`` is the ratio of
    their normalized texts (1.0: the same text)."""

    query_a: str
    query_b: str
    similarity: float


def near_duplicate_queries(queries: Sequence[Query]) -> list[DuplicatePair]:
    """Query pairs that the generation gates' one duplicate rule rejects
    (:func:`irforge.check.duplicates.same_query`: the same text or content words, or a tiny edit
    that changes no number), most similar first."""
    texts = [query.text for query in queries]
    pairs = []
    for first, second in duplicate_pairs(texts):
        ratio = difflib.SequenceMatcher(None, normalized(texts[first]),
                                        normalized(texts[second]), autojunk=False).ratio()
        pairs.append(DuplicatePair(queries[first].query_id, queries[second].query_id, ratio))
    return sorted(pairs, key=lambda pair: (-pair.similarity, pair.query_a, pair.query_b))


@dataclass(frozen=True)
class OverlapReport:
    """Share of each query's content terms that occur in its source passages."""

    per_query: dict[str, float]
    mean: float
    median: float
    share_above: float
    threshold: float


def source_overlap(queries: Sequence[Query], docs: Mapping[str, Doc],
                   sources: Mapping[str, Sequence[str]], threshold: float = 0.8) -> OverlapReport:
    """Term overlap of each query with the union of its source passages (title and text).

    ``sources`` maps a query id to its source doc ids (from the generator's metadata, or the
    positive qrels). Queries without a known source or without content terms are skipped.
    """
    per_query = {}
    for query in queries:
        doc_ids = [doc_id for doc_id in sources.get(query.query_id, ()) if doc_id in docs]
        terms = content_terms(query.text)
        if not doc_ids or not terms:
            continue
        source_terms = set()
        for doc_id in doc_ids:
            source_terms.update(content_terms(f"{docs[doc_id].title} {docs[doc_id].text}"))
        per_query[query.query_id] = sum(term in source_terms for term in terms) / len(terms)
    values = np.asarray(list(per_query.values()), dtype=float)
    if values.size == 0:
        return OverlapReport({}, float("nan"), float("nan"), float("nan"), threshold)
    return OverlapReport(per_query, float(values.mean()), float(np.median(values)),
                         float(np.mean(values >= threshold)), threshold)


def query_sources(queries: Iterable[Query], qrels: Mapping[str, Mapping[str, int]]
                  ) -> dict[str, list[str]]:
    """Source passages per query: every one its metadata names
    (:func:`irforge.core.sources.source_doc_ids`), else the positive qrels."""
    out = {}
    for query in queries:
        found = source_doc_ids(query.metadata)
        if not found:
            found = [doc for doc, rel in qrels.get(query.query_id, {}).items() if rel > 0]
        if found:
            out[query.query_id] = found
    return out


@dataclass(frozen=True)
class PoolReport:
    """Judged coverage of runs: unjudged rate at k per run and the fully judged depth."""

    k: int
    unjudged_at_k: dict[str, float]
    judged_depth: dict[str, int]
    pool_size_mean: float
    queries: int


def pool_audit(runs: Sequence[Run], qrels: Mapping[str, Mapping[str, int]], k: int = 10,
               max_depth: int = 1000) -> PoolReport:
    """Per run: the share of retrieved top-k documents without a judgment (over judged queries)
    and the depth down to which every answered judged query is fully judged (the minimum)."""
    if k < 1:
        raise ValueError(f"k must be positive, got {k}")
    unjudged, depth = {}, {}
    for run in runs:
        missing = total = 0
        depths = []
        for query_id, judged in qrels.items():
            ranked = [doc for doc, _ in run.ranked(query_id)][:max_depth]
            top = ranked[:k]
            missing += sum(doc not in judged for doc in top)
            total += len(top)
            if ranked:  # a query the run did not answer says nothing about pool depth
                depths.append(next((rank for rank, doc in enumerate(ranked)
                                    if doc not in judged), len(ranked)))
        unjudged[run.name] = missing / total if total else float("nan")
        depth[run.name] = int(min(depths)) if depths else 0
    sizes = [len(judged) for judged in qrels.values()]
    return PoolReport(k, unjudged, depth, float(np.mean(sizes)) if sizes else 0.0, len(qrels))
