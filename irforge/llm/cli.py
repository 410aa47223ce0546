"""CLI verbs of the engine: ``irforge llm try`` and ``irforge cache stats|clear``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from pydantic import BaseModel, Field

from irforge.cli.options import (
    ApiBaseOption,
    BudgetOption,
    CacheOption,
    DryRunOption,
    ModelOption,
    NoCacheOption,
    PriceOption,
    PromptsDirOption,
    TimeoutOption,
    TransportOption,
    grade_note,
)
from irforge.llm.options import engine_from_options, raise_for_stop


class Answer(BaseModel):
    """The structured reply ``irforge llm try`` asks for."""

    answer: str = Field(max_length=2000, description="the answer to the prompt")


def llm_try(
    prompt: Annotated[str, typer.Argument(help="The prompt to send.")],
    model: ModelOption = None,
    api_base: ApiBaseOption = None,
    max_tokens: Annotated[int, typer.Option(help="Completion token limit.")] = 256,
    budget: BudgetOption = None,
    dry_run: DryRunOption = False,
    cache: CacheOption = None,
    no_cache: NoCacheOption = False,
    prompts_dir: PromptsDirOption = None,
    timeout: TimeoutOption = None,
    price_per_mtok: PriceOption = None,
    transport: TransportOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the full result as JSON.")]
    = False,
) -> None:
    """Send one prompt through the engine (structured JSON answer) and show what came back."""
    with engine_from_options(model=model, api_base=api_base, budget=budget, cache=cache,
                             no_cache=no_cache, prompts_dir=prompts_dir, timeout=timeout,
                             price_per_mtok=price_per_mtok, transport=transport,
                             max_tokens=max_tokens, progress=False) as engine:
        items = [{"prompt": prompt}]
        if dry_run:
            typer.echo(engine.estimate(items, "llm.try", Answer).describe())
            return
        [result] = engine.run(items, "llm.try", Answer, step="llm.try")
    if as_json:
        typer.echo(json.dumps(result.to_dict(), indent=2, ensure_ascii=False))
    else:
        shown = result.value.answer if result.value is not None else result.raw
        typer.echo(f"{result.status}: {shown}{grade_note(result.demo_grade)}")
        if result.error:
            typer.echo(f"error: {result.error}")
        typer.echo(f"model={result.model} cached={result.cached} attempts={result.attempts} "
                   f"tokens={result.prompt_tokens}+{result.completion_tokens} "
                   f"cost=${result.cost_usd:.6f}")
    raise_for_stop(engine)
    if result.status != "ok":
        raise typer.Exit(1)


BenchOption = Annotated[Path | None, typer.Option(
    "--bench", help="Benchmark folder whose cache to use (BENCH/.irforge/cache.sqlite).")]


def cache_stats(
    cache: CacheOption = None,
    bench: BenchOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Entries, size, stored tokens and cost, hits, per model and per step."""
    from irforge.llm.cache import ResponseCache
    from irforge.llm.settings import load_config, resolve_cache_path

    path = resolve_cache_path(cache, load_config(), bench)
    if not path.exists():
        typer.echo(f"no cache at {path} yet")
        return
    with ResponseCache(path) as store:
        stats = store.stats()
    if as_json:
        typer.echo(json.dumps(stats, indent=2))
        return
    typer.echo(f"{stats['path']}: {stats['entries']} entries, {stats['bytes'] / 1e6:.2f} MB, "
               f"{stats['recorded_hits']} hits recorded")
    typer.echo(f"stored tokens {stats['prompt_tokens']}+{stats['completion_tokens']}, "
               f"cost of stored answers ${stats['stored_cost_usd']:.4f}")
    for model, row in stats["by_model"].items():
        typer.echo(f"  model {model}: {row['entries']} entries, {row['hits']} hits")
    for step, count in stats["by_step"].items():
        typer.echo(f"  step {step or '(none)'}: {count} entries")


def cache_clear(
    cache: CacheOption = None,
    bench: BenchOption = None,
    model: Annotated[str | None, typer.Option(help="Only entries of this model.")] = None,
    step: Annotated[str | None, typer.Option(help="Only entries of this step.")] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")]
    = False,
) -> None:
    """Delete cached answers (all, or one model's / one step's); the next run asks again."""
    from contextlib import nullcontext

    from irforge.core.locks import FolderLock
    from irforge.llm.cache import ResponseCache
    from irforge.llm.settings import load_config, resolve_cache_path

    path = resolve_cache_path(cache, load_config(), bench)
    if not path.exists():
        typer.echo(f"no cache at {path}")
        return
    scope = " ".join(part for part in (f"model={model}" if model else "",
                                       f"step={step}" if step else "") if part) or "everything"
    if not yes and not typer.confirm(f"Delete {scope} from {path}?"):
        raise typer.Abort()
    # a benchmark folder's cache (B/.irforge/cache.sqlite) is not cleared under a running verb
    owner = path.parent.parent if path.parent.name == ".irforge" else None
    with (FolderLock(owner) if owner is not None else nullcontext()), \
            ResponseCache(path) as store:
        deleted = store.clear(model=model, step=step)
    typer.echo(f"deleted {deleted} entries ({scope}) from {path}")
