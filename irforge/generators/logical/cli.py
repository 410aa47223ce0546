"""CLI verb ``irforge build logical``: a thin wrapper over :func:`build_logical`."""

from __future__ import annotations

from dataclasses import asdict
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
    TargetKOption,
    TimeoutOption,
)
from irforge.cli.output import JsonOption, emit
from irforge.core.bench import Benchmark
from irforge.methods.contract import flag_defaults
from irforge.methods.logical import Config as LogicalConfig

LOGICAL = flag_defaults(LogicalConfig)  # the flags' defaults are the recipe block's


def build_logical_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    corpus: Annotated[Path, typer.Option(help="Source passages (BEIR corpus.jsonl).")],
    types: Annotated[str, typer.Option(help="Comma-separated types (1p,2p,3p,2i,3i,pi,ip,"
                                            "2u,up,2in,3in,inp,pin,pni) or 'all'.")]
    = LOGICAL.types,
    per_type: Annotated[int, typer.Option(help="Queries to attempt per type.")]
    = LOGICAL.per_type,
    group_key: Annotated[str, typer.Option(
        help="Passages of one query share this key: 'title' or a metadata field.")]
    = LOGICAL.group_key,
    max_passages: Annotated[int, typer.Option(help="Most passages per query (1-3).")]
    = LOGICAL.max_passages,
    passage_sentences: Annotated[int, typer.Option(
        help="Cut each document into passages of this many sentences sharing its title "
             "(0: use documents as they are).")] = LOGICAL.passage_sentences,
    distractors: Annotated[int | None, typer.Option(
        help="Distractor passages to keep (default: every passage of an unsampled group).")]
    = LOGICAL.distractors,
    hypothetical: Annotated[bool, typer.Option(
        help="Ask the LLM for one hypothetical (HyDE-style) negative passage per query.")]
    = LOGICAL.hypothetical,
    judge: Annotated[bool, typer.Option(help="Score structure conformity 1-4 with the LLM.")]
    = LOGICAL.judge,
    judge_controls: Annotated[bool, typer.Option(
        help="Mix control items into the judge step (each query under its own type and under "
             "a type of another shape); a judge that fails them exits 8.")]
    = LOGICAL.judge_controls,
    min_judge_score: Annotated[int, typer.Option(help="Judge score needed to keep a query.")]
    = LOGICAL.min_judge_score,
    seed: Annotated[int, typer.Option(help="Seed for passage selection and distractors.")]
    = LOGICAL.seed,
    target_k: TargetKOption = LOGICAL.target_k,
    max_tokens: Annotated[int, typer.Option(help="Completion token limit per call.")] = 768,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    budget: BudgetOption = None,
    dry_run: DryRunOption = False,
    concurrency: ConcurrencyOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prompts_dir: PromptsDirOption = None, timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Generate ComLQ complex logical queries (14 types) with structure checks and LSNC labels.

    Ends with the yield table; exits 3 when no query was accepted. A re-run for some types
    keeps the queries of the other types already in the folder.
    """
    from irforge.cli.options import grade_note
    from irforge.core.beir import read_corpus
    from irforge.generators.logical.build import build_logical, query_items
    from irforge.generators.logical.steps import LogicalQueryOutput
    from irforge.llm.options import engine_from_options
    from irforge.methods import logical
    from irforge.methods.contract import validated
    from irforge.steps.runner import BuildRunner, target_line
    from irforge.validators.judge_report import control_summary, raise_if_untrusted

    options = validated(logical.Config, types=types.split(","), per_type=per_type, seed=seed,
                        group_key=group_key, max_passages=max_passages, distractors=distractors,
                        hypothetical=hypothetical, judge=judge, min_judge_score=min_judge_score,
                        judge_controls=judge_controls, passage_sentences=passage_sentences,
                        target_k=target_k)
    config = logical.generator_config(options)  # the recipe's methods.logical is this Config
    docs = list(read_corpus(corpus))
    with Benchmark(bench_dir).writing(dry_run=dry_run), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency,
            cache=cache, no_cache=no_cache, prompts_dir=prompts_dir, max_tokens=max_tokens,
            timeout=timeout, price_per_mtok=price_per_mtok, bench_dir=bench_dir) as engine:
        if dry_run:
            _, items = query_items(docs, config)
            estimate = engine.estimate(items, "logical.query", LogicalQueryOutput)
            typer.echo(f"query step: {estimate.describe()} (judge and hypothetical steps add at "
                       "most one call per accepted query each)")
            return
        runner = BuildRunner.open(engine, bench_dir, "logical", target_k=target_k)
        summary = build_logical(bench_dir, docs, config, engine, runner)
        note = grade_note(engine.demo_grade)
    fields = {k: v for k, v in asdict(summary).items() if k != "yields"}
    emit({"folder": bench_dir, **fields, "yield": summary.yields.to_manifest(),
          "demo_grade": bool(note)},
         f"{bench_dir}: {summary.line()}{note}\n{summary.yields.render()}"
         f"\n{target_line(runner.validation())}".rstrip(), as_json)
    judge_figures = summary.judge_controls
    if judge_figures and not as_json:
        controls = judge_figures["steps"].get("logical.judge", {}).get("controls", 0)
        typer.echo(control_summary(judge_figures, controls))
    runner.finish(summary.accepted, "logical queries")
    if judge_figures:
        raise_if_untrusted(judge_figures, f"{bench_dir} (the queries it kept)", "logical",
                           "the judge's figures in judge_controls.json")
