"""Where a benchmark's qrels came from, read from its manifest, for the report's provenance block.

Sources: ``shipped`` (irforge's seed benchmark), ``human`` (annotation pulled from Label Studio),
``llm`` (a generator or the relevance labeller: models, strategies, demo grade), else
``unknown`` (no manifest entry says; e.g. a downloaded BEIR set).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from irforge.core.bench import Benchmark


def _llm_entries(value: Any) -> Iterator[Mapping[str, Any]]:
    """Every nested manifest entry that describes a model (``model`` + ``demo_grade``)."""
    if isinstance(value, Mapping):
        if "model" in value and "demo_grade" in value:
            yield value
        for child in value.values():
            yield from _llm_entries(child)
    elif isinstance(value, list):
        for child in value:
            yield from _llm_entries(child)


def qrels_provenance(bench: Benchmark) -> dict[str, Any]:
    """``{"source", "steps", "models", "strategies", "demo_grade"}`` from the manifest."""
    steps = dict(bench.manifest().get("steps", {}))
    models = sorted({str(e["model"]) for e in _llm_entries(steps)})
    demo = any(bool(e["demo_grade"]) for e in _llm_entries(steps))
    strategies = sorted({str(s) for entry in steps.values() if isinstance(entry, Mapping)
                         for s in (entry.get("strategies")
                                   or dict(entry.get("config") or {}).get("strategies")
                                   or [])})
    if any(name.startswith("annotate.pull") for name in steps):
        source = "human"
    elif models:
        source = "llm"
    elif "seed" in steps:
        source = "shipped"
    else:
        source = "unknown"
    return {"source": source, "steps": sorted(steps), "models": models,
            "strategies": strategies, "demo_grade": demo}


def describe(provenance: Mapping[str, Any]) -> str:
    """One sentence for the report."""
    source = provenance.get("source", "unknown")
    if source == "human":
        text = "human judgments (annotation pulled from Label Studio)"
    elif source == "llm":
        text = f"LLM judgments by {', '.join(provenance['models'])}"
        if provenance.get("strategies"):
            text += f" (strategies: {', '.join(provenance['strategies'])})"
    elif source == "shipped":
        text = "the seed benchmark shipped with irforge (hand-written)"
    else:
        text = "unknown (the manifest records no step that wrote them)"
    if provenance.get("demo_grade"):
        text += "; DEMO GRADE: made with the embedded SmolLM2-135M, not for citing"
    return text
