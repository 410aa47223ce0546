"""``irforge build intents``: a thin wrapper over :func:`build_intents`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
from irforge.llm.options import engine_from_options
from irforge.methods.contract import flag_defaults
from irforge.methods.intents import Config as IntentsConfig

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
        help="Categories: 'derived' (term clusters of the corpus, the default), 'disastir' "
             "(DisastIR's 8 disaster types) or a taxonomy YAML file.")]
    = INTENTS.taxonomy,
    intents_file: Annotated[Path | None, typer.Option(
        help="YAML file defining more intents or overriding built-in ones.")] = None,
    per_task: Annotated[int, typer.Option(help="Queries per intent x category task.")]
    = INTENTS.per_task,
    needs: Annotated[int, typer.Option(help="Information needs brainstormed per seed.")]
    = INTENTS.needs,
    seed: Annotated[int, typer.Option(help="Seed for passages, attributes and needs.")]
    = INTENTS.seed,
    target_k: TargetKOption = INTENTS.target_k,
    model: ModelOption = None, api_base: ApiBaseOption = None, cache: CacheOption = None,
    no_cache: NoCacheOption = False, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, rpm: RpmOption = None, tpm: TpmOption = None,
    max_tokens: MaxTokensOption = 400, prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
    keep_generated_passages: Annotated[bool, typer.Option(
        help="Add the LLM-written passages to the corpus as positives (only those grounded "
             "in their seed passage); off by default.")] = False,
) -> None:
    """Generate intent-driven queries (DisastIR 3.4): tasks = intents x categories."""
    from irforge.core import beir
    from irforge.core.bench import Benchmark
    from irforge.generators.intents import build_intents, load_intents, select_intents
    from irforge.generators.intents.build import source_docs
    from irforge.generators.intents.taxonomy import choose_taxonomy
    from irforge.methods import intents as method
    from irforge.methods.contract import validated
    from irforge.steps.runner import BuildRunner, target_line

    validated(method.Config, intents=split_names(intents), per_task=per_task, taxonomy=taxonomy,
              intents_file=intents_file, needs=needs, seed=seed,
              target_k=target_k)  # the recipe block's rules
    bench = Benchmark(bench_dir)
    source = corpus if corpus is not None else bench.corpus_path
    if source.is_dir():
        source = source / "corpus.jsonl"
    if not source.is_file():
        raise IrforgeError(f"corpus {source} not found (pass --corpus corpus.jsonl)")
    docs = list(beir.read_corpus(source))
    chosen = select_intents(load_intents(intents_file), split_names(intents))
    try:
        tax = choose_taxonomy(taxonomy, source_docs(docs), seed)
    except ValueError as exc:
        raise IrforgeError(f"{exc} (pass --taxonomy disastir or a taxonomy YAML file)") from exc
    if not as_json:
        typer.echo(tax.describe())
    with bench.writing(dry_run=dry_run), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency, rpm=rpm,
            tpm=tpm, cache=cache, no_cache=no_cache, prompts_dir=prompts_dir, timeout=timeout,
            price_per_mtok=price_per_mtok, max_tokens=max_tokens,
            bench_dir=bench_dir) as engine:
        runner = BuildRunner.open(engine, bench.root, "intents", target_k=target_k)
        run = build_intents(bench, engine, docs, chosen, tax, per_task, seed, needs, dry_run,
                            runner=runner, keep_generated=keep_generated_passages)
        estimate = run.estimate
        if estimate.get("too_long"):
            typer.echo(f"WARNING: {estimate['too_long']} prompts are past the model's "
                       f"context of {estimate['context_tokens']} tokens; those items "
                       "will be skipped and listed in failures.jsonl (shorten the passages, "
                       "e.g. re-chunk the corpus)", err=True)
        if dry_run and as_json:
            emit({"estimate": estimate}, "", as_json=True)
            return
        if not as_json:
            typer.echo(f"estimate: {estimate['requests']} requests, "
                       f"~{estimate['prompt_tokens']} prompt tokens, at most "
                       f"${estimate['max_cost_usd']:.4f} "
                       f"({'priced' if estimate['priced'] else 'no price known'})")
        if dry_run:
            return
    counts = run.counts
    if as_json:
        emit({"folder": bench_dir, **run.manifest()}, "", as_json=True)
    else:
        typer.echo(run.yields.render())
        if target_line(runner.validation()):
            typer.echo(target_line(runner.validation()))
        typer.echo(f"{counts['queries']} queries and {counts['generated_docs']} generated "
                   f"passages from {counts['planned']} planned over {counts['tasks']} tasks"
                   f"{grade_note(counts['demo_grade'])}; {counts['failures']} failures in "
                   f"{bench.failures_path}")
        if counts["empty_tasks"]:
            typer.echo(f"tasks with no seed passage: {', '.join(counts['empty_tasks'])}")
    runner.finish(counts["queries"], "intent queries")
