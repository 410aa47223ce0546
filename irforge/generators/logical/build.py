"""``irforge build logical``: plan passages, generate, review, and write the benchmark folder.

Writes corpus (gold passages + distractors + hypothetical negatives), queries (type, answer,
triples and FOL in metadata), graded qrels, ``logical/negation_labels.jsonl``, judgments,
failures and a manifest entry. A re-run reuses the engine cache and does not duplicate
judgment or failure rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from irforge.bench import Benchmark
from irforge.generators.logical import checks as review
from irforge.generators.logical.labels import (
    NegationLabel,
    graded_qrels,
    labels_path,
    negation_labels,
    write_negation_labels,
)
from irforge.generators.logical.models import (
    HypotheticalPassage,
    LogicalQueryOutput,
    StructureJudgment,
)
from irforge.generators.logical.selection import (
    QueryPlan,
    plan_queries,
    select_distractors,
    split_passages,
)
from irforge.generators.logical.types import TYPE_NAMES, get_type
from irforge.records import Doc, Failure, Judgment, Qrel, Query


@dataclass(frozen=True)
class LogicalConfig:
    """What to build: types, how many per type, passage grouping, and the optional steps."""

    types: tuple[str, ...] = TYPE_NAMES
    per_type: int = 2
    seed: int = 0
    group_key: str = "title"
    max_passages: int = 3
    distractors: int | None = None
    hypothetical: bool = False
    judge: bool = False
    min_judge_score: int = 3
    passage_sentences: int = 0


@dataclass
class LogicalSummary:
    """Counts of what a build produced, by outcome and by type."""

    planned: int = 0
    accepted: int = 0
    failures: int = 0
    distractors: int = 0
    hypothetical: int = 0
    labels: int = 0
    accepted_by_type: dict[str, int] = field(default_factory=dict)
    failures_by_check: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        return (f"{self.accepted}/{self.planned} queries accepted, {self.failures} failures "
                f"recorded, {self.distractors} distractors, {self.hypothetical} hypothetical "
                f"negatives, {self.labels} negation labels")


def query_items(docs: Sequence[Doc],
                config: LogicalConfig) -> tuple[list[QueryPlan], list[dict[str, Any]]]:
    """The seeded passage plans and the ``logical.query`` prompt inputs for them."""
    return _plan(split_passages(docs, config.passage_sentences), config)


def _plan(passages: Sequence[Doc],
          config: LogicalConfig) -> tuple[list[QueryPlan], list[dict[str, Any]]]:
    types = [get_type(name) for name in config.types]
    plans = plan_queries(passages, types, config.per_type, config.seed, config.group_key,
                         config.max_passages)
    docs_by_id = {doc.doc_id: doc for doc in passages}
    return plans, [review.query_item(plan, docs_by_id) for plan in plans]


def build_logical(bench_dir: Path, docs: Sequence[Doc], config: LogicalConfig,
                  engine: Any) -> LogicalSummary:
    """Generate ComLQ-style queries from ``docs`` into the benchmark folder ``bench_dir``."""
    docs = split_passages(docs, config.passage_sentences)
    docs_by_id = {doc.doc_id: doc for doc in docs}
    plans, items = _plan(docs, config)
    results = engine.run(items, "logical.query", LogicalQueryOutput, step=review.QUERY_STEP)
    accepted: list[review.AcceptedQuery] = []
    failures: list[Failure] = []
    for plan, result in zip(plans, results, strict=True):
        verdict = review.review_query(plan, result, [docs_by_id[i].text for i in plan.doc_ids])
        (failures if isinstance(verdict, Failure) else accepted).append(verdict)

    judgments: list[Judgment] = []
    scores: dict[str, int] = {}
    if config.judge and accepted:
        judged = engine.run([review.judge_item(a) for a in accepted], "logical.judge",
                            StructureJudgment, step=review.JUDGE_STEP)
        kept = []
        for item, result in zip(accepted, judged, strict=True):
            rows, failure = review.review_judgment(item, result, config.min_judge_score)
            judgments += rows
            if rows:
                scores[item.plan.query_id] = int(rows[0].label)
            if failure is None:
                kept.append(item)
            else:
                failures.append(failure)
        accepted = kept

    hypothetical: list[Doc] = []
    if config.hypothetical and accepted:
        written = engine.run([review.hypothetical_item(a) for a in accepted],
                             "logical.hypothetical", HypotheticalPassage,
                             step=review.HYPOTHETICAL_STEP)
        for item, result in zip(accepted, written, strict=True):
            verdict = review.review_hypothetical(item, result)
            (failures if isinstance(verdict, Failure) else hypothetical).append(verdict)

    outcome = Outcome(plans, accepted, failures, judgments, scores, hypothetical)
    return write_benchmark(Benchmark(bench_dir), docs, outcome, config, engine.manifest_entry())


@dataclass(frozen=True)
class Outcome:
    """Everything the LLM steps produced after review, ready to be written."""

    plans: Sequence[QueryPlan]
    accepted: Sequence[review.AcceptedQuery]
    failures: Sequence[Failure] = ()
    judgments: Sequence[Judgment] = ()
    scores: Mapping[str, int] = field(default_factory=dict)
    hypothetical: Sequence[Doc] = ()


def write_benchmark(bench: Benchmark, docs: Sequence[Doc], outcome: Outcome,
                    config: LogicalConfig, engine_entry: Mapping[str, Any]) -> LogicalSummary:
    """Write corpus, queries, qrels, negation labels, logs and the manifest entry (plain code)."""
    plans, accepted, failures = outcome.plans, outcome.accepted, outcome.failures
    hypothetical, judgments, scores = outcome.hypothetical, outcome.judgments, outcome.scores
    gold_ids = {doc_id for item in accepted for doc_id in item.plan.doc_ids}
    sampled_keys = {plan.group for plan in plans}
    distractors = select_distractors(docs, sampled_keys, config.group_key, config.distractors,
                                     config.seed)
    gold = [doc for doc in docs if doc.doc_id in gold_ids]
    bench.write_corpus([*gold, *distractors, *hypothetical])
    queries: list[Query] = [item.to_query(scores.get(item.plan.query_id)) for item in accepted]
    bench.write_queries(queries)
    qrels: list[Qrel] = [q for item in accepted
                         for q in graded_qrels(item.plan.query_id, item.plan.doc_ids)]
    bench.write_qrels(qrels)
    hyp_by_query = {str(doc.metadata["query_id"]): doc.doc_id for doc in hypothetical}
    labels: list[NegationLabel] = []
    for item in accepted:
        if item.negated:
            violating = [hyp_by_query[item.plan.query_id]] if item.plan.query_id in hyp_by_query \
                else []
            labels += negation_labels(item.plan.query_id, item.plan.doc_ids, violating,
                                      item.negated)
    write_negation_labels(bench.root, labels)
    bench.add_judgments(judgments)  # identical rows of an earlier run are not appended again
    bench.add_failures(failures)

    summary = LogicalSummary(
        planned=len(plans), accepted=len(accepted), failures=len(failures),
        distractors=len(distractors), hypothetical=len(hypothetical), labels=len(labels))
    for item in accepted:
        summary.accepted_by_type[item.plan.qtype] = summary.accepted_by_type.get(
            item.plan.qtype, 0) + 1
    for failure in failures:
        check = str(failure.metadata.get("check", "other"))
        summary.failures_by_check[check] = summary.failures_by_check.get(check, 0) + 1
    bench.record_step("logical", {
        "method": "ComLQ (complex logical queries)", "config": asdict(config),
        "engine": dict(engine_entry), "demo_grade": bool(engine_entry.get("demo_grade")),
        "counts": asdict(summary), "gold_passages": len(gold),
        "group_keys_sampled": len(sampled_keys),
        "negation_labels": str(labels_path(bench.root).relative_to(bench.root))})
    return summary


