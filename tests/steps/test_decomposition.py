"""The one adaptive decomposer's coverage check (shared by MultiConIR and the eval pipelines)."""

from __future__ import annotations

from irforge.steps.decomposition import SubQuery, cleaned, coverage_reasons


def test_adaptive_decomposition_covers_each_condition_once():
    subs = [SubQuery(text="a 1987  novel about bees", conditions=[1, 2]),
            SubQuery(text="prize winner", conditions=[3])]
    assert coverage_reasons(subs, 3) == []
    assert [s.text for s in cleaned(subs)] == ["a 1987 novel about bees", "prize winner"]
    assert any("exactly once" in r
               for r in coverage_reasons([*subs, SubQuery(text="again", conditions=[1])], 3))
    assert any("exactly once" in r for r in coverage_reasons(subs[:1], 3))
    assert any("covers no condition" in r
               for r in coverage_reasons([SubQuery(text="x", conditions=[])], 1))
    assert coverage_reasons([], 2) == ["no sub-query"]
    many = [SubQuery(text=f"part {i}", conditions=[i]) for i in range(1, 5)]
    assert coverage_reasons(many, 4, max_subqueries=3) == ["4 sub-queries (max 3)"]
