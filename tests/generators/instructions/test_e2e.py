"""End to end with the embedded local model (SmolLM2-135M, demo grade) on an Audience pair.

The model is tiny, so most items are expected to fail validation. What must hold: the build
completes, everything it produced passes the validators, and every item the engine was asked
for is either accepted (a judgment) or recorded in failures.jsonl with a reason. The pair's
document is rewritten for other audiences by the model; the Keyword dimension's steps with
this model are ``make demo``'s instructions stage (tests/demo/test_instructions.py).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.core.records import Doc
from irforge.generators.instructions import BuildSettings, build_instructions, load_dimensions
from irforge.generators.instructions.pairs import Pair
from irforge.generators.instructions.steps import (
    check_instruction,
    check_reversal,
)
from irforge.steps.runner import BuildRunner
from tests.generators.instructions.recheck import recheck

pytest.importorskip("llama_cpp")

EXPERT = ("Flood early-warning systems couple quantitative precipitation forecasts with "
          "hydrological rainfall-runoff models. When the modelled river stage exceeds "
          "predefined thresholds at telemetered gauges, tiered alerts are disseminated to "
          "emergency managers and the public.")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    from irforge.llm import Engine

    root = tmp_path_factory.mktemp("e2e")
    pairs = [Pair("q1", "How do flood warnings work?", Doc("d1", EXPERT), "audience", None)]
    with Engine(None, cache_path=root / "cache.sqlite", max_tokens=160, progress=False) as engine:
        assert engine.demo_grade
        report = build_instructions(BuildRunner.open(engine, root / "bench", "instructions"), pairs,
                                    load_dimensions(), BuildSettings(hard_negatives=1, seed=1))
    return root / "bench", report, pairs


@pytest.mark.slow
def test_build_completes_and_accounts_for_every_item(built):
    root, report, _ = built
    manifest = json.loads((root / "manifest.json").read_text())
    llm = manifest["steps"]["instructions"]["engine"]
    assert llm["demo_grade"] is True
    bench = Benchmark(root)
    accepted = Counter(j.task for j in bench.judgments())
    failed = Counter(f.step for f in bench.failures())
    assert all(f.reason for f in bench.failures())
    yields = {row["step"]: row for row in manifest["steps"]["instructions"]["yield"]}
    assert yields["instructions.rewrite"]["attempted"] >= 1  # the model rewrote the document
    for step, stats in llm["steps"].items():
        # every item is accepted or failed once; best-of-n may ask the engine more often
        assert accepted[step] + failed[step] == yields[step]["attempted"], step
        assert stats["items"] >= yields[step]["attempted"], step
    assert dict(failed) == report.failures_by_step
    if report.counts.get("units"):
        assert check_benchmark(root).ok


@pytest.mark.slow
def test_everything_produced_passes_validation(built):
    """Every accepted output (judgments.jsonl) and every written query/doc passes the checks."""
    root, _, pairs = built
    bench = Benchmark(root)
    dims = load_dimensions()
    texts = {p.doc.doc_id: p.doc.text for p in pairs}
    for judgment in bench.judgments():
        recheck(judgment, pairs, dims, lambda _: list(texts.values()))
    for query in bench.queries() if (root / "queries.jsonl").exists() else ():
        meta = query.metadata
        condition = dims[meta["dimension"]].value(meta["condition"])
        assert check_instruction(meta["instructed"], query.text, condition) == []
        assert check_reversal(meta["reversed"], meta["instructed"], query.text, condition) == []
