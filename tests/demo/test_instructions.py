"""The instructions demo stage keeps units with the embedded model, each passing the checks."""

from __future__ import annotations

import pytest

from irforge.check.folder import check_benchmark
from irforge.core.bench import Benchmark
from irforge.data.sample import sample_docs
from irforge.demo import STAGES
from irforge.demo.instructions import DEMO_QUERIES, demo_pairs
from irforge.generators.instructions.dimensions import load_dimensions
from irforge.generators.instructions.steps import check_instruction, check_reversal


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
