"""Evaluate retrievers (and rerankers on top of them) on a benchmark folder, end to end.

Used by ``irforge eval`` and the demo: read the BEIR files, index, search, rerank, score every
metric per query, per query group and per paper task, and time each stage.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.beir import require_known_qrels
from irforge.core.bench import Benchmark
from irforge.core.errors import UntrustedLabels
from irforge.core.records import Doc, Failure, Query, Run
from irforge.core.trec import read_trec_run
from irforge.core.trust import ALLOW_FLAG, untrusted_judges
from irforge.eval.checks import (
    cutoff_warnings,
    non_finite,
    require_corpus,
    require_plain_ids,
    unique_name,
)
from irforge.eval.infosearch_eval import (
    DIMENSION_FIELD,
    InfoSearchModes,
    infosearch_results,
    is_infosearch_bench,
    read_infosearch_modes,
    search_modes,
)
from irforge.eval.metrics import EvaluationInputError, evaluate_per_query, mean_scores
from irforge.eval.metrics.groups import group_means, query_groups
from irforge.eval.metrics.papers import NotComputable, PaperContext, missing_files
from irforge.eval.metrics.papers import compute as compute_paper
from irforge.eval.metrics.ranks import mean
from irforge.eval.metrics.registry import Measure, parse_metric, parse_metrics
from irforge.eval.metrics.significance import bootstrap_ci, compare_systems
from irforge.eval.pipelines import (
    decomposed_retrieve,
    first_stage_diagnostics,
    get_decomposer,
    stage_aware_rerank,
)
from irforge.eval.pipelines.decompose import Decomposer
from irforge.eval.provenance import qrels_provenance
from irforge.eval.rerankers import get_reranker
from irforge.eval.separation import separation_warnings
from irforge.eval.task_metrics import lsnc_metrics, multicon_metrics, multicon_task_queries
from irforge.eval.verdict import truth_lines
from irforge.retrievers import Reranker, get_retriever

MISSING = "zero"
"""A judged query a system returns nothing for scores 0 in the report (trec_eval ``-c``), so a
system is not rewarded for failing a query; ``irforge.eval.evaluate`` skips it by default."""
MISSING_NOTE = ("a judged query a system returned nothing for counts 0 (trec_eval -c; "
                "pytrec_eval would skip it)")


@dataclass
class SystemResult:
    """Everything measured for one system (a retriever, a reranked run, a pipeline, a run file).

    ``per_query`` holds the ranked (trec) measures over the judged queries; the papers'
    measures keep their own query sets in ``paper_per_query`` (``{metric: {query: value}}``).
    ``ci`` is the bootstrap interval of each mean; ``failures`` counts model calls that failed
    (``{"reranker": n, "decomposer": m}``), ``not_computed`` says why a metric is absent.
    """

    name: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]]
    per_group: dict[str, dict[str, float]] = field(default_factory=dict)
    per_conditions: dict[str, dict[str, float]] = field(default_factory=dict)
    tasks: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    kind: str = "retriever"
    paper_per_query: dict[str, dict[str, float]] = field(default_factory=dict)
    ci: dict[str, list[float]] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    failure_reasons: dict[str, int] = field(default_factory=dict)
    not_computed: dict[str, str] = field(default_factory=dict)
    diagnostics: dict[str, float] = field(default_factory=dict)

    @property
    def failure_count(self) -> int:
        return sum(self.failures.values())

    def values(self) -> dict[str, dict[str, float]]:
        """``{metric: {query: value}}`` for every metric with per-query values."""
        out: dict[str, dict[str, float]] = {}
        for query_id, row in self.per_query.items():
            for name, value in row.items():
                out.setdefault(name, {})[query_id] = value
        return {**out, **self.paper_per_query}


@dataclass
class EvalResults:
    """The results of one ``irforge eval`` call; ``to_json()`` is what results.json holds."""

    bench: str
    split: str
    metrics: list[str]
    group_field: str
    queries: int
    docs: int
    systems: list[SystemResult] = field(default_factory=list)
    ann: list[dict[str, Any]] = field(default_factory=list)
    runs: dict[str, Run] = field(default_factory=dict, repr=False)
    warnings: list[str] = field(default_factory=list)
    provenance: dict[str, Any] = field(default_factory=dict)
    groups: dict[str, Any] = field(default_factory=dict)
    significance: list[dict[str, Any]] = field(default_factory=list)
    settings: dict[str, Any] = field(default_factory=dict)
    truth: list[str] = field(default_factory=list)  # the report's first lines (eval/verdict.py)
    untrusted_allowed: bool = False  # scored untrusted qrels with --allow-untrusted-qrels

    @property
    def primary(self) -> str:
        """The first ranked (trec) metric: the one plots and per-group tables show."""
        return next((m for m in self.metrics if not parse_metric(m).is_paper), self.metrics[0])

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("runs")
        return data


def _conditions_of(query: Query) -> str | None:
    """Number of conditions of a multi-condition query (metadata ``k`` or ``conditions``)."""
    if "k" in query.metadata:
        return str(query.metadata["k"])
    conditions = query.metadata.get("conditions")
    return str(len(conditions)) if isinstance(conditions, list) else None


def _ann_check(spec: str, docs: Sequence[Doc], queries: Sequence[Query], qrels, k: int,
               cache_dir: Path | None, prefixes: tuple[str, str]) -> dict[str, Any]:
    """Exact vs HNSW for one dense spec: recall of the ANN top-k and the nDCG@10 drop."""
    argument = spec.partition(":")[2]
    runs, seconds = {}, {}
    for mode in ("dense", "dense-hnsw"):
        retriever = get_retriever(f"{mode}:{argument}" if argument else mode, cache_dir,
                                  *prefixes)
        retriever.index(docs)
        start = time.perf_counter()
        runs[mode] = retriever.search(queries, k)
        seconds[mode] = time.perf_counter() - start
    exact = [list(runs["dense"].scores[q.query_id]) for q in queries]
    ann = [list(runs["dense-hnsw"].scores[q.query_id]) for q in queries]
    ndcg = {mode: mean_scores(evaluate_per_query(qrels, run, ["ndcg@10"], missing=MISSING)
                              )["ndcg@10"] for mode, run in runs.items()}
    return {"retriever": spec, "k": k,
            "recall_at_10": _list_recall(exact, ann, 10),
            f"recall_at_{k}": _list_recall(exact, ann, k),
            "ndcg@10_exact": ndcg["dense"], "ndcg@10_ann": ndcg["dense-hnsw"],
            "ndcg@10_drop": ndcg["dense"] - ndcg["dense-hnsw"],
            "search_seconds_exact": seconds["dense"], "search_seconds_ann": seconds["dense-hnsw"]}


@dataclass
class _Context:
    """What every system of one call is scored against."""

    bench_dir: Path
    qrels: dict[str, dict[str, int]]
    ranked: list[Measure]
    paper: list[Measure]
    queries: list[Query]
    groups: dict[str, str]
    conditions: dict[str, str]
    infosearch: InfoSearchModes | None
    bootstrap: int
    seed: int


def _score(results: EvalResults, ctx: _Context, name: str, run: Run, kind: str,
           task_run: Run | None = None, mode_runs: dict[str, Run] | None = None,
           seconds: dict[str, float] | None = None, failures: dict[str, int] | None = None,
           reasons: dict[str, int] | None = None) -> SystemResult:
    """Score one system on every metric and add it (and its run) to ``results``."""
    name, warning = unique_name(name, results.runs, f"system {name!r}")
    if warning:
        results.warnings.append(warning)
    bad = non_finite(run.scores)
    if bad:
        results.warnings.append(f"{name}: {bad} score(s) are nan or infinite; they rank last")
    per_query = (evaluate_per_query(ctx.qrels, run, ctx.ranked, missing=MISSING)
                 if ctx.ranked else {})
    system = SystemResult(name=name, means=mean_scores(per_query), per_query=per_query,
                          per_group=group_means(per_query, ctx.groups),
                          per_conditions=group_means(per_query, ctx.conditions),
                          tasks=lsnc_metrics(ctx.bench_dir, run.scores), seconds=seconds or {},
                          kind=kind, failures=dict(failures or {}),
                          failure_reasons=dict(reasons or {}))
    if task_run is not None:
        system.tasks.update(multicon_metrics(ctx.bench_dir, task_run.scores))
    if ctx.infosearch is not None and mode_runs is not None:
        system.tasks["infosearch"] = infosearch_results(ctx.infosearch, mode_runs,
                                                        results.primary)
        for mode in ("changed", "reversed"):
            results.runs[f"{name}.{mode}"] = mode_runs[mode]
    _score_papers(system, ctx, run, task_run, mode_runs)
    for metric, values in system.values().items():
        low, high = bootstrap_ci(list(values.values()), ctx.bootstrap, seed=ctx.seed)
        system.ci[metric] = [low, high]
    if system.tasks.get("lsnc_empty_runs"):
        results.warnings.append(f"{name}: {system.tasks['lsnc_empty_runs']} negation "
                                "query(ies) have an empty run; left out of LSNC")
    results.systems.append(system)
    results.runs[name] = run
    return system


def _score_papers(system: SystemResult, ctx: _Context, run: Run, task_run: Run | None,
                  mode_runs: dict[str, Run] | None) -> None:
    """The papers' measures asked for with --metric, each over its own query set."""
    if not ctx.paper:
        return
    paper_ctx = PaperContext(
        bench_dir=ctx.bench_dir, qrels=ctx.qrels, run=run.scores,
        task_run=None if task_run is None else task_run.scores,
        mode_runs=None if mode_runs is None else {m: r.scores for m, r in mode_runs.items()},
        mode_qrels={} if ctx.infosearch is None else dict(ctx.infosearch.qrels))
    for measure in ctx.paper:
        try:
            values = compute_paper(measure, paper_ctx)
        except NotComputable as exc:
            system.not_computed[str(measure)] = str(exc)
            continue
        if not values:
            system.not_computed[str(measure)] = "no query has what this measure needs"
            continue
        system.paper_per_query[str(measure)] = values
        system.means[str(measure)] = mean(values)


