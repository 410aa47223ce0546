"""The instructions demo stage keeps units with the embedded model, each passing the checks.

The demo's Keyword groups are the embedded model's run through keyword, instruction, reversal
and hard-negative steps (tests/generators/instructions/test_e2e.py runs the rewrite of a
whole document): every accepted output passes its check again and every item is accounted for.
"""

from __future__ import annotations

from collections import Counter

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.data.sample import sample_docs
from irforge.demo import STAGES
from irforge.demo.instructions import DEMO_QUERIES, demo_pairs
from irforge.generators.instructions.dimensions import load_dimensions
from irforge.generators.instructions.steps import (
    check_instruction,
    check_reversal,
)
from tests.generators.instructions.recheck import recheck


def test_demo_stage_is_registered_and_every_core_query_has_two_documents():
    assert "instructions" in [name for name, _ in STAGES]
    pairs = demo_pairs(sample_docs())
    for query_id, _, _ in DEMO_QUERIES:
        assert len([p for p in pairs if p.query_id == query_id]) == 2


@pytest.mark.slow
def test_embedded_model_keeps_at_least_one_group_and_every_unit_passes(demo_stage_output):
    folder, summary = demo_stage_output("instructions", "instructions-bench")
    bench = Benchmark(folder)
    queries = list(bench.queries())
    assert queries, summary
    assert check_benchmark(bench.root).ok
    dims = load_dimensions()
    for query in queries:
        meta = query.metadata
        condition = dims[meta["dimension"]].value(meta["condition"])
        assert check_instruction(meta["instructed"], query.text, condition) == []
        assert check_reversal(meta["reversed"], meta["instructed"], query.text, condition) == []
    rows = bench.manifest()["steps"]["instructions"]["yield"]
    assert next(r for r in rows if r["step"] == "instructions.reverse")["accepted"] >= 1
    assert_every_item_is_accepted_or_failed_once(bench)
    assert_every_accepted_output_passes_its_check(bench)


def assert_every_item_is_accepted_or_failed_once(bench: Benchmark) -> None:
    """Each LLM step's items are accepted (a judgment) or in failures.jsonl with a reason."""
    entry = bench.manifest()["steps"]["instructions"]
    accepted = Counter(j.task for j in bench.judgments())
    failed = Counter(f.step for f in bench.failures())
    assert all(f.reason for f in bench.failures())
    yields = {row["step"]: row for row in entry["yield"]}
    assert entry["engine"]["demo_grade"] is True and entry["engine"]["steps"]
    for step, stats in entry["engine"]["steps"].items():
        # best-of-n may ask the engine more often than there are items
        assert accepted[step] + failed[step] == yields[step]["attempted"], step
        assert stats["items"] >= yields[step]["attempted"], step


def assert_every_accepted_output_passes_its_check(bench: Benchmark) -> None:
    """Every accepted output of judgments.jsonl passes its step's check on the demo's pairs."""
    pairs = demo_pairs(sample_docs())
    dims = load_dimensions()
    tasks = Counter()
    for judgment in bench.judgments():
        tasks[judgment.task] += 1
        recheck(judgment, pairs, dims, lambda query_id: [
            p.doc.text for p in pairs if p.query_id == query_id])
    # the Keyword dimension's conditions come from the model, then its instructions
    assert tasks["instructions.keyword"] >= 1 and tasks["instructions.instruction"] >= 1, tasks
