"""``irforge check``'s query audit: duplicate and copied queries, with the generation gates.

The checks are the step runner's own gates (irforge/steps/gates.py), so a folder that passes
``irforge check`` holds no query a generator would have rejected as a duplicate or a copy.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from irforge.core.bench import Benchmark
from irforge.core.errors import Problem
from irforge.core.records import Doc, Query
from irforge.steps.gates import QueryGates, copy_reason, title_reason

SOURCE_KEYS = ("source_doc", "gold_doc_id", "doc_id")


def source_of(query: Query, docs: Mapping[str, Doc]) -> Doc | None:
    """The passage a query was written from, when its metadata names one in the corpus."""
    for key in SOURCE_KEYS:
        doc_id = query.metadata.get(key)
        if isinstance(doc_id, str) and doc_id in docs:
            return docs[doc_id]
    return None


def compared_text(query: Query) -> str:
    """The text that makes a query distinct: with an instruction, the instructed form
    (InfoSearch units share their core query text and differ by instruction)."""
    meta = query.metadata
    instructed = meta.get("instructed")
    if isinstance(instructed, str) and instructed.strip():
        return instructed
    instruction = meta.get("instruction")
    if isinstance(instruction, str) and instruction.strip():
        return f"{query.text} {instruction}"
    return query.text


def check_queries(bench: Benchmark, queries: Sequence[Query], docs: Mapping[str, Doc],
                  add: Callable[[Problem], None]) -> int:
    """Report duplicate (exact or near) queries and queries copying their source passage."""
    gates = QueryGates(language=None)
    found = 0
    for number, query in enumerate(queries, start=1):
        reasons = []
        text = compared_text(query)
        duplicate = gates.duplicate_reason(text)
        if duplicate:
            reasons.append(duplicate)
        source = source_of(query, docs)
        if source is not None:
            reasons += [r for r in (title_reason(query.text, source.title),
                                    copy_reason(query.text, source.title, source.text)) if r]
        for reason in reasons:
            found += 1
            add(Problem(bench.queries_path, f"query {query.query_id!r}: {reason}", line=number,
                        field="text", hint="drop or rewrite the query (duplicates and copies "
                        "measure nothing); generators reject these with the same gates"))
        gates.admit([text], f"query {query.query_id!r}")
    return found