def _list_recall(exact: list[list[str]], ann: list[list[str]], k: int) -> float:
    hits = [len(set(e[:k]) & set(a[:k])) / max(len(e[:k]), 1) for e, a in
            zip(exact, ann, strict=True)]
    return sum(hits) / len(hits) if hits else 0.0


def _reasons(*parts: object) -> dict[str, int]:
    """Failure reasons so far (cumulative) of rerankers and decomposers."""
    out: dict[str, int] = {}
    for part in parts:
        for reason, count in (getattr(part, "failure_reasons", None) or {}).items():
            out[reason] = out.get(reason, 0) + count
        for failure in getattr(part, "failures", None) or []:
            if isinstance(failure, Failure):
                out[failure.reason[:120]] = out.get(failure.reason[:120], 0) + 1
    return out


def _since(before: dict[str, int], *parts: object) -> dict[str, int]:
    """Reasons added since ``before`` (a reranker is reused across retrievers)."""
    after = _reasons(*parts)
    return {r: n - before.get(r, 0) for r, n in after.items() if n > before.get(r, 0)}


def _rerank(reranker: Reranker, queries: Sequence[Query], docs_by_id: dict[str, Doc],
            run: Run, k: int) -> tuple[Run, int, dict[str, int]]:
    """A reranked run, how many of the reranker's model calls failed on it, and why."""
    before, reasons = getattr(reranker, "failed_calls", 0), _reasons(reranker)
    reranked = reranker.rerank(queries, docs_by_id, run, k)
    return (reranked, getattr(reranker, "failed_calls", 0) - before,
            _since(reasons, reranker))


