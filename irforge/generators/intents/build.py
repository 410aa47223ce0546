"""``irforge build intents``: plan tasks, generate queries, write the benchmark folder.

The corpus written back holds the source passages plus the generated ones (marked
``metadata.generated``); queries from other generators already in the folder are kept.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.bench import Benchmark
from irforge.errors import IrforgeError
from irforge.generators.intents.config import IntentSpec, Taxonomy
from irforge.generators.intents.generate import (
    GENERATED_BY,
    MAX_NEEDS,
    GeneratedExample,
    GeneratedQuery,
    Generation,
    Needs,
    generate,
    needs_values,
    only_declared,
    query_values,
)
from irforge.generators.intents.plan import (
    PlannedQuery,
    assign_categories,
    build_tasks,
    plan_queries,
)
from irforge.jsonl import write_jsonl
from irforge.records import Doc, Failure

STEP = "intents"


@dataclass
class BuildReport:
    """Counts of one build, for the CLI and the manifest."""

    tasks: int = 0
    planned: int = 0
    queries: int = 0
    generated_docs: int = 0
    failures: int = 0
    empty_tasks: list[str] = field(default_factory=list)
    per_task: dict[str, int] = field(default_factory=dict)
    estimate: dict[str, Any] = field(default_factory=dict)
    demo_grade: bool = False

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def source_docs(docs: Sequence[Doc]) -> list[Doc]:
    """Passages that may seed queries: everything but generated passages."""
    return [doc for doc in docs if not (doc.metadata or {}).get("generated")]


def kept_docs(docs: Sequence[Doc]) -> list[Doc]:
    """The corpus to write back: everything but passages an earlier intents run generated."""
    return [doc for doc in docs if (doc.metadata or {}).get("generated_by") != GENERATED_BY]


def estimate_generation(engine: Any, planned: Sequence[PlannedQuery],
                        n_needs: int) -> dict[str, Any]:
    """Tokens and dollars before generating; stage two is rendered with a placeholder need."""
    groups: dict[tuple[str, Any], list[dict[str, Any]]] = {}
    for item in planned:
        intent = item.task.intent
        groups.setdefault((intent.needs_template, Needs), []).append(
            only_declared(intent.needs_template, needs_values(item, n_needs)))
        model = GeneratedExample if intent.generates_passage else GeneratedQuery
        need = f"a {intent.query_name} a user could ask about this passage"
        groups.setdefault((intent.query_template, model), []).append(
            only_declared(intent.query_template, query_values(item, need)))
    total: dict[str, Any] = {"requests": 0, "prompt_tokens": 0, "max_completion_tokens": 0,
                             "input_cost_usd": 0.0, "max_cost_usd": 0.0, "priced": True}
    for (template, model), items in groups.items():
        part = engine.estimate(items, template, model).as_dict()
        for key in ("requests", "prompt_tokens", "max_completion_tokens", "input_cost_usd",
                    "max_cost_usd"):
            total[key] += part[key]
        total["priced"] = total["priced"] and part["priced"]
    total["model"] = getattr(engine, "model", "")
    return total


def build_intents(bench: Benchmark, engine: Any, corpus: Sequence[Doc],
                  intents: Sequence[IntentSpec], taxonomy: Taxonomy, per_task: int,
                  seed: int = 0, n_needs: int = 3, dry_run: bool = False,
                  seeds: Sequence[Doc] | None = None) -> BuildReport:
    """Generate ``per_task`` queries for each intent x category task and write them.

    ``corpus`` is written back with the generated passages added; ``seeds`` (default: the
    corpus's non-generated passages) are the passages queries are generated from.
    """
    if not 1 <= n_needs <= MAX_NEEDS:
        raise IrforgeError(f"--needs must be between 1 and {MAX_NEEDS}, got {n_needs}")
    if per_task < 1:
        raise IrforgeError(f"--per-task must be at least 1, got {per_task}")
    pool = source_docs(corpus if seeds is None else seeds)
    tasks = build_tasks(intents, taxonomy)
    planned, empty = plan_queries(tasks, assign_categories(pool, taxonomy), per_task, seed)
    report = BuildReport(tasks=len(tasks), planned=len(planned),
                         empty_tasks=[task.name for task in empty])
    report.estimate = estimate_generation(engine, planned, n_needs)
    if dry_run:
        return report
    result: Generation = generate(engine, planned, n_needs)
    failures = list(result.failures) + [
        Failure(f"{STEP}.plan", task.name, f"no passage of the corpus belongs to category "
                f"{task.category.name!r}", metadata={"task": task.name}) for task in empty]
    kept = [query for query in _existing_queries(bench)
            if query.metadata.get("generated_by") != GENERATED_BY]
    bench.write_corpus([*kept_docs(corpus), *result.generated_docs])
    bench.write_queries([*kept, *result.queries])
    produced = Counter(str(query.metadata["task"]) for query in result.queries)
    write_jsonl(bench.root / STEP / "tasks.jsonl", [
        {"task": task.name, "intent": task.intent.name, "category": task.category.name,
         "task_prefix": task.intent.task_prefix, "planned": 0 if task in empty else per_task,
         "queries": produced.get(task.name, 0)} for task in tasks])
    report.queries = len(result.queries)
    report.generated_docs = len(result.generated_docs)
    report.failures = bench.add_failures(failures)
    report.per_task = {task.name: produced.get(task.name, 0) for task in tasks}
    report.demo_grade = result.demo_grade
    return report


def _existing_queries(bench: Benchmark) -> list:
    return list(bench.queries()) if bench.queries_path.exists() else []
