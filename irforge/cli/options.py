"""Command-line options every LLM-driven verb shares.

Generator verbs reuse these so ``--model``, ``--budget`` and ``--dry-run`` mean the same
everywhere: ``def build(..., model: ModelOption = None, budget: BudgetOption = None, ...)``
then ``engine = engine_from_options(model=model, budget=budget, ...)``
(:mod:`irforge.llm.options`: this module imports only ``core``, so every package's verbs
may use it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

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
