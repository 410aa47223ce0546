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
    "--cache", help="Cache file (default: IRFORGE_CACHE, irforge.toml, else "
    "BENCH_DIR/.irforge/cache.sqlite).")]
NoCacheOption = Annotated[bool, typer.Option("--no-cache",
                                             help="Neither read nor write the cache.")]
TimeoutOption = Annotated[float | None, typer.Option(
    "--timeout", help="Seconds one LLM request may take before it is retried "
    "(default: irforge.toml, else 120; 600 for the embedded/GGUF model).")]
PriceOption = Annotated[str | None, typer.Option(
    "--price-per-mtok", help="IN,OUT dollars per million input/output tokens, for models "
    "without a known price (needed with --budget).")]
TransportOption = Annotated[str | None, typer.Option(
    "--transport", help="How requests travel: auto (direct for OpenAI-compatible endpoints, "
    "litellm for other providers), direct or litellm (default: IRFORGE_TRANSPORT, "
    "irforge.toml, else auto).")]
SamplesOption = Annotated[int | None, typer.Option(
    "--samples", min=1, help="Best-of-n: LLM samples per item until one passes the validators "
    "and quality gates (default 3 for local GGUF models, 1 for API models).")]
LanguageOption = Annotated[str | None, typer.Option(
    "--language", help="Language the generated queries must be in (ISO 639-1, e.g. en; "
    "default: detected from the corpus).")]
PromptsDirOption = Annotated[Path | None, typer.Option(
    "--prompts-dir", help="Folder of template overrides (default: IRFORGE_PROMPTS_DIR).")]
TargetKOption = Annotated[int | None, typer.Option(
    "--target-k", help="Relevance target: a kept query's positive must rank in the top K of "
    "BM25 over the corpus (default: max(3, ceil(sqrt(N))) for N passages). A larger K relaxes "
    "the filter (printed and recorded in the manifest); K >= 1, it cannot be switched off.")]


def engine_from_options(model: str | None = None, api_base: str | None = None,
                        budget: float | None = None, concurrency: int | None = None,
                        rpm: float | None = None, tpm: float | None = None,
                        cache: Path | None = None, no_cache: bool = False,
                        prompts_dir: Path | None = None, timeout: float | None = None,
                        price_per_mtok: str | None = None, transport: str | None = None,
                        samples: int | None = None, **extra: Any):
    """An :class:`~irforge.llm.Engine` from the shared CLI options; pass ``bench_dir`` so the
    default cache lives in the benchmark folder (runs from any directory share it)."""
    from irforge.llm import Engine

    if price_per_mtok is not None:
        extra["price_per_mtok"] = parse_price(price_per_mtok)
    return Engine(model, api_base=api_base, budget_usd=budget, concurrency=concurrency,
                  rpm=rpm, tpm=tpm, cache_path=cache, use_cache=not no_cache,
                  prompts_dir=prompts_dir, timeout=timeout, transport=transport,
                  samples=samples, **extra)


def parse_price(text: str) -> tuple[float, float]:
    """``"0.15,0.6"`` -> (0.15, 0.6) dollars per million input/output tokens."""
    from irforge.core.errors import IrforgeError

    parts = [part.strip() for part in text.split(",")]
    try:
        prices = tuple(float(part) for part in parts)
    except ValueError:
        prices = ()
    if len(prices) != 2 or min(prices) < 0:
        raise IrforgeError(f"--price-per-mtok {text!r}: give IN,OUT dollars per million "
                           "tokens, e.g. 0.15,0.6")
    return prices[0], prices[1]


def raise_for_stop(engine: Any) -> None:
    """End a verb with a non-zero exit when every LLM call failed or the budget stopped it."""
    from irforge.llm.stops import stop_error

    error = stop_error(engine)
    if error is not None:
        raise error


def grade_note(demo_grade: bool) -> str:
    """The warning printed next to output of the embedded model."""
    return (" [DEMO GRADE: embedded SmolLM2-135M; configure --model for real work]"
            if demo_grade else "")


def require_bench_dir(bench_dir: Path) -> Path:
    """``bench_dir`` when it is an existing folder, else a usage error saying so."""
    from irforge.core.errors import IrforgeError

    path = Path(bench_dir)
    if not path.exists():
        raise IrforgeError(f"benchmark folder {path} does not exist: give the folder that holds "
                           "corpus.jsonl, queries.jsonl and qrels/ (irforge run or irforge build "
                           "writes one)")
    if not path.is_dir():
        raise IrforgeError(f"{path} is a file, not a benchmark folder: give the folder that "
                           "holds corpus.jsonl, queries.jsonl and qrels/")
    return path
