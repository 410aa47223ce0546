"""Evaluate retrievers (and rerankers on top of them) on a benchmark folder, end to end.

Used by ``irforge eval`` and the demo: read the BEIR files, index, search, rerank, score every
metric per query, per query group and per paper task, and time each stage.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from irforge.bench import Benchmark
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
from irforge.eval.metrics.registry import Measure, parse_metrics
from irforge.eval.retrievers import get_reranker, get_retriever
from irforge.eval.task_metrics import lsnc_metrics, multicon_metrics, multicon_task_queries
from irforge.eval.trec_io import read_trec_run
from irforge.records import Doc, Query, Run


@dataclass
class SystemResult:
    """Everything measured for one system (a retriever, a reranked run or a run file)."""

    name: str
    means: dict[str, float]
    per_query: dict[str, dict[str, float]]
    per_group: dict[str, dict[str, float]] = field(default_factory=dict)
    per_conditions: dict[str, dict[str, float]] = field(default_factory=dict)
    tasks: dict[str, Any] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


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


def _score(results: EvalResults, name: str, run: Run, qrels, measures: list[Measure],
           queries: Sequence[Query], bench_dir: Path, task_run: Run | None,
           seconds: dict[str, float]) -> None:
    per_query = evaluate_per_query(qrels, run, measures)
    groups = query_groups(list(queries), results.group_field)
    conditions = {q.query_id: c for q in queries if (c := _conditions_of(q)) is not None}
    tasks = lsnc_metrics(bench_dir, run.scores)
    if task_run is not None:
        tasks.update(multicon_metrics(bench_dir, task_run.scores))
    results.systems.append(SystemResult(
        name=name, means=mean_scores(per_query), per_query=per_query,
        per_group=group_means(per_query, groups), per_conditions=group_means(per_query,
                                                                            conditions),
        tasks=tasks, seconds=seconds))
    results.runs[name] = run


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
    ndcg = {mode: mean_scores(evaluate_per_query(qrels, run, ["ndcg@10"]))["ndcg@10"]
            for mode, run in runs.items()}
    return {"retriever": spec, "k": k,
            "recall_at_10": _list_recall(exact, ann, 10),
            f"recall_at_{k}": _list_recall(exact, ann, k),
            "ndcg@10_exact": ndcg["dense"], "ndcg@10_ann": ndcg["dense-hnsw"],
            "ndcg@10_drop": ndcg["dense"] - ndcg["dense-hnsw"],
            "search_seconds_exact": seconds["dense"], "search_seconds_ann": seconds["dense-hnsw"]}


def _add_infosearch(results: EvalResults, name: str, modes: InfoSearchModes,
                    runs: dict[str, Run]) -> None:
    """SICR, WISE, p-MRR, Robustness@k of the last scored system; its mode runs are kept."""
    results.systems[-1].tasks["infosearch"] = infosearch_results(modes, runs,
                                                                 results.metrics[0])
    for mode in ("changed", "reversed"):
        results.runs[f"{name}.{mode}"] = runs[mode]


def _list_recall(exact: list[list[str]], ann: list[list[str]], k: int) -> float:
    hits = [len(set(e[:k]) & set(a[:k])) / max(len(e[:k]), 1) for e, a in
            zip(exact, ann, strict=True)]
    return sum(hits) / len(hits) if hits else 0.0


def evaluate_benchmark(bench_dir: Path, retrievers: Sequence[str] = ("bm25",),
                       rerankers: Sequence[str] = (), metrics: Sequence[str] = ("ndcg@10",),
                       run_files: Sequence[Path] = (), split: str = "test", depth: int = 100,
                       rerank_k: int = 50, group_field: str = "type", ann: bool = False,
                       cache_dir: Path | None = None, query_prefix: str = "",
                       passage_prefix: str = "") -> EvalResults:
    """Run every retriever (and each reranker on each retriever's run) and every run file."""
    bench_dir = Path(bench_dir)
    measures = parse_metrics(metrics)
    bench = Benchmark(bench_dir)
    qrels = bench.qrels_dict(split)
    if not any(qrels.values()):
        raise EvaluationInputError(f"{bench.qrels_path(split)} has no qrels: nothing to "
                                   "evaluate (generate queries and qrels first)")
    docs = list(bench.corpus())
    task_ids = multicon_task_queries(bench_dir)
    all_queries = list(bench.queries())
    queries = [q for q in all_queries if q.query_id in qrels]
    task_queries = [q for q in all_queries if q.query_id in task_ids]
    infosearch = read_infosearch_modes(bench_dir) if is_infosearch_bench(bench_dir) else None
    if infosearch is not None and not any(group_field in q.metadata for q in queries):
        group_field = DIMENSION_FIELD
    results = EvalResults(bench=str(bench_dir), split=split, metrics=[str(m) for m in measures],
                          group_field=group_field, queries=len(queries), docs=len(docs))
    reranker_objects = [get_reranker(spec) for spec in rerankers]
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
        _score(results, retriever.name, run, qrels, measures, queries, bench_dir, task_run,
               seconds)
        if mode_runs is not None:
            _add_infosearch(results, retriever.name, infosearch, mode_runs)
        for reranker in reranker_objects:
            start = time.perf_counter()
            reranked = reranker.rerank(queries, docs_by_id, run, rerank_k)
            name = f"{retriever.name}>{reranker.name}"
            _score(results, name, Run(name, reranked.scores), qrels, measures, queries,
                   bench_dir, None, {"rerank": time.perf_counter() - start})
            if mode_runs is not None:
                reranked_modes = {mode: Run(name, reranker.rerank(
                    infosearch.queries[mode], docs_by_id, mode_runs[mode], rerank_k).scores)
                    for mode in ("changed", "reversed")}
                _add_infosearch(results, name, infosearch,
                                {"og": Run(name, reranked.scores), **reranked_modes})
        if ann and spec.startswith("dense"):
            results.ann.append(_ann_check(spec, docs, queries, qrels, depth, cache_dir,
                                          (query_prefix, passage_prefix)))
    for path in run_files:
        run = read_trec_run(path, docs_by_id.keys())
        _score(results, run.name, run, qrels, measures, queries, bench_dir, None, {})
    return results
