"""Items to annotate: the LLM judgments of one task, grouped per (query, doc), with the text
each labeling config shows and a stable key that makes pushes idempotent."""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from irforge.annotation.errors import AnnotationError
from irforge.annotation.labeling import LabelingJob
from irforge.annotation.locate import Folder, locate
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Judgment, Query

MISSING = "(not available)"

# Short definitions of the 14 logical query types (ComLQ Section 3, after Ren & Leskovec),
# shown when a query's metadata carries a type but no definition.
LOGICAL_TYPES = {
    "1p": "one projection: entities related to an anchor by one relation",
    "2p": "two-hop chain: follow two relations from an anchor",
    "3p": "three-hop chain: follow three relations from an anchor",
    "2i": "intersection of two one-hop sets",
    "3i": "intersection of three one-hop sets",
    "pi": "a two-hop chain intersected with a one-hop set",
    "ip": "an intersection of two sets, then one more hop",
    "2u": "union of two one-hop sets",
    "up": "a union of two sets, then one more hop",
    "2in": "a one-hop set minus another one-hop set (negation)",
    "3in": "intersection of two one-hop sets minus a third (negation)",
    "inp": "a set minus another set, then one more hop",
    "pin": "a two-hop chain minus a one-hop set",
    "pni": "a one-hop set minus a two-hop chain",
}


@dataclass(frozen=True)
class AnnotationItem:
    """One (query, doc) to show people, with every LLM prompt's label and its strata."""

    key: str
    query_id: str
    doc_id: str
    llm: Mapping[str, float]
    models: Mapping[str, str]
    confidence: float | None
    strata: Mapping[str, str]
    data: Mapping[str, Any] = field(default_factory=dict)

    @property
    def ensemble(self) -> float:
        return float(np.mean(list(self.llm.values())))

    @property
    def spread(self) -> float:
        values = list(self.llm.values())
        return float(max(values) - min(values))


def item_key(task: str, query_id: str, doc_id: str, salt: str = "") -> str:
    """The stable id stored in the task data (``<task>:<12 hex digits>``); re-pushing an
    existing key is a no-op. Opaque, so a gold task (``salt`` = its case) has a key of the
    same shape as a real one even when it shows the same query and passage."""
    digest = hashlib.sha1(f"{query_id}\0{doc_id}\0{salt}".encode()).hexdigest()[:12]
    return f"{task}:{digest}"


@dataclass(frozen=True)
class _Context:
    query: Query | None
    doc: Doc | None
    meta: Mapping[str, Any]
    docs: Mapping[str, Doc]


def _meta(ctx: _Context, *keys: str) -> Any:
    for key in keys:
        for source in (ctx.meta, ctx.query.metadata if ctx.query else {}):
            if source.get(key) not in (None, "", []):
                return source[key]
    return None


def _line(value: Any) -> str:
    """One row for people: a triple as ``subject | relation | object``, a piece of evidence
    as ``[passage] text``, a list joined by `` | ``."""
    if isinstance(value, Mapping):
        if {"subject", "relation", "object"} <= set(value):
            return " | ".join(str(value[k]) for k in ("subject", "relation", "object"))
        if "text" in value:
            where = value.get("passage")
            return f"[{where}] {value['text']}" if where is not None else str(value["text"])
        return "; ".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, list | tuple):
        return " | ".join(map(str, value))
    return str(value)


def _lines(value: Any) -> str:
    """A field as plain text lines, never a Python repr: the logical generator's triple
    groups (``{"negation": [{"subject": ...}]}``) become one ``group: s | r | o`` per triple."""
    if isinstance(value, Mapping) and all(isinstance(v, list | tuple) for v in value.values()):
        return "\n".join(f"{group}: {_line(row)}" for group, rows in value.items()
                         for row in rows)
    if isinstance(value, list | tuple):
        return "\n".join(_line(v) for v in value)
    return _line(value) if isinstance(value, Mapping) else str(value)


def as_lines(value: Any) -> str:
    """What a task shows for a structured value (see :func:`_lines`)."""
    return _lines(value)


def _query(ctx: _Context) -> Any:
    return ctx.query.text if ctx.query else _meta(ctx, "query")


def _passage(ctx: _Context) -> Any:
    if ctx.doc is not None:
        return f"{ctx.doc.title}\n{ctx.doc.text}".strip()
    return _meta(ctx, "passage", "text")


def _context(ctx: _Context) -> Any:
    """The intent (its code explained: "FC: a user states a claim ...") and instruction."""
    from irforge.annotation.guidelines import intent_names, intent_rule

    parts = []
    intent = _meta(ctx, "intent")
    if intent:
        meaning = intent_names().get(str(intent))
        parts.append(f"intent {intent}: {meaning}" if meaning else f"intent: {intent}")
        if intent_rule(str(intent)):
            parts.append(f"how to grade: {intent_rule(str(intent))}")
    if _meta(ctx, "instruction"):
        parts.append(f"instruction: {_meta(ctx, 'instruction')}")
    return "\n".join(parts) or None


def _type_definition(ctx: _Context) -> Any:
    kind = _meta(ctx, "type", "logical_type", "query_type")
    definition = _meta(ctx, "type_definition") or LOGICAL_TYPES.get(str(kind))
    return f"{kind}: {definition}" if kind and definition else kind or definition


