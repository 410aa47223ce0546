"""From validated parts to BEIR records and the three MultiConIR task files (paper section 3.3).

Ids: the positive of source ``S`` is ``S-pos``, its hard negatives ``S-hn{j}`` (j conditions
kept); queries are ``S-q{k}-inst`` and ``S-q{k}-desc``. Relevance of a document for q_k is the
number of q_k's conditions it satisfies, ``min(j, k)`` (the positive: k), so grades grow with the
conditions met.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.records import Doc, Qrel, Query
from irforge.generators.multicon.assembly import Edit, build_variants
from irforge.generators.multicon.sentences import Located

STYLES: dict[str, str] = {"instruction": "inst", "descriptive": "desc"}


@dataclass(frozen=True)
class SourceParts:
    """Everything validated for one source document; queries may miss some k or style."""

    doc: Doc
    domain: str
    strategy: str
    conditions: Sequence[Located]
    hard_negatives: Sequence[str]
    instruction: Mapping[int, Sequence[str]] = field(default_factory=dict)  # k -> phrases
    instruction_text: Mapping[int, str] = field(default_factory=dict)      # k -> query text
    descriptive: Mapping[int, str] = field(default_factory=dict)           # k -> query text
    adaptive: Mapping[int, Sequence[Mapping[str, Any]]] = field(default_factory=dict)
    padding: Sequence[Edit] = ()
    padded_to: int | None = None

    @property
    def n(self) -> int:
        return len(self.conditions)


def positive_id(source: str) -> str:
    return f"{source}-pos"


def negative_id(source: str, satisfied: int) -> str:
    return f"{source}-hn{satisfied}"


def variant_id(source: str, satisfied: int, n: int) -> str:
    return positive_id(source) if satisfied == n else negative_id(source, satisfied)


def query_id(source: str, k: int, style: str) -> str:
    return f"{source}-q{k}-{STYLES[style]}"


def naive_decomposition(phrases: Sequence[str]) -> list[dict[str, Any]]:
    """One sub-query per condition."""
    return [{"text": phrase, "conditions": [i]} for i, phrase in enumerate(phrases, start=1)]


def fixed_size_decomposition(phrases: Sequence[str], min_size: int = 2,
                             max_size: int = 3) -> list[dict[str, Any]]:
    """Consecutive groups of min_size..max_size conditions, as even as possible.

    Queries with at most ``max_size`` conditions stay whole, as in the stage-aware paper.
    """
    if not 1 <= min_size <= max_size:
        raise ValueError(f"need 1 <= min_size <= max_size, got {min_size}, {max_size}")
    n = len(phrases)
    groups = max(1, math.ceil(n / max_size))
    sizes = [n // groups + (1 if i < n % groups else 0) for i in range(groups)]
    out, start = [], 0
    for size in sizes:
        members = list(range(start + 1, start + size + 1))
        out.append({"text": "; ".join(phrases[start:start + size]), "conditions": members})
        start += size
    return out


def build_documents(parts: SourceParts) -> list[Doc]:
    """The positive and d_0..d_{N-1} of one source, with their satisfied counts in metadata."""
    spans = [c.span for c in parts.conditions]
    source = parts.doc.doc_id
    return [Doc(doc_id=variant_id(source, v.satisfied, parts.n), text=v.text,
                title=parts.doc.title,
                metadata={"source_doc": source, "domain": parts.domain, "n": parts.n,
                          "satisfied": v.satisfied,
                          "kind": "positive" if v.satisfied == parts.n else "hard_negative",
                          "padded_to": parts.padded_to})
            for v in build_variants(parts.doc.text, spans, parts.hard_negatives, parts.padding)]


def _phrases(parts: SourceParts, k: int) -> tuple[list[str], str]:
    if k in parts.instruction:
        return list(parts.instruction[k]), "instruction_phrases"
    return [c.span.text for c in parts.conditions[:k]], "condition_sentences"


def build_queries(parts: SourceParts, fixed_size: tuple[int, int] = (2, 3)) -> list[Query]:
    """Every validated q_k in both styles, with conditions and sub-query decompositions."""
    source, queries = parts.doc.doc_id, []
    for k in range(1, parts.n + 1):
        texts = {"instruction": parts.instruction_text.get(k),
                 "descriptive": parts.descriptive.get(k)}
        phrases, phrase_source = _phrases(parts, k)
        subqueries: dict[str, Any] = {
            "naive": naive_decomposition(phrases),
            "fixed_size": fixed_size_decomposition(phrases, *fixed_size),
        }
        if k in parts.adaptive:
            subqueries["adaptive"] = [dict(s) for s in parts.adaptive[k]]
        for style, text in texts.items():
            if text is None:
                continue
            other = "descriptive" if style == "instruction" else "instruction"
            queries.append(Query(query_id=query_id(source, k, style), text=text, metadata={
                "source_doc": source, "domain": parts.domain, "k": k, "n": parts.n,
                "style": style,
                "pair_query": query_id(source, k, other) if texts[other] is not None else None,
                "conditions": [c.span.text for c in parts.conditions[:k]],
                "condition_phrases": phrases, "phrase_source": phrase_source,
                "subqueries": subqueries,
                **({"source": dict(parts.doc.metadata["source"])}
                   if "source" in parts.doc.metadata else {}),
            }))
    return queries


def build_qrels(parts: SourceParts, queries: Sequence[Query]) -> list[Qrel]:
    """Graded qrels: d_j gets min(j, k) for q_k, the positive gets k (d_0 gets 0)."""
    source = parts.doc.doc_id
    return [Qrel(q.query_id, variant_id(source, j, parts.n), min(j, int(q.metadata["k"])))
            for q in queries for j in range(parts.n, -1, -1)]


def _candidates(parts: SourceParts) -> list[dict[str, Any]]:
    source = parts.doc.doc_id
    return [{"doc_id": variant_id(source, j, parts.n), "satisfied": j}
            for j in range(parts.n, -1, -1)]


def build_task_rows(parts: SourceParts, queries: Sequence[Query]) -> dict[str, list[dict]]:
    """Rows of task1 (d+ vs d_{k-1} per q_k), task2 (q_N over all) and task3 (format pairs)."""
    source, n = parts.doc.doc_id, parts.n
    rows: dict[str, list[dict]] = {"task1": [], "task2": [], "task3": []}
    for query in queries:
        k, style = int(query.metadata["k"]), str(query.metadata["style"])
        rows["task1"].append({
            "query_id": query.query_id, "source_doc": source, "k": k, "style": style,
            "positive": positive_id(source), "hard_negative": variant_id(source, k - 1, n),
            "satisfied": {"positive": k, "hard_negative": k - 1}})
        if k == n:
            rows["task2"].append({"query_id": query.query_id, "source_doc": source, "k": n,
                                  "style": style, "candidates": _candidates(parts)})
    if n in parts.instruction_text and n in parts.descriptive:
        rows["task3"].append({
            "source_doc": source, "k": n,
            "instruction_query": query_id(source, n, "instruction"),
            "descriptive_query": query_id(source, n, "descriptive"),
            "candidates": _candidates(parts)})
    return rows


def source_row(parts: SourceParts) -> dict[str, Any]:
    """The condition list of one source with spans and hard negatives (``sources.jsonl``)."""
    source = parts.doc.doc_id
    return {
        "source_doc": source, "domain": parts.domain, "n": parts.n, "strategy": parts.strategy,
        "padded_to": parts.padded_to, "positive": positive_id(source),
        "hard_negatives": {str(j): negative_id(source, j) for j in range(parts.n)},
        "conditions": [{"index": i, "text": c.span.text, "start": c.span.start,
                        "end": c.span.end, "match": c.match, "score": c.score,
                        "hard_negative": negative}
                       for i, (c, negative) in enumerate(
                           zip(parts.conditions, parts.hard_negatives, strict=True), start=1)],
    }
