"""``irforge check``'s query audit: every registered validator plus the duplicate gates.

Duplicates (:mod:`irforge.check.duplicates`), copies and titles
(:mod:`irforge.check.query_rules`) are the rules the step runner's gates apply; the rest is
the validator registry (irforge/check/suite.py) that generation runs through the same
gates, so a folder that passes ``irforge check`` holds no query a generator would reject.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from irforge.check.base import source_of
from irforge.check.duplicates import DuplicateIndex
from irforge.check.query_rules import copy_reason, title_reason
from irforge.core.bench import Benchmark
from irforge.core.errors import Problem
from irforge.core.records import Doc, Query


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


@dataclass
class QueryAudit:
    """What the query audit found: invalid query ids, findings by validator, target ranks."""

    invalid: set[str] = field(default_factory=set)
    by_validator: Counter[str] = field(default_factory=Counter)
    ranks: dict[str, int | None] = field(default_factory=dict)
    target_k: int | None = None


def _gate_name(reason: str) -> str:
    head = reason.split(":", 1)[0].removeprefix("gate ").strip()
    return {"duplicate": "duplicate", "near-duplicate": "duplicate"}.get(head, head)


def check_queries(bench: Benchmark, queries: Sequence[Query], docs: Mapping[str, Doc],
                  add: Callable[[Problem], None], positives: Mapping[str, Sequence[str]]
                  | None = None, context: object | None = None) -> QueryAudit:
    """Report duplicate, copied and invalid queries (every registered validator)."""
    from irforge.check.suite import Context, make_case, validate

    ctx = context if isinstance(context, Context) else Context(docs=docs)
    audit = QueryAudit()
    index = DuplicateIndex()
    for number, query in enumerate(queries, start=1):
        def report(validator: str, field_name: str, detail: str, fix: str,
                   query: Query = query, number: int = number) -> None:
            audit.invalid.add(query.query_id)
            audit.by_validator[validator] += 1
            add(Problem(bench.queries_path, f"query {query.query_id!r}: [{validator}] {detail}",
                        line=number, field=field_name, hint=fix, validator=validator,
                        query_id=query.query_id))

        text = compared_text(query)
        reasons = [r for r in (index.reason(text),) if r]
        relevant = (positives or {}).get(query.query_id, ()) or _declared_positives(query)
        # the passage it was written from; else (hand-written, imported) its first positive
        source = source_of(query, docs) or next((docs[d] for d in relevant if d in docs), None)
        if source is not None:
            reasons += [r for r in (title_reason(query.text, source.title),
                                    copy_reason(query.text, source.title, source.text)) if r]
        for reason in reasons:
            report(_gate_name(reason), "text", reason,
                   "drop or rewrite the query (duplicates and copies measure nothing); "
                   "generators reject these with the same gates")
        index.add(text, f"query {query.query_id!r}")
        if positives is not None and positives and not relevant:
            report("qrels", "qrels", "the query has no relevant passage in any qrels split",
                   "label its relevant passage or drop the query")
        case = make_case(query, docs, relevant)
        for finding in validate(case, ctx):
            report(finding.validator, finding.field, finding.detail, finding.fix)
    audit.ranks = dict(ctx.ranks)
    if docs:
        audit.target_k = ctx.targets.depth
    return audit


def _declared_positives(query: Query) -> list[str]:
    """Positives a query's metadata names (intents write no qrels before labelling)."""
    meta = query.metadata
    one = meta.get("positive_doc_id")
    many = meta.get("positive_doc_ids")
    return [one] if isinstance(one, str) else [d for d in many or () if isinstance(d, str)]


def positives_by_query(splits: Mapping[str, Mapping[str, Mapping[str, int]]]
                       ) -> dict[str, list[str]]:
    """Each query's relevant passages: those with its highest grade (> 0) in any split."""
    best: dict[str, int] = {}
    for qrels in splits.values():
        for query_id, grades in qrels.items():
            for grade in grades.values():
                best[query_id] = max(best.get(query_id, 0), grade)
    out: dict[str, list[str]] = {}
    for qrels in splits.values():
        for query_id, grades in qrels.items():
            for doc_id, grade in grades.items():
                if grade > 0 and grade == best[query_id] and doc_id not in out.get(query_id, []):
                    out.setdefault(query_id, []).append(doc_id)
    return out
