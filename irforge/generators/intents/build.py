"""``irforge build intents`` orchestration: plan tasks -> steps 1-2 (``steps.py``) -> records.

By default a query's positive is its seed passage and LLM-written passages stay out of the
corpus (issue 24: they were ungrounded yet scored as positives). ``keep_generated=True`` (CLI
``--keep-generated-passages``) adds each generated passage (marked ``metadata.generated``) as
the positive only when it is grounded in its seed passage (the ``generated.positive``
validator); an ungrounded one is dropped with a Failure and the seed stays the positive.
A build replaces only what it regenerates: queries and generated
passages of the intents it builds; everything else in the folder (other intents' queries,
other generators' queries, qrels) is kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from irforge.check.generation import attach_validators
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import iter_jsonl
from irforge.core.layouts.intents import LAYOUT
from irforge.core.records import Doc, Failure, Query
from irforge.generators.intents.config import IntentSpec
from irforge.generators.intents.plan import (
    PlannedQuery,
    Task,
    assign_categories,
    build_tasks,
    plan_queries,
)
from irforge.generators.intents.steps import (
    GENERATED_BY,
    MAX_NEEDS,
    NEEDS_STEP,
    QUERY_STEP,
    SEED_WORDS,
    Example,
    GeneratedExample,
    GeneratedQuery,
    Needs,
    QueryItem,
    form_record,
    needs_step,
    needs_values,
    only_declared,
    query_step,
    query_values,
)
from irforge.generators.intents.taxonomy import ChosenTaxonomy
from irforge.generators.run_summary import RunSummary, estimate_calls
from irforge.generators.sources import chosen_passages, selection_table, sources_of
from irforge.llm.profile import is_capable, profile_of
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner

STEP = "intents"
PLAN_STEP = "intents.plan"


IntentsRun = RunSummary  # what build_intents returns


def source_docs(docs: Sequence[Doc]) -> list[Doc]:
    """Passages that may seed queries: everything but generated passages."""
    return [doc for doc in docs if not (doc.metadata or {}).get("generated")]


def _rebuilt(meta: Mapping[str, Any], intents: set[str]) -> bool:
    return meta.get("generated_by") == GENERATED_BY and meta.get("intent") in intents


def shown_seed_words(engine: Any) -> int | None:
    """How much of a seed passage the prompts show: all of it to a capable model, the first
    :data:`SEED_WORDS` words to a small one (llm/profile.py)."""
    return None if is_capable(engine) else SEED_WORDS


def estimate_generation(engine: Any, planned: Sequence[PlannedQuery],
                        n_needs: int) -> dict[str, Any]:
    """Tokens and dollars before generating; step two is rendered with a placeholder need."""
    seed_words = shown_seed_words(engine)
    calls: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for item in planned:
        intent = item.task.intent
        calls.setdefault((intent.needs_template, Needs), []).append(
            only_declared(intent.needs_template, needs_values(item, n_needs, seed_words)))
        model = GeneratedExample if intent.generates_passage else GeneratedQuery
        need = f"a {intent.query_name} a user could ask about this passage"
        calls.setdefault((intent.query_template, model), []).append(
            only_declared(intent.query_template, query_values(item, need, seed_words)))
    return estimate_calls(engine, calls)


def plan(corpus: Sequence[Doc], intents: Sequence[IntentSpec], chosen: ChosenTaxonomy,
         per_task: int, seed: int) -> tuple[list[PlannedQuery], list[Task], list[Task]]:
    """Planned queries, the tasks without a seed passage, and every task."""
    tasks = build_tasks(intents, chosen.taxonomy)
    if chosen.derived:
        by_id = {doc.doc_id: doc for doc in corpus}
        pools = {key: [by_id[i] for i in ids if i in by_id] for key, ids in chosen.pools.items()}
    else:
        pools = assign_categories(corpus, chosen.taxonomy)
    planned, empty = plan_queries(tasks, pools, per_task, seed)
    return planned, empty, tasks


def build_intents(runner: BuildRunner, corpus: Sequence[Doc],
                  intents: Sequence[IntentSpec], taxonomy: ChosenTaxonomy, per_task: int,
                  seed: int = 0, n_needs: int = 3, dry_run: bool = False,
                  seeds: Sequence[Doc] | None = None,
                  keep_generated: bool = False) -> IntentsRun:
    """Generate ``per_task`` queries for each intent x category task and write them.

    ``corpus`` is written back (with the grounded generated passages when
    ``keep_generated``); ``seeds`` (default: the corpus's non-generated passages) are the
    passages queries are generated from. Steps run on ``runner`` (the caller's: its folder
    is written), whose gates reject duplicate queries and run the validator registry.
    """
    bench, engine = runner.bench, runner.engine
    if not 1 <= n_needs <= MAX_NEEDS:
        raise IrforgeError(f"--needs must be between 1 and {MAX_NEEDS}, got {n_needs}")
    if per_task < 1:
        raise IrforgeError(f"--per-task must be at least 1, got {per_task}")
    pool, selection = chosen_passages(source_docs(corpus if seeds is None else seeds),
                                      "informative", seed)
    planned, empty, tasks = plan(pool, intents, taxonomy, per_task, seed)
    run = IntentsRun(counts={"tasks": len(tasks), "planned": len(planned),
                             "empty_tasks": [task.name for task in empty]})
    run.estimate = estimate_generation(engine, planned, n_needs)
    if dry_run:
        return run
    run.yields = runner.yields
    names = {intent.name for intent in intents}
    rebuilt = {q.query_id for q in bench.queries() if _rebuilt(q.metadata, names)} \
        if bench.queries_path.exists() else set()
    runner.use_gates((doc.text for doc in pool), keep=lambda query_id: query_id not in rebuilt)
    runner.ledger.count(PLAN_STEP, len(tasks), [Failure(
        PLAN_STEP, task.name, "no seed passage: no passage of the corpus belongs to category "
        f"{task.category.name!r}", metadata={"task": task.name}) for task in empty])
    attach_validators(runner.use_gates(), source_docs(corpus), target_k=runner.target_k,
                      profile=profile_of(runner.engine))
    ready, examples = _generate(runner, planned, n_needs, shown_seed_words(engine))
    queries, generated = _records(ready, examples, runner, keep_generated,
                                  sources_of(selection))
    runner.write(_folder_records(bench, corpus, intents, queries, generated, tasks, empty,
                                 per_task))
    produced = Counter(str(query.metadata["task"]) for query in queries)
    run.counts.update({"queries": len(queries), "generated_docs": len(generated),
                       "failures": runner.write_logs()["failures"],
                       "per_task": {task.name: produced.get(task.name, 0) for task in tasks},
                       "demo_grade": bool(getattr(engine, "demo_grade", False))})
    runner.record("DisastIR intent-driven queries (section 3.4)",
                  {"intents": sorted(names), "per_task": per_task, "needs": n_needs,
                   "seed": seed},
                  run.counts, {"taxonomy": taxonomy.manifest(), "estimate": run.estimate,
                               "sources": selection_table(selection, len(
                                   {q.metadata["seed_doc_id"] for q in queries})),
                               "categories": [c.name for c in taxonomy.taxonomy.categories]})
    return run


def _generate(runner: BuildRunner, planned: Sequence[PlannedQuery], n_needs: int,
              seed_words: int | None) -> tuple[list[QueryItem], dict[str, Example]]:
    """Step 1 (needs) then step 2 (the query), item by item (irforge/steps/chain.py): a
    planned query whose need is accepted is asked for its query at once. Each item takes its
    intent's templates. Returns the step-2 items in plan order and the accepted examples."""
    from irforge.steps.chain import Link

    needs = {template: needs_step(template, n_needs, seed_words) for template in
             dict.fromkeys(item.task.intent.needs_template for item in planned)}
    queries = {template: query_step(template, seed_words) for template in
               dict.fromkeys(item.task.intent.query_template for item in planned)}
    found, examples = runner.chain([
        Link(NEEDS_STEP, lambda item: needs[item.task.intent.needs_template],
             lambda item, need: [QueryItem(item, need)], bound=planned),
        Link(QUERY_STEP, lambda item: queries[item.planned.task.intent.query_template],
             # the query step's model and token limit depend on the plan, not on the need
             gated=True, bound=[QueryItem(item, "") for item in planned])], planned)
    return [QueryItem(item, found[item.query_id]) for item in planned
            if item.query_id in found], examples


def _grounded_passage(example: Example, seed: Doc) -> str | None:
    """Why a generated passage may not be a positive (None: it is grounded in its seed)."""
    from irforge.check.aliases import corpus_aliases
    from irforge.check.grounding import ungrounded

    found = ungrounded(example.passage or "", [f"{seed.title}\n{seed.text}"],
                       corpus_aliases([seed]))
    return found.problem()


def _records(ready: Sequence[QueryItem], examples: Mapping[str, Example],
             runner: BuildRunner, keep_generated: bool = False,
             sources: Mapping[str, Mapping[str, Any]] | None = None
             ) -> tuple[list[Query], list[Doc]]:
    """Accepted examples as queries (and grounded generated passages when
    ``keep_generated``), in plan order; each records its seed's selection (``source``)."""
    queries: list[Query] = []
    generated: list[Doc] = []
    for item in ready:
        planned = item.planned
        example = examples.get(planned.query_id)
        if example is None:
            continue
        intent, task = planned.task.intent, planned.task
        result = runner.result(QUERY_STEP, planned.query_id)
        model = (getattr(result, "model", None) or "") if result is not None else ""
        demo_grade = bool(getattr(result, "demo_grade", False))
        passage = example.passage if keep_generated else None
        problem = _grounded_passage(example, planned.seed_doc) if passage else None
        if problem:
            passage = None
            runner.ledger.failures.append(Failure(
                f"{STEP}.generated_passage", planned.query_id,
                f"rejected: validator generated.positive: the generated passage is not "
                f"grounded in seed {planned.seed_doc.doc_id}: {problem}",
                example.passage, {"seed_doc_id": planned.seed_doc.doc_id}))
        positive = f"gen_{planned.query_id}" if passage is not None \
            else planned.seed_doc.doc_id
        queries.append(Query(query_id=planned.query_id, text=example.query, metadata={
            "generated_by": GENERATED_BY, "intent": intent.name, "category": task.category.name,
            "task": task.name, "task_prefix": intent.task_prefix,
            "attributes": dict(planned.attributes), "seed": planned.seed,
            "seed_doc_id": planned.seed_doc.doc_id, "need": item.need,
            "source": dict((sources or {}).get(planned.seed_doc.doc_id, {})),
            **form_record(planned),
            "positive_doc_id": positive, "positive_generated": passage is not None,
            "model": model, "demo_grade": demo_grade, **runner.notes(example.query)}))
        if passage is not None:
            generated.append(Doc(doc_id=positive, text=passage, metadata={
                "generated": True, "generated_by": GENERATED_BY, "intent": intent.name,
                "kind": intent.passage_name, "query_id": planned.query_id,
                "seed_doc_id": planned.seed_doc.doc_id, "model": model,
                "demo_grade": demo_grade}))
    return queries, generated


def _folder_records(bench: Benchmark, corpus: Sequence[Doc], intents: Sequence[IntentSpec],
                    queries: Sequence[Query], generated: Sequence[Doc], tasks: Sequence[Task],
                    empty: Sequence[Task], per_task: int) -> Records:
    """What to merge into the folder: the built intents' queries and passages replace theirs,
    the rest stay."""
    names = {intent.name for intent in intents}
    path = LAYOUT.path(bench.root, "tasks")
    old = [row for _, row in iter_jsonl(path)] if path.exists() else []
    produced = Counter(str(query.metadata["task"]) for query in queries)
    empty_names = {task.name for task in empty}
    return Records(
        corpus=[*(doc for doc in corpus if not _rebuilt(doc.metadata or {}, names)), *generated],
        queries=queries, replaces=lambda query: _rebuilt(query.metadata, names),
        files={LAYOUT.relative("tasks"): [
            *(row for row in old if row.get("intent") not in names),
            *({"task": task.name, "intent": task.intent.name, "category": task.category.name,
               "task_prefix": task.intent.task_prefix,
               "planned": 0 if task.name in empty_names else per_task,
               "queries": produced.get(task.name, 0)} for task in tasks)]})
