"""Command-line options every LLM-driven verb shares, and the engine they configure.

Generator verbs reuse these so ``--model``, ``--budget`` and ``--dry-run`` mean the same
everywhere: ``def build(..., model: ModelOption = None, budget: BudgetOption = None, ...)``
then ``engine = engine_from_options(model=model, budget=budget, ...)``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

ModelOption = Annotated[str | None, typer.Option(
    "--model", help="litellm model id, 'gguf:/path/model.gguf', or 'embedded' "
    "(default: IRFORGE_MODEL, irforge.toml, else the embedded demo-grade model).")]
ApiBaseOption = Annotated[str | None, typer.Option(
    "--api-base", help="Base URL of an OpenAI-compatible server (default: IRFORGE_API_BASE).")]
BudgetOption = Annotated[float | None, typer.Option(
    "--budget", help="Stop starting new requests once this many US dollars are spent; "
    "completed answers are kept and the rest are marked skipped.")]
DryRunOption = Annotated[bool, typer.Option(
    "--dry-run", help="Print the request/token/cost estimate and send nothing.")]
ConcurrencyOption = Annotated[int | None, typer.Option(
    "--concurrency", help="Requests in flight at once (default 8; 1 for local GGUF).")]
RpmOption = Annotated[float | None, typer.Option("--rpm", help="Requests per minute limit.")]
TpmOption = Annotated[float | None, typer.Option("--tpm", help="Tokens per minute limit.")]
CacheOption = Annotated[Path | None, typer.Option(
    "--cache", help="Cache file (default: IRFORGE_CACHE or .irforge/cache.sqlite).")]
NoCacheOption = Annotated[bool, typer.Option("--no-cache",
                                             help="Neither read nor write the cache.")]
SamplesOption = Annotated[int | None, typer.Option(
    "--samples", min=1, help="Best-of-n: LLM samples per item until one passes the validators "
    "and quality gates (default 3 for local GGUF models, 1 for API models).")]
LanguageOption = Annotated[str | None, typer.Option(
    "--language", help="Language the generated queries must be in (ISO 639-1, e.g. en; "
    "default: detected from the corpus).")]
PromptsDirOption = Annotated[Path | None, typer.Option(
    "--prompts-dir", help="Folder of template overrides (default: IRFORGE_PROMPTS_DIR).")]


def engine_from_options(model: str | None = None, api_base: str | None = None,
                        budget: float | None = None, concurrency: int | None = None,
                        rpm: float | None = None, tpm: float | None = None,
                        cache: Path | None = None, no_cache: bool = False,
                        prompts_dir: Path | None = None, samples: int | None = None,
                        **extra: Any):
    """An :class:`~irforge.llm.Engine` from the shared CLI options."""
    from irforge.llm import Engine

    return Engine(model, api_base=api_base, budget_usd=budget, concurrency=concurrency,
                  rpm=rpm, tpm=tpm, cache_path=cache, use_cache=not no_cache,
                  prompts_dir=prompts_dir, samples=samples, **extra)


def grade_note(demo_grade: bool) -> str:
    """The warning printed next to output of the embedded model."""
    return (" [DEMO GRADE: embedded SmolLM2-135M; configure --model for real work]"
            if demo_grade else "")
