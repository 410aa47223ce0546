"""``irforge eval BENCH_DIR``: run retrievers and rerankers, score, write runs and a report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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
        "--metric", "-m", help="ndcg@10, recall@100, p@5, map, mrr, judged@10 (repeatable).")]
    = None,
    run_file: Annotated[list[Path] | None, typer.Option(
        "--run", help="Also score an existing TREC run file (repeatable).")] = None,
    split: Annotated[str, typer.Option(help="Qrels split: qrels/<split>.tsv.")] = "test",
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
    out: Annotated[Path | None, typer.Option(
        help="Output folder (default BENCH_DIR/eval).")] = None,
    plots: Annotated[bool, typer.Option(help="Write matplotlib plots.")] = True,
    ray: Annotated[str | None, typer.Option(
        "--ray", envvar="IRFORGE_RAY_ADDRESS",
        help="Encode and search with dense retrievers on a Ray cluster: HOST:PORT of its "
        "head or 'local' (needs irforge[ray]; see docs/scale.md).")] = None,
) -> None:
    """Evaluate retrievers on a benchmark: TREC runs, results.json, table, plots, report.

    InfoSearch folders (irforge build instructions) also get SICR, WISE, p-MRR, Robustness@10.
    """
    from rich.console import Console

    from irforge.eval.report import rich_table, write_outputs
    from irforge.eval.runner import evaluate_benchmark
    from irforge.scale.executor import cluster

    with cluster(ray):
        results = evaluate_benchmark(
            bench_dir, retrievers=retriever or ["bm25"], rerankers=reranker or [],
            metrics=metric or DEFAULT_METRICS, run_files=run_file or [], split=split,
            depth=depth, rerank_k=rerank_k, group_field=group_field, ann=ann,
            cache_dir=bench_dir / ".irforge" / "embeddings", query_prefix=query_prefix,
            passage_prefix=passage_prefix)
    written = write_outputs(results, out or bench_dir / "eval", plots=plots)
    console = Console()
    console.print(rich_table(results))
    for check in results.ann:
        console.print(f"exact vs HNSW ({check['retriever']}): recall@10 "
                      f"{check['recall_at_10']:.4f}, nDCG@10 drop {check['ndcg@10_drop']:+.4f}")
    console.print(f"report: {written['report']}  results: {written['results']}")
