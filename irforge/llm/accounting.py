"""Tokens and dollars: prices from litellm's local price map, totals per step, estimates."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.llm.litellm_setup import silence_litellm
from irforge.llm.settings import ModelSpec

Price = tuple[float, float]  # dollars per input token, per output token
DEFAULT_EXPECTED_OUTPUT = 256


@lru_cache(maxsize=64)
def litellm_price(model: str) -> Price | None:
    """Per-token prices from litellm's bundled map, or None for an unpriced model."""
    silence_litellm()
    import litellm

    try:
        prompt, completion = litellm.cost_per_token(model=model, prompt_tokens=1_000_000,
                                                    completion_tokens=1_000_000)
    except Exception:  # litellm raises for models missing from its map
        return None
    if not prompt and not completion:
        return None
    return prompt / 1_000_000, completion / 1_000_000


def cost_usd(price: Price | None, prompt_tokens: int, completion_tokens: int) -> float:
    """Dollars for one request; 0 when the model has no price."""
    if price is None:
        return 0.0
    return prompt_tokens * price[0] + completion_tokens * price[1]


DEFAULT_CONTEXT_TOKENS = 131_072  # assumed for models litellm does not know


def context_tokens(spec: ModelSpec, configured: int | None = None,
                   local_n_ctx: int = 4096) -> int:
    """The prompt tokens a model accepts: config, else litellm's map, else a 128k guess."""
    if configured:
        return int(configured)
    if spec.backend == "llama":
        return local_n_ctx
    silence_litellm()
    import litellm

    try:
        info = litellm.get_model_info(spec.name)
    except Exception:  # unknown model
        return DEFAULT_CONTEXT_TOKENS
    return int(info.get("max_input_tokens") or info.get("max_tokens") or DEFAULT_CONTEXT_TOKENS)


def estimate_tokens(messages: list[dict[str, str]]) -> int:
    """Cheap prompt-size estimate (~4 characters a token plus per-message overhead)."""
    return sum(len(m["content"]) // 4 + 4 for m in messages) + 2


def count_prompt_tokens(spec: ModelSpec, messages: list[dict[str, str]]) -> int:
    """Prompt tokens by litellm's tokenizer for the model, else the cheap estimate."""
    if spec.backend == "litellm":
        silence_litellm()  # its bundled price map: no download at import
        import litellm

        try:
            return int(litellm.token_counter(model=spec.name, messages=messages))
        except Exception:  # unknown tokenizer: fall back to the estimate
            pass
    return estimate_tokens(messages)


@dataclass
class StepStats:
    """What one step (or the whole engine) used: requests, cache, retries, tokens, dollars."""

    items: int = 0
    requests: int = 0
    cache_hits: int = 0
    retries: int = 0
    reasks: int = 0
    errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    statuses: Counter[str] = field(default_factory=Counter)
    budget_stopped: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"items": self.items, "requests": self.requests, "cache_hits": self.cache_hits,
                "retries": self.retries, "reasks": self.reasks,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": round(self.cost_usd, 6), "statuses": dict(self.statuses),
                "budget_stopped": self.budget_stopped}


@dataclass(frozen=True)
class Estimate:
    """A ``--dry-run`` forecast: what the run would send and what it could cost at most."""

    model: str
    items: int
    cached_items: int
    requests: int
    prompt_tokens: int
    max_completion_tokens: int
    input_cost_usd: float
    max_cost_usd: float
    priced: bool
    too_long: int = 0  # items whose prompt is past the model's context: skipped, not sent
    context_tokens: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"model": self.model, "items": self.items, "cached_items": self.cached_items,
                "requests": self.requests, "prompt_tokens": self.prompt_tokens,
                "max_completion_tokens": self.max_completion_tokens,
                "input_cost_usd": round(self.input_cost_usd, 6),
                "max_cost_usd": round(self.max_cost_usd, 6), "priced": self.priced,
                "too_long": self.too_long, "context_tokens": self.context_tokens}

    def describe(self) -> str:
        if not self.priced:
            money = "no price known for this model (cost counted as $0)"
        else:
            money = (f"input ${self.input_cost_usd:.4f}, at most ${self.max_cost_usd:.4f} "
                     "before re-asks")
        line = (f"{self.items} items, {self.cached_items} already cached; {self.requests} "
                f"requests to {self.model}: ~{self.prompt_tokens} prompt tokens, up to "
                f"{self.max_completion_tokens} completion tokens; {money}")
        if self.too_long:
            line += (f"; WARNING: {self.too_long} items are past the model's context of "
                     f"{self.context_tokens} tokens and will be skipped (shorten the inputs)")
        return line


def budget_reservation(total: StepStats, reserved: float, budget_usd: float | None,
                       price: Price | None, messages: list[dict[str, str]],
                       max_tokens: int) -> float | None:
    """Dollars to set aside for the next request, or None when it would pass the budget.

    The estimate is this prompt plus the average completion seen so far (or
    ``min(256, max_tokens)`` before any answer), on top of the spend and the reservations of
    requests still in flight.
    """
    if budget_usd is None:
        return 0.0
    answered = max(total.requests - total.errors, 0)
    expected = (total.completion_tokens / answered if answered
                else min(DEFAULT_EXPECTED_OUTPUT, max_tokens))
    estimate = cost_usd(price, estimate_tokens(messages), int(expected))
    if total.cost_usd + reserved + estimate > float(budget_usd):
        return None
    return estimate


BUDGET_SKIP = "not attempted: the budget of $"


def budget_skip_message(budget_usd: float | None, spent_usd: float,
                        in_flight_usd: float = 0.0) -> str:
    """Why an item was skipped for the budget, with the money actually spent (and what
    requests still in flight had set aside when it stopped)."""
    flight = (f", ${in_flight_usd:.4f} set aside for requests in flight"
              if in_flight_usd > 0 else "")
    return (f"{BUDGET_SKIP}{budget_usd} was reached (${spent_usd:.4f} spent{flight}); "
            "completed answers are cached, re-run with a higher --budget to continue")


def unpriced_budget_note(spec: ModelSpec, budget_usd: float | None) -> str:
    """A budget needs a price: refused (IrforgeError) for a remote model; for a local one,
    the note that it has no effect."""
    if spec.backend != "llama":
        raise IrforgeError(
            f"--budget ${budget_usd} cannot be enforced: no price is known for "
            f"{spec.name} (every call would count as $0). Give the price with "
            "--price-per-mtok IN,OUT (dollars per million input/output tokens) or "
            "price_per_mtok = [IN, OUT] in the llm table of irforge.toml, or drop --budget")
    return f"--budget ${budget_usd} has no effect: {spec.name} runs locally and costs $0"


def summary_line(model: str, total: StepStats, budget_usd: float | None,
                 demo_grade: bool) -> str:
    """One line for CLIs: statuses, calls, cache hits, tokens, dollars, budget stop."""
    statuses = ", ".join(f"{n} {status}" for status, n in sorted(total.statuses.items()))
    line = (f"{model}: {statuses or 'nothing run'}; {total.requests} calls, "
            f"{total.cache_hits} cache hits, {total.retries} retries, "
            f"{total.prompt_tokens}+{total.completion_tokens} tokens, ${total.cost_usd:.4f}")
    if total.budget_stopped:
        line += (f"; BUDGET STOP at ${budget_usd}: skipped items were not attempted, "
                 "completed ones are kept")
    if demo_grade:
        line += "; demo grade (embedded model)"
    return line
