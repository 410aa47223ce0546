"""A warning when the benchmark does not separate two systems (each mean inside the other's
95% interval), none when it does."""

from __future__ import annotations

from dataclasses import dataclass, field

from irforge.eval.separation import separation_warnings, unseparated, within_each_other


@dataclass
class _System:
    name: str
    means: dict = field(default_factory=dict)
    ci: dict = field(default_factory=dict)


def test_overlapping_systems_are_named_in_a_warning() -> None:
    bm25 = _System("bm25", {"ndcg@10": 0.86}, {"ndcg@10": [0.71, 0.95]})
    dense = _System("dense", {"ndcg@10": 0.89}, {"ndcg@10": [0.76, 0.97]})
    [warning] = separation_warnings([bm25, dense], ["ndcg@10"], 11, [
        {"metric": "ndcg@10", "system_a": "bm25", "system_b": "dense",
         "randomization_p": 0.53}])
    assert warning.startswith("ndcg@10: the benchmark does not separate bm25 0.860 "
                              "[0.710, 0.950] and dense 0.890 [0.760, 0.970], p = 0.53")
    assert "on 11 queries" in warning


def test_separated_systems_give_no_warning() -> None:
    weak = _System("weak", {"ndcg@10": 0.30}, {"ndcg@10": [0.25, 0.35]})
    strong = _System("strong", {"ndcg@10": 0.80}, {"ndcg@10": [0.74, 0.86]})
    assert unseparated([weak, strong], "ndcg@10") == []
    assert separation_warnings([weak, strong], ["ndcg@10"], 200) == []
    # one mean inside the other's interval but not the reverse: separated enough to say so
    assert not within_each_other(0.50, [0.45, 0.55], 0.58, [0.54, 0.62])
