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
from typing import Any

from irforge.check.generation import attach_validators
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query
from irforge.generators.control_hook import ControlReport
from irforge.generators.logical.config import Config
from irforge.generators.logical.demos import DEMONSTRATIONS
from irforge.generators.logical.judge_controls import report_controls, run_judge_with_controls
from irforge.generators.logical.labels import (
    NegationLabel,
    graded_qrels,
    label_rows,
    labels_path,
    negation_labels,
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
    QUERY_STEP,
    AcceptedQuery,
    QueryItem,
    below_bar,
    hypothetical_step,
    judge_step,
    query_step,
    query_variables,
    with_provenance,
)
from irforge.generators.logical.types import get_type
from irforge.generators.sources import chosen_passages, selection_table, sources_of
from irforge.llm.profile import is_capable, profile_of
from irforge.steps.failures import rejection
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner, require_kept
from irforge.steps.yields import YieldTable

METHOD = "ComLQ (complex logical queries)"


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
    judge_controls: dict[str, Any] | None = None  # the judge's control figures (--judge)

    def line(self) -> str:
        kept = (f", {self.kept_from_before} earlier queries kept" if self.kept_from_before
                else "")
        return (f"{self.accepted}/{self.planned} queries accepted, {self.failures} failures "
                f"recorded, {self.distractors} distractors, {self.hypothetical} hypothetical "
                f"negatives, {self.labels} negation labels{kept}")

    def require_yield(self, where: str = "") -> None:
        """Raise :class:`~irforge.core.errors.EmptyResultError` when this run accepted no query."""
        require_kept(self.yields, self.accepted, "logical queries", where)


def _items(passages: Sequence[Doc], config: Config) -> list[QueryItem]:
    types = [get_type(name) for name in config.types]
    plans = plan_queries(passages, types, config.per_type, config.seed, config.group_key,
                         config.max_passages)
    by_id = {doc.doc_id: doc for doc in passages}
    return [QueryItem(plan, tuple(by_id[i] for i in plan.doc_ids), DEMONSTRATIONS[plan.qtype])
            for plan in plans]


def query_items(docs: Sequence[Doc], config: Config,
                open_fields: bool = False) -> tuple[list[QueryPlan], list[dict[str, Any]]]:
    """The seeded passage plans and the ``logical.query`` prompt inputs for them
    (``open_fields``: as a capable model is asked)."""
    passages, _ = chosen_passages(split_passages(docs, config.passage_sentences), "logical",
                                  config.seed)
    items = _items(passages, config)
    return [item.plan for item in items], [query_variables(item, open_fields)
                                              for item in items]


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
    language: str | None = None  # the language the query gates expected
    sources: Mapping[str, Any] = field(default_factory=dict)  # the selector's table


def build_logical(runner: BuildRunner, docs: Sequence[Doc], config: Config) -> LogicalSummary:
    """Generate ComLQ-style queries from ``docs`` into the runner's benchmark folder.

    Callers show ``summary.yields`` and end with the runner's ``finish`` (or
    :meth:`LogicalSummary.require_yield`).
    """
    docs = split_passages(docs, config.passage_sentences)
    chosen, selection = chosen_passages(docs, "logical", config.seed)
    sources = sources_of(selection)
    items = _items(chosen, config)
    planned = {item.plan.query_id for item in items}  # a re-run rewrites these: not duplicates
    attach_validators(runner.use_gates((doc.text for doc in docs),
                                       keep=lambda query_id: query_id not in planned), docs,
                      target_k=runner.target_k, profile=profile_of(runner.engine))
    step = query_step(open_fields=is_capable(runner.engine))  # llm/profile.py
    accepted = []
    for key, value in runner.run(step, items).items():
        result = runner.result(step.name, key)
        accepted.append(with_provenance(value, getattr(result, "model", None),
                                        bool(getattr(result, "demo_grade", False)),
                                        {**runner.notes(value.output.query), "source": [
                                            sources[i] for i in value.plan.doc_ids]}))
    judgments: list[Judgment] = []
    scores: dict[str, int] = {}
    controls: list[ControlReport] | None = [] if config.judge_controls else None
    if config.judge and accepted:
        accepted, judgments, scores = judge_queries(runner, accepted, config.min_judge_score,
                                                    controls, config.seed)
    hypothetical: list[Doc] = []
    if config.hypothetical and accepted:
        hypothetical = list(runner.run(hypothetical_step(), accepted).values())
    ledger = runner.ledger
    judgments = [*kept_query_judgments(ledger.judgments, accepted), *judgments]
    done = Outcome([item.plan for item in items], accepted, ledger.failures, judgments, scores,
                   hypothetical, ledger.yields, runner.language,
                   selection_table(selection, len({i for item in accepted
                                                   for i in item.plan.doc_ids})))
    summary = write_outcome(runner, docs, done, config)
    if config.judge:
        summary.judge_controls = report_controls(runner, controls)
    return summary


