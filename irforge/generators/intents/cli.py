"""``irforge build intents``: its flags become the method's Config, then ``Method.run``
builds (``irforge.steps.verb``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.cli.options import (
    ApiBaseOption,
    BudgetOption,
    CacheOption,
    ConcurrencyOption,
    DryRunOption,
    ModelOption,
    NoCacheOption,
    PriceOption,
    PromptsDirOption,
    RpmOption,
    TargetKOption,
    TimeoutOption,
    TpmOption,
    grade_note,
)
from irforge.cli.output import JsonOption, emit
from irforge.core.errors import IrforgeError
from irforge.generators.intents.method import Config as IntentsConfig
from irforge.steps.method import flag_defaults

INTENTS = flag_defaults(IntentsConfig)  # the flags' defaults are the recipe block's

MaxTokensOption = Annotated[int, typer.Option(help="Completion token limit per call.")]


def split_names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def build_intents_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    corpus: Annotated[Path | None, typer.Option(
        help="Source corpus.jsonl (or a benchmark folder); default: BENCH_DIR's corpus.")] = None,
    intents: Annotated[str, typer.Option(help="Comma-separated intents, e.g. QA,FC.")]
    = INTENTS.intents,
    taxonomy: Annotated[str, typer.Option(
        help="Categories: 'derived' (the default: a capable model names them over a sample "
             "of documents, the small model's are term clusters of the corpus), 'lexical' "
             "(term clusters), 'disastir' (DisastIR's 8 disaster types) or a taxonomy YAML "
             "file.")]
    = INTENTS.taxonomy,
    intents_file: Annotated[Path | None, typer.Option(
        help="YAML file defining more intents or overriding built-in ones.")]
    = INTENTS.intents_file,
    per_task: Annotated[int, typer.Option(help="Queries per intent x category task.")]
    = INTENTS.per_task,
    needs: Annotated[int, typer.Option(help="Information needs brainstormed per seed.")]
    = INTENTS.needs,
    seed: Annotated[int, typer.Option(help="Seed for passages, attributes and needs.")]
    = INTENTS.seed,
    categories: Annotated[str, typer.Option(
        help="Comma-separated short ids of the taxonomy's categories to use (default: all).")]
    = INTENTS.categories,
    seed_prefixes: Annotated[str, typer.Option(
        help="Comma-separated passage-id prefixes: seed only from those passages.")]
    = INTENTS.seed_prefixes,
    query_style: Annotated[str, typer.Option(
        help="'default', or 'small-model' for a small local model (docs/intents.md).")]
    = INTENTS.query_style,
    target_k: TargetKOption = INTENTS.target_k,
    model: ModelOption = None, api_base: ApiBaseOption = None, cache: CacheOption = None,
    no_cache: NoCacheOption = False, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, rpm: RpmOption = None, tpm: TpmOption = None,
    max_tokens: MaxTokensOption = 1024, prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
    keep_generated_passages: Annotated[bool, typer.Option(
        help="Add the LLM-written passages to the corpus as positives (only those grounded "
             "in their seed passage); off by default.")] = INTENTS.keep_generated_passages,
) -> None:
    """Generate intent-driven queries (DisastIR 3.4): tasks = intents x categories."""
    from irforge.generators.intents.method import METHOD
    from irforge.steps.method import Inputs, validated
    from irforge.steps.verb import engine_flags, estimate_method, run_method

    engine = engine_flags(locals())
    config = validated(IntentsConfig, intents=split_names(intents), per_task=per_task,
                       taxonomy=taxonomy, intents_file=intents_file, needs=needs, seed=seed,
                       target_k=target_k, keep_generated_passages=keep_generated_passages,
                       categories=split_names(categories),
                       seed_prefixes=split_names(seed_prefixes), query_style=query_style)
    inputs = Inputs(corpus_file(bench_dir, corpus))
    if dry_run:
        tax, run = estimate_method(METHOD, bench_dir, config, inputs, engine)
        return show_estimate(tax, run.estimate, as_json)
    run_method(METHOD, bench_dir, config, inputs,
               lambda built, runner: show(built, runner, as_json), engine)


def corpus_file(bench_dir: Path, corpus: Path | None) -> Path:
    """The corpus to build from: ``--corpus`` (a file or a benchmark folder), else the
    folder's own ``corpus.jsonl``; a missing one is a usage error."""
    source = corpus if corpus is not None else Path(bench_dir) / "corpus.jsonl"
    source = source / "corpus.jsonl" if source.is_dir() else source
    if not source.is_file():
        raise IrforgeError(f"corpus {source} not found (pass --corpus corpus.jsonl)")
    return source


def show_estimate(tax: Any, estimate: dict[str, Any], as_json: bool) -> None:
    """The taxonomy, a warning for prompts past the context, and what the build costs."""
    if as_json:
        return emit({"estimate": estimate}, "", as_json=True)
    typer.echo(tax.describe())
    if estimate.get("too_long"):
        typer.echo(f"WARNING: {estimate['too_long']} prompts are past the model's "
                   f"context of {estimate['context_tokens']} tokens; those items "
                   "will be skipped and listed in failures.jsonl (shorten the passages, "
                   "e.g. re-chunk the corpus)", err=True)
    typer.echo(f"estimate: {estimate['requests']} requests, "
               f"~{estimate['prompt_tokens']} prompt tokens, at most "
               f"${estimate['max_cost_usd']:.4f} "
               f"({'priced' if estimate['priced'] else 'no price known'})")


def show(built: Any, runner: Any, as_json: bool) -> None:
    """The estimate, the yield table, the target depth and the counts (or them as JSON)."""
    from irforge.steps.runner import target_line

    tax, run = built.report
    if as_json:
        return emit({"folder": runner.bench.root, **run.manifest()}, "", as_json=True)
    show_estimate(tax, run.estimate, as_json)
    counts = run.counts
    typer.echo(run.yields.render())
    if target_line(runner.validation()):
        typer.echo(target_line(runner.validation()))
    typer.echo(f"{counts['queries']} queries and {counts['generated_docs']} generated "
               f"passages from {counts['planned']} planned over {counts['tasks']} tasks"
               f"{grade_note(counts['demo_grade'])}; {counts['failures']} failures in "
               f"{runner.bench.failures_path}")
    if counts["empty_tasks"]:
        typer.echo(f"tasks with no seed passage: {', '.join(counts['empty_tasks'])}")
