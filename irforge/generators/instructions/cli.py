"""CLI verbs: ``irforge build instructions`` and ``irforge build instructions-review``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
    engine_from_options,
)
from irforge.cli.output import JsonOption, emit
from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.methods.contract import flag_defaults
from irforge.methods.instructions import Config as InstructionsConfig

INSTRUCTIONS = flag_defaults(InstructionsConfig)  # the flags' defaults are the recipe block's


class InstructionsInputError(IrforgeError, ValueError):
    """The command line names no input, or two."""


def build_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    pairs: Annotated[Path | None, typer.Option(
        help="JSONL of positive pairs: query_id, query, doc_id, text, dimension, condition.")]
    = None,
    corpus: Annotated[Path | None, typer.Option(
        help="A BEIR folder instead of --pairs: its positive qrels become the pairs and its "
             "corpus stays as distractors.")] = None,
    dimension: Annotated[str, typer.Option(
        help="Dimension for rows without one and for --corpus: audience, keyword, "
             "format, language, length, source, or one added with --dimensions.")]
    = INSTRUCTIONS.dimension,
    dimensions_file: Annotated[Path | None, typer.Option(
        "--dimensions", help="YAML adding or changing dimensions and values.")] = None,
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
        help="Rewrite documents into missing condition values (audience, length, source).")]
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
    from irforge.generators.instructions.build import BuildSettings, build_instructions
    from irforge.generators.instructions.dimensions import load_dimensions
    from irforge.generators.instructions.pairs import PAIRS_STEP, pairs_from_beir, read_pairs
    from irforge.methods import instructions as method
    from irforge.methods.contract import validated
    from irforge.steps.runner import BuildRunner, target_line

    validated(method.Config, split=split, phrasings=phrasings, hard_negatives=hard_negatives,
              rewrite=rewrite, seed=seed, limit=limit, dimension=dimension, target_k=target_k)
    if (pairs is None) == (corpus is None):
        raise InstructionsInputError("give exactly one of --pairs PAIRS.jsonl or --corpus "
                                     "BEIR_DIR")
    dims = load_dimensions(dimensions_file)
    distractors = []
    skipped: list = []  # related passages that do not answer their core query
    if pairs is not None:
        chosen = read_pairs(pairs, dims, default_dimension=dimension)
    else:
        if dimension not in dims:
            raise InstructionsInputError(f"--dimension {dimension!r} is not one of "
                                         f"{', '.join(dims)}")
        chosen, distractors = pairs_from_beir(corpus, dimension, split, skipped)
        if not chosen:
            raise InstructionsInputError(f"{corpus}: no positive qrels in split {split!r} "
                                         "that answer their query (graded >= 2, or the "
                                         "query's source passage)")
    chosen = chosen[:limit] if limit else chosen
    settings = BuildSettings(phrasings=phrasings, hard_negatives=hard_negatives,
                             rewrite=rewrite, seed=seed)
    recipe = {"input": str(pairs or corpus), "split": split if corpus else None}
    with Benchmark(bench_dir).writing(), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency, rpm=rpm,
            tpm=tpm, cache=cache, no_cache=no_cache, prompts_dir=prompts_dir, timeout=timeout,
            price_per_mtok=price_per_mtok, max_tokens=max_tokens, seed=seed,
            bench_dir=bench_dir) as engine:
        if engine.demo_grade:
            typer.echo("note: using the embedded demo-grade model; expect many rejected items",
                       err=True)
        runner = BuildRunner.open(engine, bench_dir, "instructions", target_k=target_k)
        if corpus is not None:
            runner.ledger.count(PAIRS_STEP, len(chosen) + len(skipped), skipped)
        report = build_instructions(bench_dir, chosen, engine, dims, settings, distractors,
                                    recipe, runner)
    emit({"folder": bench_dir, "counts": report.counts, "failures": report.failures_by_step,
          "yield": report.yields.to_manifest()},
         f"wrote {bench_dir}: {report.summary()}\n{report.yields.render()}"
         f"\n{target_line(runner.validation())}".rstrip(), as_json)
    runner.finish(report.counts.get("units", 0), "instruction units")


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
