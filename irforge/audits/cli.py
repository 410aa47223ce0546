"""``irforge audit ...``: agreement and data audits over a benchmark folder."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.core.errors import EmptyResultError, IrforgeError

BenchDir = Annotated[Path, typer.Argument(help="Benchmark folder.", file_okay=False)]
MIN_KAPPA_ITEMS = 5  # fewer items: a kappa says nothing (0 or 1 by a single item), not shown


def _finite(value: Any) -> Any:
    """``None`` for NaN (JSON has no NaN), the value otherwise."""
    return None if isinstance(value, float) and not math.isfinite(value) else value


def _audit_dir(bench_dir: Path, out: Path | None) -> Path:
    folder = out or Path(bench_dir) / "audits"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _print_table(title: str, header: list[str], rows: list[list[Any]]) -> None:
    from rich.table import Table

    from irforge.cli.output import table_console

    table = Table(title=title)
    for name in header:
        table.add_column(name)
    for row in rows:
        table.add_row(*(f"{cell:.3f}" if isinstance(cell, float) else str(cell) for cell in row))
    table_console().print(table)


def job_judgments(judgments, task: str, queries=(), docs=()):
    """Judgments with the generator steps a labeling job reviews renamed to the job's task
    (``multicon.hard_negative`` -> ``hard_negative``, with the LLM's claim as its label), on
    the folder pair people labelled (an InfoSearch rewrite: the instructed query; a hard
    negative: the hard-negative passage; ``irforge.annotation.locate``)."""
    from dataclasses import replace

    from irforge.annotation.errors import AnnotationError
    from irforge.annotation.labeling import get_job
    from irforge.annotation.locate import Folder, locate

    try:
        job = get_job(task)
    except AnnotationError:  # not a built-in job: compare the task as named
        yield from judgments
        return
    folder = Folder({query.query_id: query for query in queries},
                    {doc.doc_id: doc for doc in docs})
    for judgment in judgments:
        if judgment.source == "llm" and judgment.task in job.generator_tasks:
            placed = locate(judgment, folder)
            if placed is None:  # it judged an item the build did not keep: nobody labels it
                continue
            yield replace(judgment, task=job.task, query_id=placed[0], doc_id=placed[1],
                          label=job.llm_label(judgment.task, float(judgment.label)))
        else:
            yield judgment


def _llm_human_pairs(bench, task: str, keys: list[str], tie_break: str) -> list:
    """Items with both an LLM and a human label of ``task``; none is a user error."""
    from irforge.validators.llm_agreement import pair_judgments

    queries = list(bench.queries()) if bench.queries_path.exists() else []
    docs = list(bench.corpus()) if bench.corpus_path.exists() else []
    try:
        pairs = pair_judgments(job_judgments(bench.judgments(), task, queries, docs), queries,
                               task=task, strata=keys, tie_break=tie_break)
    except IrforgeError:
        raise
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc
    if not pairs:
        raise IrforgeError(f"{bench.judgments_path}: no item has both an LLM and a human "
                           f"'{task}' label; run `irforge annotate pull` first")
    return pairs


def agreement(
    bench_dir: BenchDir,
    task: Annotated[str, typer.Option(help="Judgment task to compare.")] = "relevance",
    strata: Annotated[str, typer.Option(help="Comma-separated metadata keys to stratify by.")]
    = "intent,type",
    threshold: Annotated[float, typer.Option(help="Binarize: relevant when label > threshold "
                                             "(DisastIR 4.2 uses 0).")] = 0.0,
    graded: Annotated[bool, typer.Option(help="Compare graded labels instead of binarizing.")]
    = False,
    weights: Annotated[str, typer.Option(help="Kappa weights: none, linear or quadratic.")]
    = "none",
    tie_break: Annotated[str, typer.Option(help="Tie-break between annotators: median, lower, "
                                           "higher or first.")] = "median",
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the CI.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Output folder (default BENCH_DIR/audits).")]
    = None,
) -> None:
    """LLM vs human Cohen's kappa per stratum, per prompt and for the ensemble; table + plot."""
    from irforge.core.bench import Benchmark
    from irforge.core.jsonl import write_json
    from irforge.validators.llm_agreement import agreement_table, human_reliability
    from irforge.validators.plots import plot_agreement

    bench = Benchmark(bench_dir)
    keys = [key.strip() for key in strata.split(",") if key.strip()]
    if weights not in ("none", "linear", "quadratic"):
        raise IrforgeError(f"unknown --weights {weights!r}; use none, linear or quadratic")
    pairs = _llm_human_pairs(bench, task, keys, tie_break)
    kappa_weights = None if weights == "none" else weights
    rows = agreement_table(pairs, keys, None if graded else threshold, kappa_weights,  # type: ignore[arg-type]
                           resamples, seed)
    people = human_reliability(bench.judgments(), task)
    gold = gold_accuracy(bench, task)
    folder = _audit_dir(bench_dir, out)
    defined = [row for row in rows if math.isfinite(row.kappa) and row.n >= MIN_KAPPA_ITEMS]
    shown = {id(row) for row in defined}
    write_json(folder / f"agreement_{task}.json", {
        "human_reliability": {key: _finite(value) for key, value in people.items()},
        "gold_accuracy": gold, "min_kappa_items": MIN_KAPPA_ITEMS,
        "task": task, "pairs": len(pairs), "binarized": not graded, "threshold": threshold,
        "weights": weights, "resamples": resamples, "seed": seed,
        "rows": [{**{key: _finite(value) for key, value in row.as_dict().items()},
                  **({} if id(row) in shown else {"kappa": None, "low": None, "high": None})}
                 for row in rows]})
    plot = plot_agreement(defined, folder / f"agreement_{task}.png",
                          f"LLM vs human: {task}") if defined else None
    _show_agreement(rows, shown, len(pairs), people, gold)
    typer.echo(f"wrote {folder / f'agreement_{task}.json'}"
               + (f" and {plot}" if plot else " (no plot: no kappa is defined)"))


def _show_agreement(rows: list, shown: set[int], pairs: int, people: dict, gold: list) -> None:
    """The agreement table (rows without a defined kappa read "too few items"), people among
    themselves, and each annotator's accuracy on gold questions."""
    _print_table(f"LLM vs human agreement ({pairs} pairs)",
                 ["stratum", "value", "rater", "n", "kappa", "95% low", "95% high", "agree"],
                 [[r.stratum, r.value, r.rater, r.n, *(
                     (r.kappa, r.low, r.high) if id(r) in shown
                     else ("too few items", "-", "-")), r.agreement] for r in rows])
    if len(shown) < len(rows):
        typer.echo(f"no kappa in {len(rows) - len(shown)} of {len(rows)} rows: too few items "
                   f"(fewer than {MIN_KAPPA_ITEMS}; {pairs} with both an LLM and a human "
                   "label in all), or every label in one class, so chance agreement cannot be "
                   "estimated; annotate more items (`irforge annotate push --n ...`) and pull "
                   "again")
    typer.echo("people among themselves: " + ", ".join(
        (f"{key}={value:.3f}" if math.isfinite(value) else f"{key}=n/a (too few items)")
        if isinstance(value, float) else f"{key}={value}" for key, value in people.items()))
    if gold:
        _print_table("Annotators on gold questions (tasks with a known answer)",
                     ["annotator", "gold", "correct", "accuracy", "95% low", "95% high"],
                     [[g["annotator"], g["gold"], g["correct"], g["accuracy"], g["low"],
                       g["high"]] for g in gold])
    else:
        typer.echo("gold questions: none answered yet (annotate push/export-tasks mixes in "
                   "the job's gold items; pull them back to score annotators)")


def gold_accuracy(bench, task: str) -> list[dict]:
    """Each annotator's accuracy on the gold questions of ``task`` (empty when none)."""
    from irforge.annotation.gold import annotator_accuracy
    from irforge.core.jsonl import iter_jsonl

    path = bench.root / "annotation" / f"{task}_gold_answers.jsonl"
    return annotator_accuracy([row for _, row in iter_jsonl(path)]) if path.is_file() else []


def rankings(
    results_a: Annotated[Path | None, typer.Option(help="Eval results JSON, first setting.")]
    = None,
    results_b: Annotated[Path | None, typer.Option(help="Eval results JSON, second setting.")]
    = None,
    runs: Annotated[list[Path] | None, typer.Option(help="TREC run files (repeat).")] = None,
    qrels_a: Annotated[Path | None, typer.Option(help="Qrels TSV for the first ranking.")] = None,
    qrels_b: Annotated[Path | None, typer.Option(help="Qrels TSV for the second ranking "
                                                 "(default: same as --qrels-a).")] = None,
    queries_a: Annotated[Path | None, typer.Option(help="queries.jsonl subset for ranking A.")]
    = None,
    queries_b: Annotated[Path | None, typer.Option(help="queries.jsonl subset for ranking B.")]
    = None,
    metric: Annotated[str, typer.Option(help="Metric that ranks the systems.")] = "ndcg@10",
    resamples: Annotated[int, typer.Option(help="Bootstrap resamples for the CI.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    out: Annotated[Path | None, typer.Option(help="Write the comparison as JSON here.")] = None,
) -> None:
    """Kendall's tau between system rankings under two qrels sets or two query sets."""
    from irforge.core import beir
    from irforge.core.jsonl import write_json
    from irforge.core.records import qrels_to_dict
    from irforge.eval.run_scores import score_runs
    from irforge.validators.rankings import compare_rankings, load_results, read_trec_run

    if results_a and results_b:
        scores_a, scores_b = load_results(results_a, metric), load_results(results_b, metric)
    elif runs and qrels_a:
        loaded = [read_trec_run(path) for path in runs]
        first = qrels_to_dict(beir.read_qrels(qrels_a))
        second = qrels_to_dict(beir.read_qrels(qrels_b)) if qrels_b else first
        subset_a = {q.query_id for q in beir.read_queries(queries_a)} if queries_a else None
        subset_b = {q.query_id for q in beir.read_queries(queries_b)} if queries_b else None
        if qrels_b is None and subset_a is None and subset_b is None:
            raise IrforgeError("give --qrels-b or --queries-a/--queries-b: with one qrels file "
                               "and all queries both rankings would be the same")
        scores_a = score_runs(loaded, first, metric, subset_a)
        scores_b = score_runs(loaded, second, metric, subset_b)
    else:
        raise IrforgeError("give --results-a and --results-b, or --runs with --qrels-a "
                           "(and --qrels-b or --queries-a/--queries-b)")
    try:
        comparison = compare_rankings(scores_a, scores_b, metric, resamples, seed)
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc
    _print_table(f"System rankings by {metric}", ["system", "A", "B"],
                 [[name, a, b] for name, a, b in zip(comparison.systems, comparison.scores_a,
                                                     comparison.scores_b, strict=True)])
    k = comparison.kendall
    typer.echo(f"Kendall tau-b = {k.value:.4f} (95% CI {k.low:.4f}..{k.high:.4f}), "
               f"Spearman = {comparison.spearman:.4f}, systems = {len(comparison.systems)}")
    if out:
        write_json(out, comparison.as_dict())


def duplicates(
    bench_dir: BenchDir,
    out: Annotated[Path | None, typer.Option(help="Output folder (default BENCH_DIR/audits).")]
    = None,
) -> None:
    """Near-duplicate queries: the pairs the generation gates' duplicate rule rejects."""
    from irforge.audits.data import near_duplicate_queries
    from irforge.core.bench import Benchmark
    from irforge.core.jsonl import write_jsonl

    queries = list(Benchmark(bench_dir).queries())
    pairs = near_duplicate_queries(queries)
    path = _audit_dir(bench_dir, out) / "near_duplicate_queries.jsonl"
    write_jsonl(path, ({"query_a": p.query_a, "query_b": p.query_b,
                        "similarity": round(p.similarity, 4)} for p in pairs))
    typer.echo(f"{len(pairs)} near-duplicate pair(s) among {len(queries)} queries "
               f"(the same text or content words, or a small edit that changes no number; "
               f"the generation gates' rule); wrote {path}")


def overlap(
    bench_dir: BenchDir,
    split: Annotated[str, typer.Option(help="Qrels split giving sources when metadata lacks "
                                       "them.")] = "test",
    threshold: Annotated[float, typer.Option(help="Report the share of queries at or above "
                                             "this overlap.")] = 0.8,
    out: Annotated[Path | None, typer.Option(help="Output folder (default BENCH_DIR/audits).")]
    = None,
) -> None:
    """Lexical overlap between each query and its source passages (high overlap favors BM25)."""
    from irforge.audits.data import query_sources, source_overlap
    from irforge.core.bench import Benchmark
    from irforge.core.jsonl import write_json

    bench = Benchmark(bench_dir)
    queries = list(bench.queries())
    qrels = bench.qrels_dict(split) if bench.qrels_path(split).exists() else {}
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    report = source_overlap(queries, docs, query_sources(queries, qrels), threshold)
    if not report.per_query:  # nan% is no result
        raise EmptyResultError(f"no query of {bench.queries_path} ({len(queries)} queries) has "
                               f"a source passage (metadata or qrels/{split}.tsv): nothing to "
                               "measure")
    path = _audit_dir(bench_dir, out) / "query_source_overlap.json"
    write_json(path, {"mean": report.mean, "median": report.median,
                      "share_above": report.share_above, "threshold": threshold,
                      "per_query": report.per_query})
    typer.echo(f"{len(report.per_query)} queries with a source: mean overlap {report.mean:.3f}, "
               f"median {report.median:.3f}, {report.share_above:.1%} >= {threshold}; "
               f"wrote {path}")


def pool(
    bench_dir: BenchDir,
    runs: Annotated[list[Path], typer.Option(help="TREC run files (repeat).")],
    split: Annotated[str, typer.Option(help="Qrels split.")] = "test",
    k: Annotated[int, typer.Option(help="Depth for the unjudged rate.")] = 10,
) -> None:
    """Unjudged rate at k per run and the depth to which each run is fully judged."""
    from irforge.audits.data import pool_audit
    from irforge.core.bench import Benchmark
    from irforge.validators.rankings import read_trec_run

    bench = Benchmark(bench_dir)
    report = pool_audit([read_trec_run(path) for path in runs], bench.qrels_dict(split), k)
    if not report.queries:
        raise EmptyResultError(f"{bench.qrels_path(split)} judges no query: nothing to audit")
    _print_table(f"Pool audit ({report.queries} judged queries, mean pool "
                 f"{report.pool_size_mean:.1f})", ["run", f"unjudged@{k}", "judged depth"],
                 [[name, report.unjudged_at_k[name], report.judged_depth[name]]
                  for name in report.unjudged_at_k])
