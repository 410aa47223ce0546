"""CLI verbs: ``irforge build instructions`` and ``irforge build instructions-review``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.cli.options import (
    ApiBaseOption,
    BudgetOption,
    CacheOption,
    ConcurrencyOption,
    ModelOption,
    NoCacheOption,
    PriceOption,
    PromptsDirOption,
    RpmOption,
    TargetKOption,
    TimeoutOption,
    TpmOption,
)
from irforge.cli.output import JsonOption, emit
from irforge.generators.instructions.method import Config as InstructionsConfig
from irforge.steps.method import flag_defaults

INSTRUCTIONS = flag_defaults(InstructionsConfig)  # the flags' defaults are the recipe block's


def build_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    pairs: Annotated[Path | None, typer.Option(
        help="JSONL of positive pairs: query_id, query, doc_id, text, dimension, condition.")]
    = INSTRUCTIONS.pairs,
    corpus: Annotated[Path | None, typer.Option(
        help="A BEIR folder instead of --pairs: its positive qrels become the pairs and its "
             "corpus stays as distractors.")] = None,
    dimension: Annotated[str, typer.Option(
        help="Dimension for rows without one and for --corpus: audience, keyword, "
             "format, language, length, source, or one added with --dimensions.")]
    = INSTRUCTIONS.dimension,
    dimensions_file: Annotated[Path | None, typer.Option(
        "--dimensions", help="YAML adding or changing dimensions and values.")]
    = INSTRUCTIONS.dimensions_file,
    split: Annotated[str, typer.Option(help="Qrels split read with --corpus.")]
    = INSTRUCTIONS.split,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None,
    rpm: RpmOption = None,
    tpm: TpmOption = None,
    prompts_dir: PromptsDirOption = None, timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    max_tokens: Annotated[int, typer.Option(
        help="Longest answer per call (articles need about 800).")] = 1024,
    phrasings: Annotated[int, typer.Option(help="Instructed queries per condition.")]
    = INSTRUCTIONS.phrasings,
    hard_negatives: Annotated[int, typer.Option(help="Query hard negatives per core query.")]
    = INSTRUCTIONS.hard_negatives,
    rewrite: Annotated[bool, typer.Option(
        help="Rewrite documents into missing condition values (audience, length, source); "
             "with --no-rewrite, audience and source pairs need their condition given.")]
    = INSTRUCTIONS.rewrite,
    seed: Annotated[int, typer.Option(help="Seed for phrasings, user names, angles.")]
    = INSTRUCTIONS.seed,
    limit: Annotated[int | None, typer.Option(help="Use only the first N pairs.")]
    = INSTRUCTIONS.limit,
    target_k: TargetKOption = INSTRUCTIONS.target_k,
    as_json: JsonOption = False,
) -> None:
    """Build an InfoSearch-style benchmark (og / instructed / reversed modes) from pairs.

    Ends with the yield table; exits 3 when no unit was kept. A re-run for some queries or
    dimensions keeps the others already in the folder.
    """
    from irforge.generators.instructions.method import METHOD
    from irforge.steps.method import Inputs, validated
    from irforge.steps.verb import engine_flags, run_method

    engine = engine_flags(locals(), seed=seed)
    config = validated(InstructionsConfig, split=split, phrasings=phrasings,
                       hard_negatives=hard_negatives, rewrite=rewrite, seed=seed, limit=limit,
                       dimension=dimension, target_k=target_k, pairs=pairs,
                       dimensions_file=dimensions_file)
    run_method(METHOD, bench_dir, config, Inputs(bench_dir / "corpus.jsonl", corpus),
               lambda built, runner: show(built, runner, as_json), engine)


def show(built: Any, runner: Any, as_json: bool) -> None:
    """The summary, the yield table and the target depth (or them as JSON)."""
    from irforge.steps.runner import target_line

    report = built.report
    if runner.engine.demo_grade:
        typer.echo("note: using the embedded demo-grade model; expect many rejected items",
                   err=True)
    emit({"folder": runner.bench.root, "counts": report.counts,
          "failures": report.failures_by_step, "yield": report.yields.to_manifest()},
         f"wrote {runner.bench.root}: {report.summary()}\n{report.yields.render()}"
         f"\n{target_line(runner.validation())}".rstrip(), as_json)


def review_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder built by instructions.")],
    run: Annotated[list[Path], typer.Option(help="TREC run file; repeat for each retriever.")],
    mode: Annotated[str, typer.Option(help="Qrels mode to review: og, changed, reversed.")]
    = "og",
    rank_cutoff: Annotated[int, typer.Option(help="Flag positives ranked below this.")] = 50,
    min_low_runs: Annotated[int | None, typer.Option(
        help="Runs that must rank a positive low to flag it (default: half of them).")] = None,
    min_relevance: Annotated[float, typer.Option(
        help="Flag positives whose judged relevance (scaled to 0..1) is below this.")] = 0.5,
) -> None:
    """Flag anomalous positives (paper A.7) into instructions/review.jsonl for annotation."""
    from irforge.core.bench import Benchmark
    from irforge.generators.instructions.manual_review import read_trec_run, write_review_list

    runs = [read_trec_run(path) for path in run]
    path, count = write_review_list(Benchmark(bench_dir), runs, mode=mode,
                                    rank_cutoff=rank_cutoff, min_low_runs=min_low_runs,
                                    min_relevance=min_relevance)
    typer.echo(f"flagged {count} pair(s) for review: {path}")
