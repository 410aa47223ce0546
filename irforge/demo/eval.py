"""The demo's evaluation stage: BM25 and the embedded dense model on the demo benchmarks."""

from __future__ import annotations

from pathlib import Path

DEMO_METRICS = ("ndcg@10", "recall@100", "mrr", "judged@10")


def _has_qrels(folder: Path) -> bool:
    from irforge.core.bench import Benchmark

    bench = Benchmark(folder)
    return (bench.qrels_path("test").is_file() and bench.corpus_path.is_file()
            and any(bench.qrels_dict("test").values()))


def evaluate_folder(bench_dir: Path, retrievers: tuple[str, ...] = ("bm25", "dense")) -> str:
    """Evaluate one folder, print the rich table, write its report; a one-line summary. A
    folder whose qrels a judge labeled after failing its controls is not scored (said so)."""
    from irforge.cli.output import table_console
    from irforge.core.trust import untrusted_judges

    untrusted = untrusted_judges(bench_dir, "test")
    if untrusted:
        lines = [line for entry in untrusted.values() for line in entry.get("lines", [])]
        table_console().print(f"NOT SCORED: {bench_dir}: its qrels were labeled by a judge that "
                        f"failed its control items ({'; '.join(lines)})", markup=False)
        return (f"{bench_dir}: not scored (judge {', '.join(untrusted)} failed its controls; "
                "judge_controls.json)")
    from irforge.eval.report import rich_table, write_outputs
    from irforge.eval.runner import evaluate_benchmark

    results = evaluate_benchmark(bench_dir, retrievers, metrics=DEMO_METRICS,
                                 cache_dir=Path(bench_dir) / ".irforge" / "embeddings")
    written = write_outputs(results, Path(bench_dir) / "eval")
    table_console().print(rich_table(results))
    if any(system.per_group for system in results.systems):
        table_console().print(group_table(results))
    scores = ", ".join(f"{s.name} nDCG@10={s.means['ndcg@10']:.3f}" for s in results.systems)
    return f"{bench_dir}: {scores} on {results.queries} queries; report {written['report']}"


def group_table(results, metric: str = "ndcg@10"):
    """A rich Table of ``metric`` per query group (metadata ``results.group_field``)."""
    from rich.table import Table

    from irforge.eval.report import table_flags

    groups = sorted({group for system in results.systems for group in system.per_group})
    flags = table_flags(results)
    table = Table(title=(f"{flags}\n" if flags else "") + f"{metric} per {results.group_field}")
    table.add_column("system")
    for group in groups:
        table.add_column(group, justify="right")
    for system in results.systems:
        table.add_row(system.name, *(f"{system.per_group[g][metric]:.4f}"
                                     if g in system.per_group else "-" for g in groups))
    return table


SEED = "seed"


def generated_queries(folder: Path) -> int:
    """How many of a folder's queries a generator wrote (hand-written ones are flagged)."""
    from irforge.core.bench import Benchmark

    bench = Benchmark(folder)
    if Path(folder).name == SEED or not bench.queries_path.is_file():
        return 0
    return sum(1 for query in bench.queries() if not query.metadata.get("hand_written"))


def benchmark_folders(out: Path) -> list[Path]:
    """Every benchmark folder in the demo folder (itself and up to two levels down) with qrels."""
    out = Path(out)
    if not out.is_dir():
        return []
    candidates = [out, *sorted(p for p in out.glob("*") if p.is_dir()),
                  *sorted(p for p in out.glob("*/*") if p.is_dir())]
    return [folder for folder in candidates if _has_qrels(folder)]


def run_eval_stage(out: Path, retrievers: tuple[str, ...] = ("bm25", "dense")) -> str:
    """Evaluate the generated benchmarks, then the hand-written seed set as its own table;
    skip (saying why) when no folder has qrels yet."""
    from irforge.cli.output import table_console

    out = Path(out)
    ready = benchmark_folders(out)
    if not ready:
        return (f"skipped: no qrels in {out / 'qrels' / 'test.tsv'} or its sub-folders yet "
                "(query-generation stages write them); then run: irforge eval BENCH_DIR")
    generated = [folder for folder in ready if generated_queries(folder)]
    seed = [folder for folder in ready if not generated_queries(folder)]
    parts = []
    if generated:
        table_console().rule("Generated queries (LLM-built benchmarks)")
        parts.append("generated: " + "; ".join(evaluate_folder(f, retrievers)
                                               for f in generated))
    else:
        parts.append("generated: no generated benchmark has qrels to score")
    for folder in seed:
        table_console().rule(f"Hand-written queries in {folder} (not generated; a reference table)")
        parts.append("hand-written: " + evaluate_folder(folder, retrievers))
    return " | ".join(parts)


def stage_eval(ctx) -> str:
    """Demo stage (``irforge.demo.STAGES``): evaluate the demo folder ``ctx.out``."""
    return run_eval_stage(Path(ctx.out))
