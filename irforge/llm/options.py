"""The engine the shared command-line options configure (:mod:`irforge.cli.options`), and the
non-zero exit of a verb whose LLM calls all failed or ran out of budget."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
