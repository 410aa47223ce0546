"""Input query-document pairs: read them from JSONL or a BEIR folder and group them per query.

A pairs file has one positive pair per line::

    {"query_id": "q1", "query": "...", "doc_id": "d1", "text": "...", "title": "",
     "dimension": "audience", "condition": "expert"}

``condition`` may be left out for an extracted dimension (Keyword: the LLM extracts it) and for a
dimension with a rewrite rule: it then defaults to the value documents are rewritten from (for
example ``paragraph`` for Length) when the document's text shows that value's bounds and markers,
and a document that does not is a failure; a rule without ``from`` (Audience, Source) makes the
document a seed, rewritten into every value. ``query_form`` and ``stance`` (optional) name the core
query's declared form (``claim-refuted``, ``long``...): its instructed queries are grounded by
that form's rule; a BEIR folder's queries give theirs from their metadata. A core query
keeps one document per condition value; any further document with an already-taken value
becomes a failure, not a silent duplicate.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc, Failure, Query
from irforge.generators.instructions.dimensions import Dimension
from irforge.generators.instructions.steps.rewrite import check_document
from irforge.generators.instructions.units import SEED, Group, Member
from irforge.prompts.forms import core_form_metadata, query_forms

PAIRS_STEP = "instructions.pairs"
PENDING = ""  # condition of a member whose keyword is still to be extracted
CONDITIONS_KEY = "conditions"  # doc metadata: {"audience": "expert", ...} in --corpus mode


@dataclass(frozen=True)
class Pair:
    """One positive query-document pair in one dimension."""

    query_id: str
    query: str
    doc: Doc
    dimension: str
    condition: str | None = None
    #: the core query's own form (irforge.prompts.forms.core_form_metadata)
    core_form: Mapping[str, str] = field(default_factory=dict)


def _core_form(path: Path, number: int, row: Mapping) -> dict[str, str]:
    """The core query's declared form of a pairs row (optional ``query_form``, and
    ``stance`` for a claim), checked against irforge/prompts/forms.yaml."""
    form = row.get("query_form")
    if form is not None and str(form) not in query_forms():
        raise FormatError(Problem(path, f"unknown query form {form!r}", line=number,
                                  field="query_form",
                                  hint=f"use one of {', '.join(query_forms())} or leave it out"))
    stance = row.get("stance")
    if stance is not None and str(stance) not in ("supported", "refuted"):
        raise FormatError(Problem(path, f"unknown stance {stance!r}", line=number,
                                  field="stance", hint="use supported or refuted"))
    return core_form_metadata(row)


def _field(path: Path, number: int, row: Mapping, key: str, required: bool = True) -> str:
    value = row.get(key)
    if value is None and not required:
        return ""
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        raise FormatError(Problem(path, "missing or not a non-empty string", line=number,
                                  field=key, hint=f'add "{key}" to every pair'))
    return str(value)


def read_pairs(path: Path, dimensions: Mapping[str, Dimension],
               default_dimension: str | None = None) -> list[Pair]:
    """Read and check a pairs JSONL file; errors name the line and the field to fix."""
    path = Path(path)
    pairs = []
    for number, row in iter_jsonl(path):
        dimension = str(row.get("dimension") or default_dimension or "")
        if dimension not in dimensions:
            raise FormatError(Problem(path, f"unknown dimension {dimension!r}", line=number,
                                      field="dimension",
                                      hint=f"use one of {', '.join(dimensions)} or pass "
                                           "--dimension / add it with --dimensions FILE"))
        doc = Doc(doc_id=_field(path, number, row, "doc_id"),
                  text=_field(path, number, row, "text"),
                  title=_field(path, number, row, "title", required=False))
        condition = row.get("condition")
        spec = dimensions[dimension]
        if condition is not None and not spec.extracted and str(condition) not in spec.values:
            raise FormatError(Problem(path, f"unknown condition {condition!r} for {dimension}",
                                      line=number, field="condition",
                                      hint=f"use one of {', '.join(spec.values)}"))
        pairs.append(Pair(query_id=_field(path, number, row, "query_id"),
                          query=_field(path, number, row, "query"), doc=doc,
                          dimension=dimension,
                          condition=None if condition is None else str(condition),
                          core_form=_core_form(path, number, row)))
    if not pairs:
        raise FormatError(Problem(path, "no pairs found", hint="one JSON pair per line"))
    return pairs


#: on a graded scale (a top grade of 2 or more), a passage answers its query at this grade
ANSWERS_GRADE = 2
#: query metadata naming the passage a query was written from (it answers the query)
_SOURCE_KEYS = ("seed_doc_id", "source_doc", "positive_doc_id")


def _source(query: Query) -> set[str]:
    return {str(query.metadata[key]) for key in _SOURCE_KEYS if query.metadata.get(key)}


def pairs_from_beir(root: Path, dimension: str, split: str = "test",
                    skipped: list[Failure] | None = None) -> tuple[list[Pair], list[Doc]]:
    """Positive pairs of a BEIR folder's qrels, plus its whole corpus (kept as distractors).

    A pair is a passage that answers the core query: with graded qrels (a top grade of
    ANSWERS_GRADE or more, as ``irforge label`` writes), a passage graded at least
    ANSWERS_GRADE or the query's own source passage; a passage only related to it (grade 1)
    is not paired, and each one left out joins ``skipped`` with the reason. A document's
    condition comes from ``metadata["conditions"][dimension]`` when present.
    """
    bench = Benchmark(Path(root))
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    queries = {query.query_id: query for query in bench.queries()}
    qrels = list(bench.qrels(split))
    graded = max((qrel.relevance for qrel in qrels), default=0) >= ANSWERS_GRADE
    pairs = []
    for qrel in qrels:
        if qrel.relevance <= 0 or qrel.query_id not in queries or qrel.doc_id not in docs:
            continue
        query = queries[qrel.query_id]
        if graded and qrel.relevance < ANSWERS_GRADE and qrel.doc_id not in _source(query):
            if skipped is not None:
                skipped.append(Failure(
                    step=PAIRS_STEP, item_id=f"{qrel.query_id}/{qrel.doc_id}",
                    reason=f"grade {qrel.relevance} of {split}: the passage is related to the "
                           f"core query but does not answer it (pairs need grade "
                           f">= {ANSWERS_GRADE} or the query's source passage)",
                    metadata={"dimension": dimension}))
            continue
        doc = docs[qrel.doc_id]
        conditions = doc.metadata.get(CONDITIONS_KEY) or {}
        condition = conditions.get(dimension) if isinstance(conditions, Mapping) else None
        pairs.append(Pair(qrel.query_id, query.text, doc, dimension,
                          None if condition is None else str(condition),
                          core_form_metadata(query.metadata)))
    # a query's own source passage first: it is the one kept as seed or for a condition value
    # when several positives compete (a stable sort keeps the qrels order otherwise)
    pairs.sort(key=lambda pair: pair.doc.doc_id not in _source(queries[pair.query_id]))
    return pairs, list(docs.values())


def _default_condition(pair: Pair, spec: Dimension) -> str | None:
    if pair.condition is not None:
        return pair.condition
    if spec.extracted:
        return PENDING
    if spec.rewrite is not None:
        return SEED if spec.rewrite.source is None else spec.rewrite.source
    return None


def _unshown(pair: Pair, spec: Dimension, condition: str) -> str | None:
    """Why a document whose condition was defaulted (not given) does not show it, or None."""
    if pair.condition is not None or condition in (PENDING, SEED):
        return None
    reasons = check_document(pair.doc.text, spec.value(condition))
    if not reasons:
        return None
    return (f"{pair.dimension}: the document was to stand as {condition!r} (rewrite.from) but "
            f"its text does not show it: {'; '.join(reasons)}; give its condition in the pairs "
            "file, or drop rewrite.from so it is only rewritten")


def _refusal(pair: Pair, spec: Dimension, condition: str | None, group: Group) -> str | None:
    """Why ``pair`` cannot join ``group`` under ``condition``, or None when it can."""
    if condition is None:
        return f"no condition given for {pair.dimension} (which has no rewrite rule)"
    unshown = _unshown(pair, spec, condition)
    if unshown is not None:
        return unshown
    taken = group.member(condition) if condition else None
    if taken is None:
        return None
    if condition == SEED:
        return (f"query {pair.query_id} already has its seed document {taken.doc.doc_id} for "
                f"{pair.dimension}; one given document per query is rewritten into every value")
    return (f"condition {condition!r} already taken by {taken.doc.doc_id} for query "
            f"{pair.query_id}; keep one document per condition value")


def group_pairs(pairs: Iterable[Pair], dimensions: Mapping[str, Dimension]
                ) -> tuple[list[Group], list[Failure]]:
    """Groups per (query, dimension) with one document per condition value; the rest fail."""
    groups: dict[tuple[str, str], Group] = {}
    failures = []
    for pair in pairs:
        spec = dimensions[pair.dimension]
        condition = _default_condition(pair, spec)
        key = (pair.query_id, pair.dimension)
        group = groups.get(key) or Group(pair.query_id, pair.query, pair.dimension, (),
                                         core_form=pair.core_form)
        reason = _refusal(pair, spec, condition, group)
        if reason is not None or condition is None:
            failures.append(Failure(step=PAIRS_STEP,
                                    item_id=f"{pair.query_id}/{pair.doc.doc_id}",
                                    reason=str(reason), metadata={"dimension": pair.dimension}))
            continue
        groups[key] = group.with_members((*group.members, Member(pair.doc, condition)))
    return list(groups.values()), failures