def _load(bench_dir: Path, split: str, measures: list[Measure], results_warnings: list[str]
          ) -> tuple[Benchmark, dict[str, dict[str, int]], list[Doc], list[Query]]:
    """Read and check the folder: paper files, qrels, corpus, ids (errors or warnings)."""
    bench = Benchmark(bench_dir)
    missing = missing_files(bench_dir, [m for m in measures if m.is_paper])
    if missing:
        raise EvaluationInputError("cannot compute the requested paper metric(s):\n  - "
                                   + "\n  - ".join(missing))
    raw = bench.qrels_dict(split)
    if not any(raw.values()):
        raise EvaluationInputError(f"{bench.qrels_path(split)} has no qrels: nothing to "
                                   "evaluate (generate queries and qrels first)")
    docs = list(bench.corpus())
    require_corpus(len(docs), bench.corpus_path)
    all_queries = list(bench.queries())
    require_plain_ids([d.doc_id for d in docs], "document", bench.corpus_path)
    require_plain_ids([q.query_id for q in all_queries], "query", bench.queries_path)
    # the check export makes too: a qrel naming an id outside the folder is an error
    require_known_qrels(bench.qrels_path(split),
                        ((q, d) for q, grades in raw.items() for d in grades),
                        {q.query_id for q in all_queries}, {d.doc_id for d in docs},
                        bench_dir, "evaluating")
    qrels = {q: dict(grades) for q, grades in raw.items()}
    if not any(qrels.values()):
        raise EvaluationInputError(f"{bench.qrels_path(split)} judges no query of "
                                   f"{bench.queries_path}: nothing to evaluate")
    results_warnings.extend(cutoff_warnings(measures, len(docs)))
    return bench, qrels, docs, all_queries


