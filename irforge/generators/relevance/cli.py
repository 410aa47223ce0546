"""``irforge label``: a thin wrapper over :func:`label_benchmark`."""

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
    TimeoutOption,
    TpmOption,
    grade_note,
)
from irforge.cli.output import JsonOption, emit
from irforge.generators.intents.cli import MaxTokensOption, split_names
from irforge.llm.options import engine_from_options
from irforge.methods.contract import flag_defaults
from irforge.methods.relevance import Config as LabelConfig

LABEL = flag_defaults(LabelConfig)  # the flags' defaults are the recipe block's


def label_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder with queries and corpus.")],
    pairs: Annotated[list[Path] | None, typer.Option(
        help="File of (query, doc) pairs: JSONL, TSV or TREC run; repeatable.")] = None,
    pool: Annotated[list[Path] | None, typer.Option(
        help="Candidate pool: JSONL {query_id, doc_ids} or a TREC run; repeatable.")] = None,
    strategies: Annotated[str, typer.Option(
        help="Comma-separated: zero_shot, cot, multi_dim.")]
    = LABEL.strategies,
    ensemble: Annotated[str, typer.Option(help="mean, median, mode or majority.")]
    = LABEL.ensemble,
    binarize: Annotated[str, typer.Option(
        help="Qrel labels: 'graded' (ensemble rounded half up) or a threshold like '>0'.")]
    = LABEL.binarization,
    split: Annotated[str, typer.Option(help="Qrels split to write.")]
    = LABEL.split,
    intent: Annotated[str | None, typer.Option(
        help="Intent for queries whose metadata names none.")] = None,
    intents_file: Annotated[Path | None, typer.Option(
        help="YAML file defining more intents or overriding built-in ones.")] = None,
    positives: Annotated[bool, typer.Option(
        help="Also label each generated query's own positive passage.")]
    = LABEL.include_positives,
    model: ModelOption = None, api_base: ApiBaseOption = None, cache: CacheOption = None,
    no_cache: NoCacheOption = False, budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None, rpm: RpmOption = None, tpm: TpmOption = None,
    max_tokens: MaxTokensOption = 256, prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    dry_run: DryRunOption = False,
    batch: Annotated[bool, typer.Option(
        "--batch", help="Send cache misses through the provider's batch API (OpenAI-compatible;"
        " discounted, up to 24 h per step; re-run the same command to resume).")] = False,
    batch_poll: Annotated[float, typer.Option(
        help="Seconds between batch status checks with --batch.")] = 30.0,
    label_probs: Annotated[bool, typer.Option(
        help="Ask for log-probs and label with the expected grade over the label tokens "
             "where the backend returns them (llama.cpp, OpenAI-compatible servers); the "
             "argmax label is kept in the judgment's metadata.")]
    = LABEL.label_probs,
    controls: Annotated[bool, typer.Option(
        help="Mix control pairs (a query with its source passage, with another document's "
             "passage, with a BM25 near-miss) into the run and score the judge on them; "
             "labels that fail are marked untrusted (exit 8). --no-controls is recorded as "
             "'not verified' in judge_controls.json.")] = LABEL.controls,
    control_limit: Annotated[int, typer.Option(
        help="Queries to make controls from, at most (two controls each).")]
    = LABEL.control_limit,
    seed: Annotated[int, typer.Option(help="Seed of the control choice and order.")]
    = LABEL.seed,
    as_json: JsonOption = False,
) -> None:
    """Label (query, passage) pairs with three prompt strategies, then ensemble (DisastIR 3.6).

    Control pairs are mixed in and scored (docs/annotation.md, "Judge controls"); a judge that
    fails them exits 8 and its qrels are marked untrusted.
    """
    from irforge.core.bench import Benchmark
    from irforge.generators.intents import load_intents
    from irforge.generators.relevance import LabelSettings, label_benchmark
    from irforge.generators.relevance.build import ENSEMBLE_STEP
    from irforge.generators.relevance.controls import control_summary, raise_if_untrusted
    from irforge.generators.relevance.probabilities import TOP_LOGPROBS
    from irforge.methods import relevance
    from irforge.methods.contract import validated
    from irforge.steps.runner import BuildRunner

    validated(relevance.Config, strategies=split_names(strategies), ensemble=ensemble,
              binarization=binarize, split=split, include_positives=positives,
              label_probs=label_probs, controls=controls, control_limit=control_limit,
              seed=seed)  # the recipe's label block follows the same rules
    bench = Benchmark(bench_dir)
    settings = LabelSettings(strategies=tuple(split_names(strategies)), ensemble=ensemble,
                             binarization=binarize, split=split, default_intent=intent,
                             include_positives=positives, controls=controls,
                             control_limit=control_limit, seed=seed)
    files = [*(pairs or []), *(pool or [])]
    with bench.writing(dry_run=dry_run), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency, rpm=rpm,
            tpm=tpm, cache=cache, no_cache=no_cache, prompts_dir=prompts_dir, timeout=timeout,
            price_per_mtok=price_per_mtok, max_tokens=max_tokens, batch=batch,
            batch_poll_seconds=batch_poll, bench_dir=bench_dir,
            logprobs=TOP_LOGPROBS if label_probs else 0) as engine:
        runner = BuildRunner.open(engine, bench.root, "relevance")
        report = label_benchmark(bench, engine, files, load_intents(intents_file), settings,
                                 dry_run=dry_run, runner=runner)
        est, counts = report.estimate, report.counts
        if dry_run and as_json:
            emit({"pairs": counts["pairs"], "estimate": est}, "", as_json=True)
            return
        if not as_json:
            typer.echo(f"estimate for {counts['pairs']} pairs: {est['requests']} requests "
                       f"({est['cached_items']} cached), ~{est['prompt_tokens']} prompt "
                       f"tokens, input ${est['input_cost_usd']:.4f}, at most "
                       f"${est['max_cost_usd']:.4f} "
                       f"({'priced' if est['priced'] else 'no price known'})")
        if dry_run:
            return
        runner.record("DisastIR relevance labeling (section 3.6)", {
            "strategies": list(settings.strategies), "ensemble": ensemble,
            "binarization": binarize, "split": split, "label_probs": label_probs},
            counts, {"inputs": [str(f) for f in files], "estimate": est})
    if as_json:
        emit({"folder": bench_dir, **report.manifest(), "qrels_file": bench.qrels_path(split),
              "notes": list(engine.notes), "demo_grade": engine.demo_grade}, "", as_json=True)
    else:
        typer.echo(report.yields.render())
        typer.echo(f"{counts['pairs']} pairs: {counts['judgments_written']} judgments written "
                   f"({counts['judgments_reused']} already there), {counts['qrels']} qrels in "
                   f"{bench.qrels_path(split)}, {counts['failures']} failures, "
                   f"{counts['flagged']} of {counts['positives_checked']} generated passages "
                   f"flagged{grade_note(engine.demo_grade)}")
        for note in engine.notes:
            typer.echo(f"note: {note}")
    judge = counts.get("judge_controls")
    if judge and not as_json:
        typer.echo(control_summary(judge, counts.get("controls", 0)))
    runner.finish(runner.ledger.accepted(ENSEMBLE_STEP), "labeled pairs")
    if judge:
        raise_if_untrusted(judge, str(bench.qrels_path(split)), "relevance",
                           str(judge.get("controls_file", "judge_controls.json")))
