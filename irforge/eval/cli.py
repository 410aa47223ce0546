"""``irforge eval BENCH_DIR``: run retrievers and rerankers, score, write runs and a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.options import ApiBaseOption, ModelOption
from irforge.cli.output import JsonOption, emit

DEFAULT_METRICS = ["ndcg@10", "recall@100", "map", "mrr"]


def eval_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder (BEIR layout).")],
    retriever: Annotated[list[str] | None, typer.Option(
        "--retriever", "-r", help="bm25, bm25:okapi, dense, dense:PATH_OR_NAME, "
        "dense-hnsw:PATH (repeatable).")] = None,
    reranker: Annotated[list[str] | None, typer.Option(
        "--reranker", help="cross-encoder:PATH, llm-pointwise[:GGUF], llm-pointwise-hf:PATH, "
        "llm-listwise[:MODEL] (repeatable; applied to every retriever).")] = None,
    metric: Annotated[list[str] | None, typer.Option(
        "--metric", "-m", help="Any registered measure (repeatable): ndcg@10, recall@100, p@5, "
        "map, mrr, rprec, bpref, success@10, judged@10, trec_eval names (ndcg_cut_10, P_5, "
        "recip_rank), and the papers' wise, sicr, p-mrr, robustness@10, lsnc@100, wr@k, awr, "
        "flip-rate, recall-failure@50, easy-negative@50 (docs/eval.md).")]
    = None,
    run_file: Annotated[list[Path] | None, typer.Option(
        "--run", help="Also score an existing TREC run file (repeatable).")] = None,
    split: Annotated[str, typer.Option(
        "--qrels", "--split", help="Qrels split to score: qrels/<NAME>.tsv. test: the LLM "
        "labels; human: people's labels (annotate pull/import-tasks); adjudicated: both "
        "(qrels merge).")] = "test",
    depth: Annotated[int, typer.Option(help="Documents retrieved per query.")] = 100,
    rerank_k: Annotated[int, typer.Option(help="Top documents each reranker rescores.")] = 50,
    group_field: Annotated[str, typer.Option(
        help="Query metadata field for per-group results (ComLQ: type; InfoSearch folders "
        "fall back to dimension).")] = "type",
    ann: Annotated[bool, typer.Option(
        "--ann", help="Also compare exact and HNSW search for each dense retriever.")] = False,
    query_prefix: Annotated[str, typer.Option(
        help="Text put before every query for dense models (e5: 'query: ').")] = "",
    passage_prefix: Annotated[str, typer.Option(
        help="Text put before every passage for dense models (e5: 'passage: ').")] = "",
    pipeline: Annotated[list[str] | None, typer.Option(
        "--pipeline", help="Stage-aware decomposition pipelines (repeatable): stage-aware "
        "(rerank the top k with each sub-query, fuse; needs --reranker) and decomposed "
        "(each sub-query retrieves, fuse).")] = None,
    decomposer: Annotated[list[str] | None, typer.Option(
        "--decomposer", help="naive, fixed, fixed:K-J, adaptive (LLM; --model/--api-base) "
        "(repeatable; default fixed).")] = None,
    fusion: Annotated[list[str] | None, typer.Option(
        "--fusion", help="rrf or sum (repeatable; default sum).")] = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    seed: Annotated[int, typer.Option(help="Seed of the bootstrap and randomization test.")]
    = 0,
    bootstrap: Annotated[int, typer.Option(help="Bootstrap resamples per mean.")] = 1000,
    trials: Annotated[int, typer.Option(
        help="Randomization-test draws (exact enumeration up to 16 queries).")] = 10_000,
    out: Annotated[Path | None, typer.Option(
        help="Output folder (default BENCH_DIR/eval).")] = None,
    plots: Annotated[bool, typer.Option(help="Write matplotlib plots.")] = True,
    ray: Annotated[str | None, typer.Option(
        "--ray", envvar="IRFORGE_RAY_ADDRESS",
        help="Encode and search with dense retrievers on a Ray cluster: HOST:PORT of its "
        "head or 'local' (needs irforge[ray]; see docs/scale.md).")] = None,
    allow_untrusted_qrels: Annotated[bool, typer.Option(
        "--allow-untrusted-qrels", help="Score qrels whose LLM judge failed its control items "
        "(judge_controls.json); refused otherwise (exit 7). Every table then says so.")]
    = False,
    as_json: JsonOption = False,
) -> None:
    """Evaluate retrievers on a benchmark: TREC runs, results.json, table, plots, report.

    InfoSearch folders (irforge build instructions) also get SICR, WISE, p-MRR, Robustness@10.
    """
    from rich.console import Console

    from irforge.eval.report import rich_table, write_outputs
    from irforge.eval.runner import evaluate_benchmark
    from irforge.scale.executor import cluster

    engine = None
    if any(d.startswith("adaptive") for d in decomposer or []):
        from irforge.cli.options import engine_from_options

        engine = engine_from_options(model=model, api_base=api_base, progress=False)
    with cluster(ray):
        results = evaluate_benchmark(
            bench_dir, retrievers=retriever or ["bm25"], rerankers=reranker or [],
            metrics=metric or DEFAULT_METRICS, run_files=run_file or [], split=split,
            depth=depth, rerank_k=rerank_k, group_field=group_field, ann=ann,
            cache_dir=bench_dir / ".irforge" / "embeddings", query_prefix=query_prefix,
            passage_prefix=passage_prefix, pipelines=pipeline or [],
            decomposers=decomposer or ["fixed"], fusions=fusion or ["sum"], engine=engine,
            seed=seed, bootstrap=bootstrap, trials=trials,
            allow_untrusted=allow_untrusted_qrels)
    written = write_outputs(results, out or bench_dir / "eval", plots=plots)
    if as_json:
        emit({"bench": results.bench, "split": results.split, "queries": results.queries,
              "docs": results.docs, "metrics": results.metrics,
              "systems": {s.name: s.means for s in results.systems}, "ann": results.ann,
              "failures": {s.name: s.failure_count for s in results.systems},
              "warnings": list(results.warnings), "outputs": written, "verdict": results.truth,
              "untrusted_qrels_allowed": results.untrusted_allowed}, "", as_json=True)
        return
    console = Console()
    if not console.is_terminal:  # piped or captured: keep every column readable
        console = Console(width=160)
    errors = Console(stderr=True)
    for line in results.truth:
        console.print(line, markup=False)
    for warning in results.warnings:
        errors.print(f"warning: {warning}", markup=False)
    console.print(rich_table(results))
    for system in results.systems:
        if system.failure_count:
            errors.print(f"warning: {system.name}: {system.failure_count} model call(s) "
                         f"failed ({system.failures}); see the report", markup=False)
        for name, why in system.not_computed.items():
            errors.print(f"note: {system.name}: {name} not computed: {why}", markup=False)
    for check in results.ann:
        console.print(f"exact vs HNSW ({check['retriever']}): recall@10 "
                      f"{check['recall_at_10']:.4f}, nDCG@10 drop {check['ndcg@10_drop']:+.4f}")
    console.print(f"report: {written['report']}  results: {written['results']}")