def _passages(ctx: _Context) -> Any:
    ids = _meta(ctx, "source_doc_ids", "doc_ids")
    if not ids:
        return _passage(ctx)
    found = [ctx.docs[i] for i in ids if i in ctx.docs]
    return "\n\n".join(f"[{n}] {doc.title}: {doc.text}" if doc.title else f"[{n}] {doc.text}"
                       for n, doc in enumerate(found, 1))


def _from_meta(*keys: str) -> Callable[[_Context], Any]:
    return lambda ctx: _meta(ctx, *keys)


FIELD_SOURCES: dict[str, Callable[[_Context], Any]] = {
    "query": _query,
    "passage": _passage,
    "context": _context,
    "instruction": _from_meta("instruction"),
    "type_definition": _type_definition,
    "triples": _from_meta("triples"),
    "passages": _passages,
    "evidence": _from_meta("evidence"),
    "condition": _from_meta("condition"),
    "sentence": lambda ctx: _meta(ctx, "sentence", "output") or _passage(ctx),
}


def _field(name: str, ctx: _Context) -> Any:
    source = FIELD_SOURCES.get(name, _from_meta(name))
    return source(ctx)


def shown_data(job: LabelingJob, query: Query | None, doc: Doc | None,
               meta: Mapping[str, Any], docs: Mapping[str, Doc]) -> dict[str, Any]:
    """The fields a task of ``job`` shows for (query, doc): one renderer for real and gold
    tasks, so nothing in a task's text tells them apart."""
    ctx = _Context(query, doc, meta, docs)
    data: dict[str, Any] = {}
    for name in sorted(job.config.variables):
        value = _field(name, ctx)
        data[name] = _lines(value) if value not in (None, "", []) else MISSING
    return data


def strata_of(query: Query | None, meta: Mapping[str, Any], strata: Sequence[str]
              ) -> dict[str, str]:
    """The stratum values of an item (judgment metadata first, then query metadata)."""
    ctx = _Context(query, None, meta, {})
    return {name: str(_meta(ctx, name)) for name in strata if _meta(ctx, name)}


def collect_items(judgments: Iterable[Judgment], queries: Mapping[str, Query],
                  docs: Mapping[str, Doc], job: LabelingJob,
                  strata: Sequence[str] = ("intent", "type")) -> list[AnnotationItem]:
    """Group the LLM judgments of ``job.task`` per (query, doc) into annotation items."""
    labels: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    models: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    metas: dict[tuple[str, str], dict[str, Any]] = defaultdict(dict)
    confidences: dict[tuple[str, str], list[float]] = defaultdict(list)
    folder = Folder(queries, docs)
    for judgment in judgments:
        if judgment.source != "llm" or judgment.task not in job.tasks:
            continue
        placed = locate(judgment, folder)
        if placed is None:  # it judged an item the build did not keep
            continue
        query_id, doc_id = placed
        query = queries.get(query_id)
        intent = (query.metadata.get("intent") if query else None) \
            or judgment.metadata.get("intent")
        if not job.covers_intent(intent):
            continue
        key = (query_id, doc_id)
        prompt = judgment.prompt_id or judgment.model or "llm"
        labels[key][prompt] = job.llm_label(judgment.task, float(judgment.label))
        models[key][prompt] = judgment.model or "llm"
        metas[key].update(judgment.metadata)
        if isinstance(judgment.metadata.get("confidence"), int | float):
            confidences[key].append(float(judgment.metadata["confidence"]))
    items, unresolved = [], set(job.config.variables)
    for query_id, doc_id in sorted(labels):
        meta = metas[(query_id, doc_id)]
        data = shown_data(job, queries.get(query_id), docs.get(doc_id), meta, docs)
        unresolved -= {name for name in job.config.variables if data[name] != MISSING}
        found = strata_of(queries.get(query_id), meta, strata)
        key = item_key(job.task, query_id, doc_id)
        data.update({"item_key": key, "query_id": query_id, "doc_id": doc_id,
                     "irforge_task": job.task, "strata": found})
        conf = confidences.get((query_id, doc_id))
        items.append(AnnotationItem(key, query_id, doc_id, labels[(query_id, doc_id)],
                                    models[(query_id, doc_id)], min(conf) if conf else None,
                                    found, data))
    if items and unresolved:
        raise AnnotationError(f"the labeling config shows {sorted(unresolved)} but no item has "
                              f"them; irforge looks in judgment metadata and query metadata "
                              f"(known fields: {sorted(FIELD_SOURCES)})")
    return items


def bench_items(bench: Benchmark, job: LabelingJob,
                strata: Sequence[str] = ("intent", "type")) -> list[AnnotationItem]:
    """Annotation items of a benchmark folder for one job."""
    queries = {q.query_id: q for q in bench.queries()} if bench.queries_path.exists() else {}
    docs = {d.doc_id: d for d in bench.corpus()} if bench.corpus_path.exists() else {}
    items = collect_items(bench.judgments(), queries, docs, job, strata)
    if not items:
        raise AnnotationError(f"{bench.judgments_path}: no LLM judgment with task "
                              f"{' or '.join(repr(t) for t in job.tasks)} to annotate; run the "
                              "generator that labels them")
    return items
