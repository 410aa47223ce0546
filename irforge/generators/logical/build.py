"""``irforge build logical``: plan passages, run the LLM steps (``steps.py``), write the folder.

Writes corpus (gold passages + distractors + hypothetical negatives), queries (type, answer,
triples and FOL in metadata), graded qrels, ``logical/negation_labels.jsonl``, judgments,
failures and a manifest entry with the yield of every step. Every step runs through
:func:`irforge.steps.run_step`. A re-run reuses the engine cache, does not duplicate judgment
or failure rows, and keeps the queries of the folder that it did not plan again (other types).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query
from irforge.generators.kept import require_kept
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.labels import (
    NegationLabel,
    graded_qrels,
    labels_path,
    negation_labels,
    write_negation_labels,
)
from irforge.generators.logical.merge import Previous, read_previous
from irforge.generators.logical.selection import (
    QueryPlan,
    plan_queries,
    select_distractors,
    split_passages,
)
from irforge.generators.logical.steps import (
    JUDGE_STEP,
    AcceptedQuery,
    QueryItem,
    below_bar,
    hypothetical_step,
    judge_step,
    query_step,
    query_variables,
    with_provenance,
)
from irforge.generators.logical.types import TYPE_NAMES, get_type
from irforge.llm.protocol import EngineLike
from irforge.steps import reason_key, run_step
from irforge.steps.failures import rejection
from irforge.steps.yields import YieldTable


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
    """Counts of what a build wrote, and the yield of every step of this run."""

    planned: int = 0
    accepted: int = 0
    failures: int = 0
    distractors: int = 0
    hypothetical: int = 0
    labels: int = 0
    kept_from_before: int = 0
    accepted_by_type: dict[str, int] = field(default_factory=dict)
    yields: YieldTable = field(default_factory=YieldTable)

    def line(self) -> str:
        kept = (f", {self.kept_from_before} earlier queries kept" if self.kept_from_before
                else "")
        return (f"{self.accepted}/{self.planned} queries accepted, {self.failures} failures "
                f"recorded, {self.distractors} distractors, {self.hypothetical} hypothetical "
                f"negatives, {self.labels} negation labels{kept}")

    def require_yield(self, where: str = "") -> None:
        """Raise :class:`~irforge.core.errors.EmptyResultError` when this run accepted no query."""
        require_kept(self.yields, self.accepted, "logical queries", where)


def _items(passages: Sequence[Doc], config: LogicalConfig) -> list[QueryItem]:
    types = [get_type(name) for name in config.types]
    plans = plan_queries(passages, types, config.per_type, config.seed, config.group_key,
                         config.max_passages)
    by_id = {doc.doc_id: doc for doc in passages}
    return [QueryItem(plan, tuple(by_id[i] for i in plan.doc_ids), DEMONSTRATIONS[plan.qtype])
            for plan in plans]


def query_items(docs: Sequence[Doc],
                config: LogicalConfig) -> tuple[list[QueryPlan], list[dict[str, Any]]]:
    """The seeded passage plans and the ``logical.query`` prompt inputs for them."""
    items = _items(split_passages(docs, config.passage_sentences), config)
    return [item.plan for item in items], [query_variables(item) for item in items]


@dataclass(frozen=True)
class Outcome:
    """Everything the LLM steps produced after review, ready to be written."""

    plans: Sequence[QueryPlan]
    accepted: Sequence[AcceptedQuery]
    failures: Sequence[Failure] = ()
    judgments: Sequence[Judgment] = ()
    scores: Mapping[str, int] = field(default_factory=dict)
    hypothetical: Sequence[Doc] = ()
    yields: YieldTable = field(default_factory=YieldTable)


def build_logical(bench_dir: Path, docs: Sequence[Doc], config: LogicalConfig,
                  engine: EngineLike) -> LogicalSummary:
    """Generate ComLQ-style queries from ``docs`` into the benchmark folder ``bench_dir``.

    Callers show ``summary.yields`` and call :meth:`LogicalSummary.require_yield`.
    """
    docs = split_passages(docs, config.passage_sentences)
    items = _items(docs, config)
    yields = YieldTable()
    failures: list[Failure] = []

    from irforge.check.generation import validating_gates
    from irforge.steps.gates import corpus_language

    gates = validating_gates(docs, corpus_language(doc.text for doc in docs))
    outcome = run_step(engine, query_step(), items, gates)
    yields.add(outcome.yield_)
    failures += outcome.failures
    provenance = {j.query_id: j for j in outcome.judgments}
    accepted = [with_provenance(outcome.accepted[key], provenance[key].model,
                                bool(provenance[key].metadata.get("demo_grade")))
                for key in outcome.accepted]

    judgments: list[Judgment] = []
    scores: dict[str, int] = {}
    if config.judge and accepted:
        accepted, judgments, scores = judge_queries(engine, accepted, config.min_judge_score,
                                             yields, failures)

    hypothetical: list[Doc] = []
    if config.hypothetical and accepted:
        written = run_step(engine, hypothetical_step(), accepted)
        yields.add(written.yield_)
        failures += written.failures
        hypothetical = list(written.accepted.values())

    manifest_entry = getattr(engine, "manifest_entry", None)
    engine_entry = manifest_entry() if callable(manifest_entry) else {}
    done = Outcome([item.plan for item in items], accepted, failures, judgments, scores,
                   hypothetical, yields)
    return write_benchmark(Benchmark(bench_dir), docs, done, config, engine_entry)


def judge_queries(engine: EngineLike, accepted: list[AcceptedQuery], min_score: int,
           yields: YieldTable, failures: list[Failure]
           ) -> tuple[list[AcceptedQuery], list[Judgment], dict[str, int]]:
    """Score each query's structure; every score is logged per query-passage pair, and a
    score under ``min_score`` rejects the query."""
    outcome = run_step(engine, judge_step(), accepted)
    failures += outcome.failures
    by_key = {item.plan.query_id: item for item in accepted}
    judgments: list[Judgment] = []
    scores: dict[str, int] = {}
    kept: list[AcceptedQuery] = []
    for logged in outcome.judgments:
        item, value = by_key[logged.query_id], outcome.accepted[logged.query_id]
        scores[logged.query_id] = value.score
        judgments += [replace(logged, doc_id=doc_id, label=float(value.score),
                              task="logical.structure",
                              metadata={"reason": value.reason, "type": item.plan.qtype})
                      for doc_id in item.plan.doc_ids]
        reason = below_bar(value, min_score)
        if reason is None:
            kept.append(item)
            continue
        failure = rejection(JUDGE_STEP, logged.query_id, [reason], logged.raw_output,
                            {"type": item.plan.qtype, "score": value.score,
                             "doc_ids": list(item.plan.doc_ids)})
        failures.append(failure)
        outcome.yield_.accepted -= 1  # under the bar: counted as a rejection of this step
        outcome.yield_.rejected[reason_key(failure.reason)] += 1
    yields.add(outcome.yield_)
    return kept, judgments, scores


def write_benchmark(bench: Benchmark, docs: Sequence[Doc], outcome: Outcome,
                    config: LogicalConfig, engine_entry: Mapping[str, Any]) -> LogicalSummary:
    """Write corpus, queries, qrels, negation labels, logs and the manifest entry (plain code).

    Queries already in the folder whose ids this run did not plan stay, with their passages,
    qrels, hypothetical negatives and labels.
    """
    plans, accepted, failures = outcome.plans, outcome.accepted, outcome.failures
    hypothetical, judgments, scores = outcome.hypothetical, outcome.judgments, outcome.scores
    before = read_previous(bench, {plan.query_id for plan in plans})
    gold_ids = {doc_id for item in accepted for doc_id in item.plan.doc_ids}
    sampled_keys = {plan.group for plan in plans} | before.groups
    distractors = select_distractors(docs, sampled_keys, config.group_key, config.distractors,
                                     config.seed)
    gold = [doc for doc in docs if doc.doc_id in gold_ids]
    corpus = _distinct([*before.docs, *gold, *distractors, *hypothetical])
    bench.write_corpus(corpus)
    queries: list[Query] = [*before.queries, *(item.to_query(scores.get(item.plan.query_id))
                                               for item in accepted)]
    bench.write_queries(queries)
    qrels: list[Qrel] = [*before.qrels, *(q for item in accepted
                                          for q in graded_qrels(item.plan.query_id,
                                                                item.plan.doc_ids))]
    bench.write_qrels(qrels)
    hyp_by_query = {str(doc.metadata["query_id"]): doc.doc_id for doc in hypothetical}
    labels: list[NegationLabel] = list(before.labels)
    for item in accepted:
        if item.negated:
            violating = [hyp_by_query[item.plan.query_id]] if item.plan.query_id in hyp_by_query \
                else []
            labels += negation_labels(item.plan.query_id, item.plan.doc_ids, violating,
                                      item.negated)
    write_negation_labels(bench.root, labels)
    bench.add_judgments(judgments)  # identical rows of an earlier run are not appended again
    bench.add_failures(failures)

    summary = _summary(outcome, before, len(distractors), len(labels))
    bench.record_step("logical", {
        "method": "ComLQ (complex logical queries)", "config": asdict(config),
        "engine": dict(engine_entry), "demo_grade": bool(engine_entry.get("demo_grade")),
        "counts": {k: v for k, v in asdict(summary).items() if k != "yields"},
        "yield": summary.yields.to_manifest(), "gold_passages": len(gold),
        "group_keys_sampled": len(sampled_keys),
        "negation_labels": str(labels_path(bench.root).relative_to(bench.root))})
    return summary


def _summary(outcome: Outcome, before: Previous, distractors: int,
             labels: int) -> LogicalSummary:
    by_type = Counter(item.plan.qtype for item in outcome.accepted)
    return LogicalSummary(
        planned=len(outcome.plans), accepted=len(outcome.accepted),
        failures=len(outcome.failures), distractors=distractors,
        hypothetical=len(outcome.hypothetical), labels=labels,
        kept_from_before=len(before.queries), accepted_by_type=dict(by_type),
        yields=outcome.yields)


def _distinct(docs: Sequence[Doc]) -> list[Doc]:
    """Documents in order, the first of each id kept."""
    seen: dict[str, Doc] = {}
    for doc in docs:
        seen.setdefault(doc.doc_id, doc)
    return list(seen.values())
