"""``irforge build multicon``: a BEIR corpus of one domain -> the three MultiConIR tasks."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError, IrforgeError, Problem
from irforge.core.jsonl import iter_jsonl
from irforge.generators.multicon.domains import get_domain, load_domains
from irforge.generators.multicon.folder import build_multicon, derived_domain
from irforge.methods.contract import flag_defaults
from irforge.methods.multicon import Config as MulticonConfig

MULTICON = flag_defaults(MulticonConfig)  # the flags' defaults are the recipe block's


def read_given_conditions(path: Path) -> dict[str, list[str]]:
    """Condition sentences chosen beforehand: JSONL rows ``{"doc_id", "conditions": [...]}``."""
    out: dict[str, list[str]] = {}
    for number, row in iter_jsonl(Path(path)):
        doc_id, conditions = row.get("doc_id"), row.get("conditions")
        if not isinstance(doc_id, str) or not doc_id:
            raise FormatError(Problem(Path(path), "missing or not a string", line=number,
                                      field="doc_id", hint="give the corpus id of the document"))
        if not isinstance(conditions, list) or not all(isinstance(c, str) for c in conditions):
            raise FormatError(Problem(Path(path), "must be a list of sentences", line=number,
                                      field="conditions",
                                      hint="copy N sentences from the document"))
        out[doc_id] = conditions
    return out


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
        help="YAML file defining extra domains (see docs/multicon.md).")] = None,
    adaptive: Annotated[bool, typer.Option(
        help="Also ask the LLM for adaptive sub-query decompositions.")]
    = MULTICON.adaptive,
    conditions: Annotated[Path | None, typer.Option(
        help="JSONL of condition sentences chosen beforehand ({doc_id, conditions}); "
             "those documents skip step 1.")] = None,
    language: LanguageOption = MULTICON.language,
    target_k: TargetKOption = MULTICON.target_k,
    samples: SamplesOption = None,
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    budget: BudgetOption = None,
    concurrency: ConcurrencyOption = None,
    rpm: RpmOption = None,
    tpm: TpmOption = None,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prompts_dir: PromptsDirOption = None, timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    as_json: JsonOption = False,
) -> None:
    """Build MultiConIR tasks (multi-condition queries, hard-negative documents) from a corpus."""
    from irforge.cli.options import engine_from_options, grade_note
    from irforge.core import beir
    from irforge.methods import multicon
    from irforge.methods.contract import validated
    from irforge.steps.runner import BuildRunner

    # the recipe's methods.multicon is the same Config: one set of rules for both
    limit = None if limit == 0 else limit  # --limit 0: every document (the recipe's null)
    options = validated(multicon.Config, n=n, limit=limit, domain=domain, phrases=phrases,
                        strategy=strategy, pad_to=pad_to, seed=seed, threshold=threshold,
                        adaptive=adaptive, language=language, target_k=target_k)
    extra = load_domains(domains) if domains is not None else {}
    docs = list(beir.read_corpus(corpus))[:limit]  # every row validated, as every verb does
    try:
        chosen = (derived_domain(docs, seed) if domain == "derived" and domain not in extra
                  else get_domain(domain, extra))
        config = options.generator_config(chosen)
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc
    given = read_given_conditions(conditions) if conditions is not None else None
    if not as_json:
        typer.echo(f"domain {chosen.name!r}: entity {chosen.entity!r}, features "
                   f"{', '.join(chosen.features)}")
    with Benchmark(bench_dir).writing(), engine_from_options(
            model=model, api_base=api_base, budget=budget, concurrency=concurrency, rpm=rpm,
            tpm=tpm, cache=cache, no_cache=no_cache, prompts_dir=prompts_dir,
            timeout=timeout, price_per_mtok=price_per_mtok, bench_dir=bench_dir,
            samples=samples) as engine:
        runner = BuildRunner.open(engine, bench_dir, "multicon", target_k=target_k)
        counts = build_multicon(bench_dir, docs, config, engine, source=str(corpus), given=given,
                                echo=None if as_json else typer.echo, runner=runner)
        note = grade_note(engine.demo_grade)
    summary = ", ".join(f"{key}={value}" for key, value in counts.items())
    if as_json:
        emit({"folder": bench_dir, **counts, "demo_grade": bool(note),
              "failures_file": Benchmark(bench_dir).failures_path}, "", as_json=True)
        return
    typer.echo(f"multicon: {summary} -> {bench_dir}{note}")
    if counts["failures"]:
        typer.echo(f"  {counts['failures']} item(s) failed; reasons in "
                   f"{Benchmark(bench_dir).failures_path}")
