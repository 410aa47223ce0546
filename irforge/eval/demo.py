"""The demo's evaluation stage: BM25 and the embedded dense model on the demo benchmark."""

from __future__ import annotations

from pathlib import Path

DEMO_METRICS = ("ndcg@10", "recall@100", "mrr", "judged@10")


def run_eval_stage(bench_dir: Path, retrievers: tuple[str, ...] = ("bm25", "dense")) -> str:
    """Evaluate, print the rich table, write the report; skip (saying why) without qrels."""
    from rich.console import Console

    from irforge.bench import Benchmark
    from irforge.eval.report import rich_table, write_outputs
    from irforge.eval.runner import evaluate_benchmark

    bench = Benchmark(bench_dir)
    qrels_path = bench.qrels_path("test")
    if not qrels_path.is_file() or not any(bench.qrels_dict("test").values()):
        return (f"skipped: no qrels in {qrels_path} yet (a query-generation stage writes "
                "them); then run: irforge eval " + str(bench_dir))
    results = evaluate_benchmark(bench_dir, retrievers, metrics=DEMO_METRICS,
                                 cache_dir=Path(bench_dir) / ".irforge" / "embeddings")
    written = write_outputs(results, Path(bench_dir) / "eval")
    Console().print(rich_table(results))
    scores = ", ".join(f"{s.name} nDCG@10={s.means['ndcg@10']:.3f}" for s in results.systems)
    return f"{scores} on {results.queries} queries; report {written['report']}"


def stage_eval(ctx) -> str:
    """Demo stage (``irforge.demo.STAGES``): evaluate the demo folder ``ctx.out``."""
    return run_eval_stage(Path(ctx.out))