def _group_counts(queries: Sequence[Query], groups: dict[str, str], field_name: str
                  ) -> dict[str, Any]:
    counts: dict[str, int] = {}
    for query in queries:
        if query.query_id in groups:
            counts[groups[query.query_id]] = counts.get(groups[query.query_id], 0) + 1
    return {"field": field_name, "counts": dict(sorted(counts.items())),
            "ungrouped": sum(1 for q in queries if q.query_id not in groups)}


def _significance(results: EvalResults, trials: int, seed: int) -> None:
    values = {s.name: s.values() for s in results.systems}
    for metric in results.metrics:
        results.significance.extend(c.to_json() for c in compare_systems(values, metric,
                                                                         trials, seed))


def refuse_untrusted(bench_dir: Path, split: str, allow: bool) -> list[str]:
    """Untrusted judges behind ``split``: :class:`UntrustedLabels` unless ``allow``."""
    judges = untrusted_judges(bench_dir, split)
    if judges and not allow:
        figures = "\n  ".join(line for entry in judges.values() for line in entry.get("lines", []))
        raise UntrustedLabels(
            f"{Benchmark(bench_dir).qrels_path(split)} was labeled by a judge that failed its "
            f"control items ({', '.join(judges)}; judge_controls.json):\n  {figures}\nfix: "
            f"relabel with a stronger model, score another split (--qrels human), or pass "
            f"{ALLOW_FLAG} to score them anyway (every table then says so)")
    return sorted(judges)


def evaluate_benchmark(bench_dir: Path, retrievers: Sequence[str] = ("bm25",),
                       rerankers: Sequence[str | Reranker] = (),
                       metrics: Sequence[str] = ("ndcg@10",),
                       run_files: Sequence[Path] = (), split: str = "test", depth: int = 100,
                       rerank_k: int = 50, group_field: str = "type", ann: bool = False,
                       cache_dir: Path | None = None, query_prefix: str = "",
                       passage_prefix: str = "", pipelines: Sequence[str] = (),
                       decomposers: Sequence[str | Decomposer] = ("fixed",),
                       fusions: Sequence[str] = ("sum",), engine=None, seed: int = 0,
                       bootstrap: int = 1000, trials: int = 10_000,
                       allow_untrusted: bool = False) -> EvalResults:
    """Run every retriever (each reranker and pipeline on each retriever's run) and every run
    file; score, add bootstrap CIs per mean and paired tests between systems (seeded).

    Qrels whose judge failed its control items (``judge_controls.json``) are refused
    (:class:`UntrustedLabels`, exit 8) unless ``allow_untrusted``; then every table says so.
    """
    bench_dir = Path(bench_dir)
    measures = parse_metrics(metrics)
    unknown = sorted(set(pipelines) - set(PIPELINES))
    if unknown:
        raise EvaluationInputError(f"unknown pipeline {unknown[0]!r}: use "
                                   f"{', '.join(PIPELINES)}")
    if "stage-aware" in pipelines and not rerankers:
        raise EvaluationInputError("--pipeline stage-aware reranks with each sub-query: give "
                                   "a --reranker too")
    warnings: list[str] = []
    untrusted = refuse_untrusted(bench_dir, split, allow_untrusted)
    bench, qrels, docs, all_queries = _load(bench_dir, split, measures, warnings)
    task_ids = multicon_task_queries(bench_dir)
    queries = [q for q in all_queries if q.query_id in qrels]
    task_queries = [q for q in all_queries if q.query_id in task_ids]
    infosearch = read_infosearch_modes(bench_dir) if is_infosearch_bench(bench_dir) else None
    if infosearch is not None and not any(group_field in q.metadata for q in queries):
        group_field = DIMENSION_FIELD
    groups = query_groups(list(queries), group_field)
    ctx = _Context(bench_dir, qrels, [m for m in measures if not m.is_paper],
                   [m for m in measures if m.is_paper], queries, groups,
                   {q.query_id: c for q in queries if (c := _conditions_of(q)) is not None},
                   infosearch, bootstrap, seed)
    results = EvalResults(
        bench=str(bench_dir), split=split, metrics=[str(m) for m in measures],
        group_field=group_field, queries=len(queries), docs=len(docs), warnings=warnings,
        provenance=qrels_provenance(bench), groups=_group_counts(queries, groups, group_field),
        settings={"depth": depth, "rerank_k": rerank_k, "seed": seed, "bootstrap": bootstrap,
                  "trials": trials, "pipelines": list(pipelines)},
        truth=truth_lines(bench_dir, split), untrusted_allowed=bool(untrusted))
    reranker_objects = [get_reranker(r) if isinstance(r, str) else r for r in rerankers]
    decomposer_objects = ([get_decomposer(d, engine) if isinstance(d, str) else d
                           for d in decomposers] if pipelines else [])
    docs_by_id = {doc.doc_id: doc for doc in docs}
    for spec in retrievers:
        retriever = get_retriever(spec, cache_dir, query_prefix, passage_prefix)
        start = time.perf_counter()
        retriever.index(docs)
        indexed = time.perf_counter()
        run = retriever.search(queries, depth)
        searched = time.perf_counter()
        task_run = retriever.search(task_queries, len(docs)) if task_queries else None
        seconds = {"index": indexed - start, "search": searched - indexed}
        mode_runs = None
        if infosearch is not None:
            mode_runs = search_modes(infosearch, run, retriever, depth)
            seconds["search_modes"] = time.perf_counter() - searched
        first = _score(results, ctx, retriever.name, run, "retriever", task_run, mode_runs,
                       seconds)
        if pipelines:
            first.diagnostics = first_stage_diagnostics(qrels, run, rerank_k)
        for reranker in reranker_objects:
            start = time.perf_counter()
            reranked, failed, reasons = _rerank(reranker, queries, docs_by_id, run, rerank_k)
            name = f"{retriever.name}>{reranker.name}"
            reranked_modes = None
            if mode_runs is not None:
                reranked_modes = {"og": Run(name, reranked.scores)}
                for mode in ("changed", "reversed"):
                    mode_run, mode_failed, mode_reasons = _rerank(
                        reranker, infosearch.queries[mode], docs_by_id, mode_runs[mode],
                        rerank_k)
                    reranked_modes[mode] = Run(name, mode_run.scores)
                    failed += mode_failed
                    for reason, count in mode_reasons.items():
                        reasons[reason] = reasons.get(reason, 0) + count
            _score(results, ctx, name, Run(name, reranked.scores), "reranked", None,
                   reranked_modes, {"rerank": time.perf_counter() - start},
                   {"reranker": failed}, reasons)
        _run_pipelines(results, ctx, pipelines, retriever, run, reranker_objects,
                       decomposer_objects, fusions, docs_by_id, depth, rerank_k)
        if ann and spec.startswith("dense"):
            results.ann.append(_ann_check(spec, docs, queries, qrels, depth, cache_dir,
                                          (query_prefix, passage_prefix)))
    for path in run_files:
        run = read_trec_run(path, docs_by_id.keys())
        _score(results, ctx, run.name, run, "run file")
    _significance(results, trials, seed)
    results.warnings.extend(separation_warnings(results.systems, results.metrics,
                                                results.queries, results.significance))
    return results