def kept_query_judgments(logged: Sequence[Judgment], kept: Sequence[AcceptedQuery]
                         ) -> list[Judgment]:
    """The query step's accepted outputs of the queries still kept after the judge: what
    ``annotate push --job evidence_distribution`` shows people to check."""
    ids = {item.plan.query_id for item in kept}
    return [j for j in logged if j.task == QUERY_STEP and j.query_id in ids]


def judge_queries(runner: BuildRunner, accepted: list[AcceptedQuery], min_score: int,
                  controls: list[ControlReport] | None = None, seed: int = 0,
                  ) -> tuple[list[AcceptedQuery], list[Judgment], dict[str, int]]:
    """Score each query's structure; every score is logged per query-passage pair, and a
    score under ``min_score`` rejects the query (one rejection of the judge step). With a
    ``controls`` list, control items are mixed in (``judge_controls.py``), kept out of the
    ledger, and their report (figures and log rows) appended to it."""
    by_key = {item.plan.query_id: item for item in accepted}
    step, start = judge_step(), len(runner.ledger.judgments)
    if controls is None:
        values = runner.judge(step, accepted)
    else:
        real, report = run_judge_with_controls(runner, accepted, min_score, seed)
        controls.append(report)
        values = runner.keep(step, accepted, real)
    logged = [j for j in runner.ledger.judgments[start:] if j.task == step.name]
    judgments: list[Judgment] = []
    scores: dict[str, int] = {}
    kept: list[AcceptedQuery] = []
    for provenance in logged:
        item, value = by_key[provenance.query_id], values[provenance.query_id]
        scores[provenance.query_id] = value.score
        judgments += [replace(provenance, doc_id=doc_id, label=float(value.score),
                              task="logical.structure",
                              metadata={"reason": value.reason, "type": item.plan.qtype})
                      for doc_id in item.plan.doc_ids]
        reason = below_bar(value, min_score)
        if reason is None:
            kept.append(item)
            continue
        runner.ledger.reject(JUDGE_STEP, rejection(
            JUDGE_STEP, provenance.query_id, [reason], provenance.raw_output,
            {"type": item.plan.qtype, "score": value.score, "doc_ids": list(item.plan.doc_ids)}))
    return kept, judgments, scores


def write_outcome(runner: BuildRunner, docs: Sequence[Doc], outcome: Outcome,
                  config: Config) -> LogicalSummary:
    """Hand the outcome's records, judgments and manifest entry to ``runner`` (its ledger's
    failures are logged; older failure rows of items that now passed retire)."""
    records, summary, details = benchmark_records(runner.bench, docs, outcome, config)
    runner.write(records)
    runner.write_logs(judgments=outcome.judgments)
    runner.record(METHOD, config.options(),
                  {k: v for k, v in asdict(summary).items() if k != "yields"}, details)
    return summary


def benchmark_records(bench: Benchmark, docs: Sequence[Doc], outcome: Outcome,
                      config: Config) -> tuple[Records, LogicalSummary, dict[str, Any]]:
    """The build's records (corpus, queries, qrels, negation labels; plain code), its summary
    and the manifest entry's details; the runner writes them.

    Queries already in the folder whose ids this run did not plan stay, with their passages,
    qrels, hypothetical negatives and labels.
    """
    plans, accepted = outcome.plans, outcome.accepted
    hypothetical, scores = outcome.hypothetical, outcome.scores
    before = read_previous(bench, {plan.query_id for plan in plans})
    gold_ids = {doc_id for item in accepted for doc_id in item.plan.doc_ids}
    sampled_keys = {plan.group for plan in plans} | before.groups
    distractors = select_distractors(docs, sampled_keys, config.group_key, config.distractors,
                                     config.seed)
    gold = [doc for doc in docs if doc.doc_id in gold_ids]
    corpus = _distinct([*before.docs, *gold, *distractors, *hypothetical])
    queries: list[Query] = [*before.queries, *(item.to_query(scores.get(item.plan.query_id))
                                               for item in accepted)]
    qrels: list[Qrel] = [*before.qrels, *(q for item in accepted
                                          for q in graded_qrels(item.plan.query_id,
                                                                item.plan.doc_ids))]
    hyp_by_query = {str(doc.metadata["query_id"]): doc.doc_id for doc in hypothetical}
    labels: list[NegationLabel] = list(before.labels)
    for item in accepted:
        if item.negated:
            violating = [hyp_by_query[item.plan.query_id]] if item.plan.query_id in hyp_by_query \
                else []
            labels += negation_labels(item.plan.query_id, item.plan.doc_ids, violating,
                                      item.negated)
    labels_file = labels_path(bench.root).relative_to(bench.root).as_posix()
    records = Records(corpus=corpus, queries=queries, qrels={"test": qrels},
                      files={labels_file: label_rows(labels)})
    details = {"gold_passages": len(gold), "group_keys_sampled": len(sampled_keys),
               "negation_labels": labels_file, "sources": dict(outcome.sources)}
    return records, _summary(outcome, before, len(distractors), len(labels)), details


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
