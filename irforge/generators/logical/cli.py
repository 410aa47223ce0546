"""CLI verb ``irforge build logical``: its flags become the method's Config, then
:meth:`~irforge.steps.method.Method.run` builds (``irforge.steps.verb.run_method``)."""

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
    TargetKOption,
    TimeoutOption,
)
from irforge.cli.output import JsonOption, emit
from irforge.generators.logical.method import Config as LogicalConfig
from irforge.steps.method import flag_defaults

LOGICAL = flag_defaults(LogicalConfig)  # the flags' defaults are the recipe block's

TypesFlag = Annotated[str, typer.Option(help="Comma-separated types (1p,2p,3p,2i,3i,pi,ip,"
                                             "2u,up,2in,3in,inp,pin,pni) or 'all'.")]
GroupKeyFlag = Annotated[str, typer.Option(
    help="Passages of one query share this key: 'title' or a metadata field.")]
SentencesFlag = Annotated[int, typer.Option(
    help="Cut each document into passages of this many sentences sharing its title "
         "(0: use documents as they are).")]
DistractorsFlag = Annotated[int | None, typer.Option(
    help="Distractor passages to keep (default: every passage of an unsampled group).")]
HypotheticalFlag = Annotated[bool, typer.Option(
    help="Ask the LLM for one hypothetical (HyDE-style) negative passage per query.")]
JudgeControlsFlag = Annotated[bool, typer.Option(
    help="Mix control items into the judge step (each query under its own type and under "
         "a type of another shape); a judge that fails them exits 8.")]


def build_logical_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    corpus: Annotated[Path, typer.Option(help="Source passages (BEIR corpus.jsonl).")],
    types: TypesFlag = LOGICAL.types,
    per_type: Annotated[int, typer.Option(help="Queries to attempt per type.")]
    = LOGICAL.per_type,
    group_key: GroupKeyFlag = LOGICAL.group_key,
    max_passages: Annotated[int, typer.Option(help="Most passages per query (1-3).")]
    = LOGICAL.max_passages,
    passage_sentences: SentencesFlag = LOGICAL.passage_sentences,
    distractors: DistractorsFlag = LOGICAL.distractors,
    hypothetical: HypotheticalFlag = LOGICAL.hypothetical,
    judge: Annotated[bool, typer.Option(help="Score structure conformity 1-4 with the LLM.")]
    = LOGICAL.judge,
    judge_controls: JudgeControlsFlag = LOGICAL.judge_controls,
    min_judge_score: Annotated[int, typer.Option(help="Judge score needed to keep a query.")]
    = LOGICAL.min_judge_score,
    seed: Annotated[int, typer.Option(help="Seed for passage selection and distractors.")]
    = LOGICAL.seed,
    target_k: TargetKOption = LOGICAL.target_k,
    max_tokens: Annotated[int, typer.Option(help="Completion token limit per call.")] = 768,
    model: ModelOption = None, api_base: ApiBaseOption = None, budget: BudgetOption = None,
    dry_run: DryRunOption = False, concurrency: ConcurrencyOption = None,
    cache: CacheOption = None, no_cache: NoCacheOption = False,
    prompts_dir: PromptsDirOption = None, timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None, as_json: JsonOption = False,
) -> None:
    """Generate ComLQ complex logical queries (14 types) with structure checks and LSNC labels.

    Ends with the yield table; exits 3 when no query was accepted. A re-run for some types
    keeps the queries of the other types already in the folder.
    """
    from irforge.generators.logical.method import METHOD
    from irforge.steps.method import Inputs, validated
    from irforge.steps.verb import engine_flags, estimate_method, run_method

    engine = engine_flags(locals())
    config = validated(LogicalConfig, types=types.split(","), per_type=per_type, seed=seed,
                       group_key=group_key, max_passages=max_passages, distractors=distractors,
                       hypothetical=hypothetical, judge=judge, min_judge_score=min_judge_score,
                       judge_controls=judge_controls, passage_sentences=passage_sentences,
                       target_k=target_k)
    if dry_run:
        figures = estimate_method(METHOD, bench_dir, config, Inputs(corpus), engine)
        return typer.echo(f"query step: {figures.describe()} (judge and hypothetical steps "
                          "add at most one call per accepted query each)")
    run_method(METHOD, bench_dir, config, Inputs(corpus),
               lambda built, runner: show(built, runner, as_json), engine)


def show(built: Any, runner: Any, as_json: bool) -> None:
    """The summary line, the yield table, the target depth and the judge's control figures."""
    from dataclasses import asdict

    from irforge.cli.options import grade_note
    from irforge.steps.judge_report import control_summary
    from irforge.steps.runner import target_line

    summary, note = built.report, grade_note(runner.engine.demo_grade)
    fields = {k: v for k, v in asdict(summary).items() if k != "yields"}
    emit({"folder": runner.bench.root, **fields, "yield": summary.yields.to_manifest(),
          "demo_grade": bool(note)},
         f"{runner.bench.root}: {summary.line()}{note}\n{summary.yields.render()}"
         f"\n{target_line(runner.validation())}".rstrip(), as_json)
    judge_figures = summary.judge_controls
    if judge_figures and not as_json:
        controls = judge_figures["steps"].get("logical.judge", {}).get("controls", 0)
        typer.echo(control_summary(judge_figures, controls))
