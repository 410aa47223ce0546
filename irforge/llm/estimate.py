"""The ``--dry-run`` forecast of a run: what it would send and cost, sending nothing."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from irforge.llm.accounting import Estimate, cost_usd, count_prompt_tokens
from irforge.llm.result import LLMResult

if TYPE_CHECKING:
    from irforge.llm.host import EngineCore


def estimate_run(engine: EngineCore, items: Sequence[Mapping[str, Any]], template_name: str,
                 output_model: type[BaseModel]) -> Estimate:
    """Requests not answered by the cache, their prompt tokens by the model's tokenizer, and
    their cost at most (every answer at ``max_tokens``), batch-discounted when batching."""
    from irforge.llm.batch import supports_batch

    plan = engine._plan(template_name, output_model, None)
    cached = requests = prompt_tokens = too_long = 0
    for index, item in enumerate(items):
        job = engine._prepare(index, item, plan)
        if isinstance(job, LLMResult):
            too_long += job.status == "skipped"
            continue
        if engine.cache is not None and engine.cache.contains(job.request_key()):
            cached += 1
            continue
        requests += 1
        prompt_tokens += count_prompt_tokens(engine.spec, job.messages)
    completion = requests * int(engine.params["max_tokens"])
    price = engine.price
    spec = engine.spec
    scale = (engine.batch_discount if engine.batch and supports_batch(
        spec.backend, spec.name, spec.api_base) else 1.0)
    return Estimate(model=spec.name, items=len(items), cached_items=cached,
                    requests=requests, prompt_tokens=prompt_tokens,
                    max_completion_tokens=completion,
                    input_cost_usd=scale * cost_usd(price, prompt_tokens, 0),
                    max_cost_usd=scale * cost_usd(price, prompt_tokens, completion),
                    priced=price is not None, too_long=too_long,
                    context_tokens=engine.context_tokens)
