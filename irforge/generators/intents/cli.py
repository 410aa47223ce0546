"""``irforge build intents``: a thin wrapper over :func:`build_intents`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.cli_options import (
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
    TimeoutOption,
    TpmOption,
    engine_from_options,
    grade_note,
    raise_for_stop,
)
from irforge.cli_output import JsonOption, emit
from irforge.errors import IrforgeError

MaxTokensOption = Annotated[int, typer.Option(help="Completion token limit per call.")]


def split_names(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def build_intents_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    corpus: Annotated[Path | None, typer.Option(
        help="Source corpus.jsonl (or a benchmark folder); default: BENCH_DIR's corpus.")] = None,
    intents: Annotated[str, typer.Option(help="Comma-separated intents, e.g. QA,FC.")] = "QA",
    taxonomy: Annotated[Path | None, typer.Option(
        help="Category taxonomy YAML (default: DisastIR's 8 disaster categories).")] = None,
    intents_file: Annotated[Path | None, typer.Option(
        help="YAML file defining more intents or overriding built-in ones.")] = None,
    per_task: Annotated[int, typer.Option(help="Queries per intent x category task.")] = 2,
    needs: Annotated[int, typer.Option(help="Information needs brainstormed per seed.")] = 3,
    seed: Annotated[int, typer.Option(help="Seed for passages, attributes and needs.")] = 0,
    model: ModelOption = None, api_base: ApiBaseOption = None, cache: CacheOption = None,
    no_cache: NoCacheOption = False, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, rpm: RpmOption = None, tpm: TpmOption = None,
    max_tokens: MaxTokensOption = 768, prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    dry_run: DryRunOption = False,
    as_json: JsonOption = False,
) -> None:
    """Generate intent-driven queries (DisastIR 3.4): tasks = intents x categories."""
    from irforge import beir
    from irforge.bench import Benchmark
    from irforge.generators.intents import (
        build_intents,
        load_intents,
        load_taxonomy,
        select_intents,
    )

    bench = Benchmark(bench_dir)
    source = corpus if corpus is not None else bench.corpus_path
    if source.is_dir():
        source = source / "corpus.jsonl"
    if not source.is_file():
        raise IrforgeError(f"corpus {source} not found (pass --corpus corpus.jsonl)")
    docs = list(beir.read_corpus(source))
    chosen = select_intents(load_intents(intents_file), split_names(intents))
    tax = load_taxonomy(taxonomy)
    with bench.writing(dry_run=dry_run), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency, rpm=rpm,
            tpm=tpm, cache=cache, no_cache=no_cache, prompts_dir=prompts_dir, timeout=timeout,
            price_per_mtok=price_per_mtok, max_tokens=max_tokens,
            bench_dir=bench_dir) as engine:
        report = build_intents(bench, engine, docs, chosen, tax, per_task, seed, needs, dry_run)
        if report.estimate.get("too_long"):
            typer.echo(f"WARNING: {report.estimate['too_long']} prompts are past the model's "
                       f"context of {report.estimate['context_tokens']} tokens; those items "
                       "will be skipped and listed in failures.jsonl (shorten the passages, "
                       "e.g. re-chunk the corpus)", err=True)
        if dry_run and as_json:
            emit({"estimate": report.estimate}, "", as_json=True)
            return
        if not as_json:
            typer.echo(f"estimate: {report.estimate['requests']} requests, "
                       f"~{report.estimate['prompt_tokens']} prompt tokens, at most "
                       f"${report.estimate['max_cost_usd']:.4f} "
                       f"({'priced' if report.estimate['priced'] else 'no price known'})")
        if dry_run:
            return
        bench.record_step("intents", {
            "intents": [intent.name for intent in chosen], "taxonomy": tax.name,
            "categories": [c.name for c in tax.categories], "per_task": per_task,
            "needs": needs, "seed": seed, "corpus": str(source), **report.as_dict(),
            "engine": engine.manifest_entry()})
    grade = grade_note(report.demo_grade)
    if as_json:
        emit({"folder": bench_dir, **report.as_dict()}, "", as_json=True)
        return
    typer.echo(f"{report.queries} queries and {report.generated_docs} generated passages from "
               f"{report.planned} planned over {report.tasks} tasks{grade}; "
               f"{report.failures} failures in {bench.failures_path}")
    if report.empty_tasks:
        typer.echo(f"tasks with no seed passage: {', '.join(report.empty_tasks)}")
    raise_for_stop(engine)
