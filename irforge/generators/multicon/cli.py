"""``irforge build multicon``: a BEIR corpus of one domain -> the three MultiConIR tasks; the
flags become the method's Config, then ``Method.run`` builds (``irforge.steps.verb``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from irforge.cli.options import (
    ApiBaseOption,
    BudgetOption,
    CacheOption,
    ConcurrencyOption,
    LanguageOption,
    ModelOption,
    NoCacheOption,
    PriceOption,
    PromptsDirOption,
    RpmOption,
    SamplesOption,
    TargetKOption,
    TimeoutOption,
    TpmOption,
)
from irforge.cli.output import JsonOption, emit
from irforge.generators.multicon.method import Config as MulticonConfig
from irforge.steps.method import flag_defaults

MULTICON = flag_defaults(MulticonConfig)  # the flags' defaults are the recipe block's


def build_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to write.")],
    corpus: Annotated[Path, typer.Option(help="BEIR corpus.jsonl with the source documents.")],
    domain: Annotated[str, typer.Option(
        help="derived (entity and condition features from the corpus's own terms), books, "
             "movies, people, medical, legal, or one from --domains.")]
    = MULTICON.domain,
    n: Annotated[int, typer.Option(help="Conditions per document (paper: 10).")]
    = MULTICON.n,
    strategy: Annotated[str | None, typer.Option(
        help="Hard-negative strategy: modify, keyword, or substitute (modify by construction: "
             "one key term replaced; suits small models) (default: the domain's).")]
    = MULTICON.strategy,
    phrases: Annotated[str, typer.Option(
        help="How each condition becomes a search phrase: write (the model shortens the "
             "sentence) or pick (the model picks key terms from a list; suits small models).")]
    = MULTICON.phrases,
    pad_to: Annotated[int | None, typer.Option(
        help="Pad every document with filler sentences to this many words (paper: 512, 1024).")]
    = MULTICON.pad_to,
    seed: Annotated[int, typer.Option(help="Seed for the padding positions.")]
    = MULTICON.seed,
    threshold: Annotated[float, typer.Option(
        help="rapidfuzz score (0-100) above which a paraphrased condition is snapped.")]
    = MULTICON.threshold,
    limit: Annotated[int | None, typer.Option(help="Use only the first N documents (0: all).")]
    = MULTICON.limit,
    domains: Annotated[Path | None, typer.Option(
        help="YAML file defining extra domains (see docs/multicon.md).")] = MULTICON.domains,
    adaptive: Annotated[bool, typer.Option(
        help="Also ask the LLM for adaptive sub-query decompositions.")]
    = MULTICON.adaptive,
    conditions: Annotated[Path | None, typer.Option(
        help="JSONL of condition sentences chosen beforehand ({doc_id, conditions}); "
             "those documents skip step 1.")] = MULTICON.conditions,
    language: LanguageOption = MULTICON.language,
    target_k: TargetKOption = MULTICON.target_k,
    samples: SamplesOption = None, model: ModelOption = None, api_base: ApiBaseOption = None,
    budget: BudgetOption = None, concurrency: ConcurrencyOption = None, rpm: RpmOption = None,
    tpm: TpmOption = None, cache: CacheOption = None, no_cache: NoCacheOption = False,
    prompts_dir: PromptsDirOption = None, timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None, as_json: JsonOption = False,
) -> None:
    """Build MultiConIR tasks (multi-condition queries, hard-negative documents) from a corpus."""
    from irforge.generators.multicon.method import METHOD
    from irforge.steps.method import Inputs, validated
    from irforge.steps.verb import engine_flags, run_method

    engine = engine_flags(locals())
    # the recipe's methods.multicon is the same Config: one set of rules for both
    limit = None if limit == 0 else limit  # --limit 0: every document (the recipe's null)
    config = validated(MulticonConfig, n=n, limit=limit, domain=domain, phrases=phrases,
                       strategy=strategy, pad_to=pad_to, seed=seed, threshold=threshold,
                       adaptive=adaptive, language=language, target_k=target_k,
                       domains=domains, conditions=conditions)
    run_method(METHOD, bench_dir, config, Inputs(corpus),
               lambda built, runner: show(built, runner, as_json), engine)


def show(built: Any, runner: Any, as_json: bool) -> None:
    """The domain, the yield table, the target depth and the counts (or them as JSON)."""
    from irforge.cli.options import grade_note
    from irforge.steps.runner import target_line

    (chosen, counts), root = built.report, runner.bench.root
    note = grade_note(runner.engine.demo_grade)
    if as_json:
        emit({"folder": root, **counts, "demo_grade": bool(note),
              "failures_file": runner.bench.failures_path}, "", as_json=True)
        return
    typer.echo(f"domain {chosen.name!r}: entity {chosen.entity!r}, features "
               f"{', '.join(chosen.features)}")
    typer.echo(runner.yields.render())
    if target_line(runner.validation()):
        typer.echo(target_line(runner.validation()))
    summary = ", ".join(f"{key}={value}" for key, value in counts.items())
    typer.echo(f"multicon: {summary} -> {root}{note}")
    if counts["failures"]:
        typer.echo(f"  {counts['failures']} item(s) failed; reasons in "
                   f"{runner.bench.failures_path}")
