"""Tiny benchmark folders with LLM judgments, and a person-like annotation writer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Judgment, Query

PROMPTS = ("relevance.direct", "relevance.cot", "relevance.attributes")
INTENTS = ("QA", "FC")
MORE_CONTROLS = [  # relevance/controls.jsonl rows of both answers for q2 and q3 (12+ queries)
    {"control_id": f"i{n:012x}", "query_id": f"q{q}", "query": f"flood warning region {q}",
     "doc_id": doc, "kind": kind, "expected": expected, "intent": INTENTS[q % 2],
     "passage": "", "labels": {"zero_shot": 2.0}}
    for n, (q, doc, kind, expected) in enumerate(
        [(2, "d2", "positive", 1), (2, "d9", "other-document", 0),
         (3, "d3", "positive", 1), (3, "d8", "other-document", 0)])]


def relevance_bench(root: Path, queries: int = 12, seed: int = 0) -> Benchmark:
    """Queries with intents, one passage each, three prompts' 0-3 labels per pair."""
    rng = np.random.default_rng(seed)
    bench = Benchmark(root)
    bench.write_corpus([Doc(f"d{i}", f"Passage {i} about flood warnings in region {i}.",
                            title=f"Doc {i}") for i in range(queries)])
    bench.write_queries([Query(f"q{i}", f"flood warning region {i}",
                               {"intent": INTENTS[i % 2]}) for i in range(queries)])
    judgments = []
    for i in range(queries):
        base = int(rng.integers(0, 4))
        for prompt in PROMPTS:
            label = int(np.clip(base + rng.integers(-1, 2), 0, 3))
            judgments.append(Judgment(f"q{i}", f"d{i}", label, "llm", prompt_id=prompt,
                                      model="smollm2", raw_output=str(label)))
    bench.add_judgments(judgments)
    return bench


def choice(control: str, to_name: str, value: str) -> dict[str, Any]:
    return {"from_name": control, "to_name": to_name, "type": "choices",
            "value": {"choices": [value]}}


def full_result(job: Any, label: float) -> list[dict[str, Any]]:
    """A complete answer to a job's task: ``label`` in the label control (the nearest
    choice) and the first value of every other control (logical_structure's verdict)."""
    out = []
    for control in job.config.controls.values():
        value = job.choice_for(label) if control.name == job.label_control else control.values[0]
        out.append(choice(control.name, control.to_name, value))
    return out
