"""Two-stage intent-driven query generation (DisastIR 3.4, appendix B) through the LLM engine.

Stage one brainstorms information needs from a seed passage; one need is picked at random
(seeded); stage two writes the query, plus a generated passage (tweet, claim evidence,
hypothesis, paraphrase, answer passage) where the intent calls for one. Every item that fails
at either stage becomes a :class:`~irforge.records.Failure` with the reason and raw output.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, Field

from irforge.generators.intents.plan import PlannedQuery, Task, pick_need
from irforge.records import Doc, Failure, Query
from irforge.steps.failures import failure_from_result

GENERATED_BY = "intents"
NEEDS_STEP = "intents.needs"
QUERY_STEP = "intents.query"
# maxItems keeps constrained decoding from listing needs until max_tokens; string lengths are
# checked in code instead (llama.cpp grammars cannot express a long maxLength).
MAX_NEEDS = 10
MAX_QUERY_WORDS = 300


class Needs(BaseModel):
    """Stage one output: a list of information need statements."""

    needs: list[str] = Field(min_length=1, max_length=MAX_NEEDS)


class GeneratedQuery(BaseModel):
    """Stage two output for intents without a generated passage (QAdoc)."""

    query: str = Field(min_length=1)


class GeneratedExample(BaseModel):
    """Stage two output for intents with a generated passage."""

    query: str = Field(min_length=1)
    passage: str = Field(min_length=1)


@dataclass
class Generation:
    """What a generation run produced."""

    queries: list[Query] = field(default_factory=list)
    generated_docs: list[Doc] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    demo_grade: bool = False


def _normal(text: str) -> str:
    return " ".join(text.lower().split())


def check_example(query: str, passage: str | None, seed_passage: str) -> str | None:
    """Plain-code checks of a stage-two answer; returns the problem, or None when it is usable."""
    if not query.strip():
        return "the query is blank"
    if len(query.split()) > MAX_QUERY_WORDS:
        return f"the query is longer than {MAX_QUERY_WORDS} words"
    if _normal(query) == _normal(seed_passage):
        return "the query copies the seed passage"
    if passage is None:
        return None
    if not passage.strip():
        return "the generated passage is blank"
    if _normal(passage) == _normal(query):
        return "the generated passage repeats the query"
    if _normal(passage) == _normal(seed_passage):
        return "the generated passage copies the seed passage instead of writing a new one"
    return None


def only_declared(template_name: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """Keep the variables the template declares (built-in and generic templates differ)."""
    from irforge.prompts import get_template

    declared = get_template(template_name).variables
    return {name: values[name] for name in declared if name in values}


def _by_template(planned: Sequence[PlannedQuery], key: str) -> dict[str, list[int]]:
    groups: dict[str, list[int]] = {}
    for index, item in enumerate(planned):
        groups.setdefault(getattr(item.task.intent, key), []).append(index)
    return groups


def needs_values(item: PlannedQuery, n_needs: int) -> dict[str, Any]:
    task: Task = item.task
    return {"passage": item.seed_doc.text, "category": task.category.name,
            "category_description": task.category.description or task.category.name,
            "n_needs": n_needs, "intent_description": task.intent.description}


def query_values(item: PlannedQuery, need: str) -> dict[str, Any]:
    intent = item.task.intent
    return {"task": need, "passage": item.seed_doc.text, "category": item.task.category.name,
            **item.attributes, "intent_description": intent.description,
            "query_name": intent.query_name, "passage_name": intent.passage_name,
            "generates_passage": intent.generates_passage}


def generate(engine: Any, planned: Sequence[PlannedQuery], n_needs: int = 3) -> Generation:
    """Run both stages for every planned query; failures are kept, never dropped."""
    out = Generation()
    needs: dict[int, str] = {}
    for template, indexes in _by_template(planned, "needs_template").items():
        items = [only_declared(template, needs_values(planned[i], n_needs)) for i in indexes]
        results = engine.run(items, template, Needs, step=NEEDS_STEP)
        for i, result in zip(indexes, results, strict=True):
            item = planned[i]
            out.demo_grade = out.demo_grade or bool(getattr(result, "demo_grade", False))
            if result.status != "ok":
                out.failures.append(failure_from_result(NEEDS_STEP, item.query_id, result,
                                                        {"task": item.task.name}))
                continue
            try:
                needs[i] = pick_need(result.value.needs, item.seed)
            except ValueError as exc:
                out.failures.append(Failure(NEEDS_STEP, item.query_id, str(exc), result.raw,
                                            {"task": item.task.name}))
    ready = [i for i in range(len(planned)) if i in needs]
    groups: dict[tuple[str, bool], list[int]] = {}
    for i in ready:
        intent = planned[i].task.intent
        groups.setdefault((intent.query_template, intent.generates_passage), []).append(i)
    for (template, with_passage), indexes in groups.items():
        model = GeneratedExample if with_passage else GeneratedQuery
        items = [only_declared(template, query_values(planned[i], needs[i])) for i in indexes]
        results = engine.run(items, template, model, step=QUERY_STEP)
        for i, result in zip(indexes, results, strict=True):
            _collect(out, planned[i], needs[i], result)
    return out


def _collect(out: Generation, item: PlannedQuery, need: str, result: Any) -> None:
    """Turn one stage-two result into a query (and generated doc) or a failure."""
    meta = {"task": item.task.name}
    if result.status != "ok":
        out.failures.append(failure_from_result(QUERY_STEP, item.query_id, result, meta))
        return
    intent = item.task.intent
    query_text = result.value.query.strip()
    passage = result.value.passage.strip() if intent.generates_passage else None
    problem = check_example(query_text, passage, item.seed_doc.text)
    if problem:
        out.failures.append(Failure(QUERY_STEP, item.query_id, problem, result.raw, meta))
        return
    positive = f"gen_{item.query_id}" if passage is not None else item.seed_doc.doc_id
    demo_grade = bool(getattr(result, "demo_grade", False))
    out.demo_grade = out.demo_grade or demo_grade
    out.queries.append(Query(query_id=item.query_id, text=query_text, metadata={
        "generated_by": GENERATED_BY, "intent": intent.name, "category": item.task.category.name,
        "task": item.task.name, "task_prefix": intent.task_prefix,
        "attributes": dict(item.attributes), "seed": item.seed,
        "seed_doc_id": item.seed_doc.doc_id, "need": need, "positive_doc_id": positive,
        "positive_generated": passage is not None, "model": result.model,
        "demo_grade": demo_grade}))
    if passage is not None:
        out.generated_docs.append(Doc(doc_id=positive, text=passage, metadata={
            "generated": True, "generated_by": GENERATED_BY, "intent": intent.name,
            "kind": intent.passage_name, "query_id": item.query_id,
            "seed_doc_id": item.seed_doc.doc_id, "model": result.model,
            "demo_grade": demo_grade}))
