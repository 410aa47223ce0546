"""``irforge label``: its flags become the relevance method's Config, then ``Method.run``
labels (``irforge.steps.verb``)."""

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
    TimeoutOption,
    TpmOption,
    grade_note,
)
from irforge.cli.output import JsonOption, emit
from irforge.generators.intents.cli import MaxTokensOption, split_names
from irforge.generators.relevance.method import Config as LabelConfig
from irforge.steps.method import flag_defaults

LABEL = flag_defaults(LabelConfig)  # the flags' defaults are the recipe block's

BatchFlag = Annotated[bool, typer.Option(
    "--batch", help="Send cache misses through the provider's batch API (OpenAI-compatible;"
    " discounted, up to 24 h per step; re-run the same command to resume).")]
LabelProbsFlag = Annotated[bool, typer.Option(
    help="Ask for log-probs and label with the expected grade over the label tokens "
         "where the backend returns them (llama.cpp, OpenAI-compatible servers); the "
         "argmax label is kept in the judgment's metadata.")]
ControlsFlag = Annotated[bool, typer.Option(
    help="Mix control pairs (a query with its source passage, with another document's "
         "passage, with a BM25 near-miss) into the run and score the judge on them; "
         "labels that fail are marked untrusted (exit 8). --no-controls is recorded as "
         "'not verified' in judge_controls.json.")]

ControlLimitOption = Annotated[int, typer.Option(
    help="Queries to make controls from, at most (two controls each).")]
ControlsFromOption = Annotated[str | None, typer.Option(
    help="Hand-verified queries whose judged documents become controls too: a benchmark "
         "folder (queries, qrels of grade >= 2, corpus) or 'sample' (the shipped sample).")]


def label_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder with queries and corpus.")],
    pairs: Annotated[list[Path] | None, typer.Option(
        help="File of (query, doc) pairs: JSONL, TSV or TREC run; repeatable.")] = None,
    pool: Annotated[list[Path] | None, typer.Option(
        help="Candidate pool: JSONL {query_id, doc_ids} or a TREC run; repeatable.")] = None,
    strategies: Annotated[str, typer.Option(help="Comma-separated: zero_shot, cot, multi_dim.")]
    = LABEL.strategies,
    ensemble: Annotated[str, typer.Option(help="mean, median, mode or majority.")]
    = LABEL.ensemble,
    binarize: Annotated[str, typer.Option(
        help="Qrel labels: 'graded' (ensemble rounded half up) or a threshold like '>0'.")]
    = LABEL.binarization,
    split: Annotated[str, typer.Option(help="Qrels split to write.")] = LABEL.split,
    intent: Annotated[str | None, typer.Option(
        help="Intent for queries whose metadata names none.")] = LABEL.intent,
    intents_file: Annotated[Path | None, typer.Option(
        help="YAML file defining more intents or overriding built-in ones.")]
    = LABEL.intents_file,
    positives: Annotated[bool, typer.Option(
        help="Also label each generated query's own positive passage.")]
    = LABEL.include_positives,
    model: ModelOption = None, api_base: ApiBaseOption = None, cache: CacheOption = None,
    no_cache: NoCacheOption = False, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, rpm: RpmOption = None, tpm: TpmOption = None,
    max_tokens: MaxTokensOption = 256, prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None, price_per_mtok: PriceOption = None,
    dry_run: DryRunOption = False, batch: BatchFlag = False,
    batch_poll: Annotated[float, typer.Option(
        help="Seconds between batch status checks with --batch.")] = 30.0,
    label_probs: LabelProbsFlag = LABEL.label_probs, controls: ControlsFlag = LABEL.controls,
    control_limit: ControlLimitOption = LABEL.control_limit,
    controls_from: ControlsFromOption = LABEL.controls_from,
    seed: Annotated[int, typer.Option(help="Seed of the control choice and order.")]
    = LABEL.seed,
    as_json: JsonOption = False,
) -> None:
    """Label (query, passage) pairs with three prompt strategies, then ensemble (DisastIR 3.6).

    Control pairs are mixed in and scored (docs/annotation.md, "Judge controls"); a judge that
    fails them exits 8 and its qrels are marked untrusted.
    """
    from irforge.generators.relevance.method import METHOD, label_logprobs
    from irforge.steps.method import Inputs, validated
    from irforge.steps.verb import engine_flags, estimate_method, run_method

    engine = engine_flags(locals(), batch=batch, batch_poll_seconds=batch_poll,
                          logprobs=label_logprobs(label_probs))
    config = validated(LabelConfig, strategies=split_names(strategies), ensemble=ensemble,
                       binarization=binarize, split=split, include_positives=positives,
                       label_probs=label_probs, controls=controls, control_limit=control_limit,
                       seed=seed, intent=intent, intents_file=intents_file,
                       controls_from=controls_from)
    inputs = Inputs(bench_dir / "corpus.jsonl", files=(*(pairs or []), *(pool or [])))
    if dry_run:
        report = estimate_method(METHOD, bench_dir, config, inputs, engine)
        return show_estimate(report.counts["pairs"], report.estimate, as_json)
    run_method(METHOD, bench_dir, config, inputs,
               lambda built, runner: show(built, runner, as_json), engine)


def show_estimate(pairs: int, est: dict[str, Any], as_json: bool) -> None:
    """What labeling the pairs would send and cost."""
    if as_json:
        return emit({"pairs": pairs, "estimate": est}, "", as_json=True)
    typer.echo(f"estimate for {pairs} pairs: {est['requests']} requests "
               f"({est['cached_items']} cached), ~{est['prompt_tokens']} prompt "
               f"tokens, input ${est['input_cost_usd']:.4f}, at most "
               f"${est['max_cost_usd']:.4f} "
               f"({'priced' if est['priced'] else 'no price known'})")


def show(built: Any, runner: Any, as_json: bool) -> None:
    """The estimate, the yield table, the counts, the engine's notes and the judge's control
    figures (or them as JSON)."""
    from irforge.steps.judge_report import control_summary

    report, engine, bench = built.report, runner.engine, runner.bench
    counts, qrels = report.counts, Path(built.labels)
    if as_json:
        return emit({"folder": bench.root, **report.manifest(), "qrels_file": qrels,
                     "notes": list(engine.notes), "demo_grade": engine.demo_grade}, "",
                    as_json=True)
    show_estimate(counts["pairs"], report.estimate, as_json)
    typer.echo(report.yields.render())
    typer.echo(f"{counts['pairs']} pairs: {counts['judgments_written']} judgments written "
               f"({counts['judgments_reused']} already there), {counts['qrels']} qrels in "
               f"{qrels}, {counts['failures']} failures, "
               f"{counts['flagged']} of {counts['positives_checked']} generated passages "
               f"flagged{grade_note(engine.demo_grade)}")
    for note in engine.notes:
        typer.echo(f"note: {note}")
    if counts.get("judge_controls"):
        typer.echo(control_summary(counts["judge_controls"], counts.get("controls", 0)))