PIPELINES = ("stage-aware", "decomposed")


def _run_pipelines(results: EvalResults, ctx: _Context, pipelines: Sequence[str], retriever,
                   run: Run, rerankers: Sequence[Reranker], decomposers: Sequence[Decomposer],
                   fusions: Sequence[str], docs_by_id: dict[str, Doc], depth: int,
                   rerank_k: int) -> None:
    """Stage-aware reranking and decomposed retrieval (stage_aware_decomposition.txt)."""
    for decomposer, fusion in itertools.product(decomposers, fusions):
        before, reasons = len(getattr(decomposer, "failures", [])), _reasons(decomposer)
        if "decomposed" in pipelines:
            start = time.perf_counter()
            fused = decomposed_retrieve(ctx.queries, retriever, decomposer, fusion, depth)
            failed = len(getattr(decomposer, "failures", [])) - before
            system = _score(results, ctx, fused.name, fused, "pipeline", seconds={
                "pipeline": time.perf_counter() - start}, failures={"decomposer": failed},
                reasons=_since(reasons, decomposer))
            system.diagnostics = first_stage_diagnostics(ctx.qrels, fused, rerank_k)
        if "stage-aware" not in pipelines:
            continue
        for reranker in rerankers:
            before = len(getattr(decomposer, "failures", []))
            calls = getattr(reranker, "failed_calls", 0)
            reasons = _reasons(decomposer, reranker)
            start = time.perf_counter()
            staged = stage_aware_rerank(ctx.queries, docs_by_id, run, reranker, decomposer,
                                        fusion, rerank_k)
            failed = {"decomposer": len(getattr(decomposer, "failures", [])) - before,
                      "reranker": getattr(reranker, "failed_calls", 0) - calls}
            _score(results, ctx, staged.name, staged, "pipeline",
                   seconds={"pipeline": time.perf_counter() - start}, failures=failed,
                   reasons=_since(reasons, decomposer, reranker))
