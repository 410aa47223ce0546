"""``irforge eval BENCH_DIR``: run retrievers and rerankers, score, write runs and a report.

On a run folder every benchmark (method folder) in it is evaluated, and one combined report
is written (irforge/eval/collection.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.options import ApiBaseOption, ModelOption, require_bench_dir
from irforge.cli.output import JsonOption, emit, table_console

DEFAULT_METRICS = ["ndcg@10", "recall@100", "map", "mrr"]

BenchDir = Annotated[Path, typer.Argument(
    help="Benchmark folder (BEIR layout), or a run folder (every method folder in it).")]
Retrievers = Annotated[list[str] | None, typer.Option(
    "--retriever", "-r", help="bm25, bm25:okapi, dense, dense:PATH_OR_NAME, "
    "dense-hnsw:PATH (repeatable).")]
Rerankers = Annotated[list[str] | None, typer.Option(
    "--reranker", help="cross-encoder:PATH, llm-pointwise[:GGUF], llm-pointwise-hf:PATH, "
    "llm-listwise[:MODEL] (repeatable; applied to every retriever).")]
Metrics = Annotated[list[str] | None, typer.Option(
    "--metric", "-m", help="Any registered measure (repeatable): ndcg@10, recall@100, p@5, "
    "map, mrr, rprec, bpref, success@10, judged@10, trec_eval and pytrec_eval names "
    "(ndcg_cut_10, ndcg_cut.10, P_5, P.5, recip_rank), and the papers' wise, sicr, p-mrr, "
    "robustness@10, lsnc@100, wr@k, awr, flip-rate, recall-failure@50, easy-negative@50 "
    "(docs/eval.md).")]
RunFiles = Annotated[list[Path] | None, typer.Option(
    "--run", help="Also score an existing TREC run file (repeatable).")]
Split = Annotated[str, typer.Option(
    "--qrels", "--split", help="Qrels split to score: qrels/<NAME>.tsv. test: the LLM "
    "labels; human: people's labels (annotate pull/import-tasks); adjudicated: both "
    "(qrels merge).")]
Depth = Annotated[int, typer.Option(help="Documents retrieved per query.")]
RerankK = Annotated[int, typer.Option(help="Top documents each reranker rescores.")]
GroupField = Annotated[str, typer.Option(
    help="Query metadata field for per-group results (ComLQ: type; InfoSearch folders "
    "fall back to dimension).")]
Ann = Annotated[bool, typer.Option(
    "--ann", help="Also compare exact and HNSW search for each dense retriever.")]
QueryPrefix = Annotated[str, typer.Option(
    help="Text put before every query for dense models (e5: 'query: ').")]
PassagePrefix = Annotated[str, typer.Option(
    help="Text put before every passage for dense models (e5: 'passage: ').")]
Pipelines = Annotated[list[str] | None, typer.Option(
    "--pipeline", help="Stage-aware decomposition pipelines (repeatable): stage-aware "
    "(rerank the top k with each sub-query, fuse; needs --reranker) and decomposed "
    "(each sub-query retrieves, fuse).")]
Decomposers = Annotated[list[str] | None, typer.Option(
    "--decomposer", help="naive, fixed, fixed:K-J, adaptive (LLM; --model/--api-base) "
    "(repeatable; default fixed).")]
Fusions = Annotated[list[str] | None, typer.Option(
    "--fusion", help="rrf or sum (repeatable; default sum).")]
Seed = Annotated[int, typer.Option(help="Seed of the bootstrap and randomization test.")]
Bootstrap = Annotated[int, typer.Option(help="Bootstrap resamples per mean.")]
Trials = Annotated[int, typer.Option(
    help="Randomization-test draws (exact enumeration up to 16 queries).")]
Out = Annotated[Path | None, typer.Option(
    help="Output folder (default BENCH_DIR/eval; for a run folder OUT/<method>).")]
Plots = Annotated[bool, typer.Option(help="Write matplotlib plots.")]
Replace = Annotated[bool, typer.Option(
    "--replace", help="Replace an earlier evaluation of other systems or another split in "
    "the output folder (without it, eval refuses to drop those results).")]
Device = Annotated[str, typer.Option(
    help="Device of dense encoders and local rerankers: auto (CUDA when torch sees a GPU, "
    "else CPU), cpu, cuda, cuda:N.")]
Dtype = Annotated[str, typer.Option(
    help="Model precision: auto (bf16 on GPUs that have it, else fp16; fp32 on CPU), "
    "float32, bfloat16, float16.")]
BatchSize = Annotated[int | None, typer.Option(
    min=1, help="Most passages per dense encoding batch (default 64 on CPU, 1024 on a GPU).")]
BatchTokens = Annotated[int | None, typer.Option(
    min=1, help="Most tokens (rows x longest) per dense encoding batch (default 8192 on "
    "CPU, 262144 on a GPU).")]
AllowUntrusted = Annotated[bool, typer.Option(
    "--allow-untrusted-qrels", help="Score qrels whose LLM judge failed its control items "
    "(judge_controls.json); refused otherwise (exit 8). Every table then says so.")]
Ray = Annotated[str | None, typer.Option(
    "--ray", envvar="IRFORGE_RAY_ADDRESS",
    help="Encode and search with dense retrievers on a Ray cluster: HOST:PORT of its "
    "head or 'local' (needs irforge[ray]; see docs/scale.md).")]


def eval_command(
    bench_dir: BenchDir, retriever: Retrievers = None, reranker: Rerankers = None,
    metric: Metrics = None, run_file: RunFiles = None, split: Split = "test",
    depth: Depth = 100, rerank_k: RerankK = 50, group_field: GroupField = "type",
    ann: Ann = False, query_prefix: QueryPrefix = "", passage_prefix: PassagePrefix = "",
    pipeline: Pipelines = None, decomposer: Decomposers = None, fusion: Fusions = None,
    model: ModelOption = None, api_base: ApiBaseOption = None, seed: Seed = 0,
    bootstrap: Bootstrap = 1000, trials: Trials = 10_000, out: Out = None,
    plots: Plots = True, replace: Replace = False, ray: Ray = None,
    device: Device = "auto", dtype: Dtype = "auto", batch_size: BatchSize = None,
    batch_tokens: BatchTokens = None, allow_untrusted_qrels: AllowUntrusted = False,
    as_json: JsonOption = False,
) -> None:
    """Evaluate retrievers on a benchmark: TREC runs, results.json, table, plots, report.

    InfoSearch folders (irforge build instructions) also get SICR, WISE, p-MRR, Robustness@10.
    """
    from irforge.eval.collection import EvalOptions, evaluate_folders
    from irforge.scale.executor import cluster

    require_bench_dir(bench_dir)

    options = EvalOptions(
        retrievers=retriever or ["bm25"], rerankers=reranker or [],
        metrics=metric or DEFAULT_METRICS, run_files=run_file or [], split=split, depth=depth,
        rerank_k=rerank_k, group_field=group_field, ann=ann, query_prefix=query_prefix,
        passage_prefix=passage_prefix, pipelines=pipeline or [],
        decomposers=decomposer or ["fixed"], fusions=fusion or ["sum"], seed=seed,
        bootstrap=bootstrap, trials=trials, plots=plots, replace=replace,
        allow_untrusted=allow_untrusted_qrels)
    engine = None
    if any(d.startswith("adaptive") for d in options.decomposers):
        from irforge.llm.options import engine_from_options

        engine = engine_from_options(model=model, api_base=api_base, progress=False)
    from irforge.retrievers.device import encode_options, placement

    if ray is None and device != "auto":
        placement(device, dtype)  # a device that is not here fails before any work
    with cluster(ray), encode_options(device=device, dtype=dtype, batch_size=batch_size,
                                      batch_tokens=batch_tokens):
        outcomes, combined = evaluate_folders(bench_dir, options, out, engine)
    if as_json:
        emit(_json(outcomes, combined), "", as_json=True)
    else:
        _print(outcomes, combined)
    outcomes.raise_if_failed()


def _summary(done) -> dict:
    results = done.results
    return {"bench": results.bench, "split": results.split, "queries": results.queries,
            "docs": results.docs, "metrics": results.metrics,
            "systems": {s.name: s.means for s in results.systems}, "ann": results.ann,
            "failures": {s.name: s.failure_count for s in results.systems},
            "warnings": list(results.warnings), "outputs": done.written,
            "verdict": results.truth, "untrusted_qrels_allowed": results.untrusted_allowed}


def _json(outcomes, combined: dict) -> dict:
    if not combined:
        return _summary(outcomes.done[0][1])
    return {"benchmarks": {name: {**_summary(done), "skipped": done.skipped}
                           for name, done in outcomes.done},
            "failed": {name: str(error) for name, error in outcomes.failed},
            "outputs": combined}


def _print(outcomes, combined: dict) -> None:
    from irforge.eval.report import rich_table

    console = table_console()
    errors = table_console(stderr=True)
    for name, done in outcomes.done:
        results = done.results
        if combined:
            console.print(f"[bold]{name}[/bold]")
        for line in results.truth:
            console.print(line, markup=False)
        for warning in [*results.warnings, *done.skipped]:
            errors.print(f"warning: {warning}", markup=False)
        console.print(rich_table(results))
        for system in results.systems:
            if system.failure_count:
                errors.print(f"warning: {system.name}: {system.failure_count} model call(s) "
                             f"failed ({system.failures}); see the report", markup=False)
            for metric, why in system.not_computed.items():
                errors.print(f"note: {system.name}: {metric} not computed: {why}", markup=False)
        for check in results.ann:
            console.print(f"exact vs HNSW ({check['retriever']}): recall@10 "
                          f"{check['recall_at_10']:.4f}, nDCG@10 drop "
                          f"{check['ndcg@10_drop']:+.4f}")
        console.print(f"report: {done.written['report']}  results: {done.written['results']}")
    if combined:
        console.print(f"combined report: {combined['report']}  ({len(outcomes.done)} "
                      f"benchmarks, {len(outcomes.failed)} failed)")
