"""Best-of-n request parameters: how sample ``i`` of an item differs from the engine's own.

Sample 0 is the engine's request; later samples are drawn at a temperature of at least
:data:`SAMPLE_TEMPERATURE` with the seed moved by the sample index (which is also part of the
cache key, so a re-run is answered from the cache).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# best-of-n: samples after the first are drawn at this temperature (at least)
SAMPLE_TEMPERATURE = 0.7
# best-of-n default for in-process GGUF models (API models default to one sample)
LOCAL_SAMPLES = 3


def default_samples(backend: str) -> int:
    """Best-of-n default: small local models get a few tries, paid APIs one."""
    return LOCAL_SAMPLES if backend == "llama" else 1


def sample_params(params: Mapping[str, Any], sample: int,
                  max_tokens: int | None) -> dict[str, Any]:
    """Request params of sample ``sample`` (0 = the engine's own) under a step token limit."""
    out = dict(params)
    if max_tokens is not None:
        out["max_tokens"] = max(1, min(int(max_tokens), int(params["max_tokens"])))
    if sample:
        out["temperature"] = max(float(params.get("temperature") or 0.0), SAMPLE_TEMPERATURE)
        out["seed"] = int(params.get("seed") or 0) + sample
    return out
