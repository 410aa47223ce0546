"""The papers' metrics against values computed by hand from their formulas."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from irforge.eval.metrics import comlq, diagnostics, infosearch, multicon
from irforge.eval.metrics.ranks import mean, rank_of


def test_rank_of_uses_trec_tie_rule():
    docs = {"a": 1.0, "b": 1.0, "c": 2.0}
    assert rank_of(docs, "c") == 1
    assert rank_of(docs, "b") == 2
    assert rank_of(docs, "a") == 3
    assert rank_of(docs, "zzz") is None


def test_win_rate_counts_ties_as_losses_unless_asked():
    run = {"q1": {"pos": 0.9, "hn": 0.1}, "q2": {"pos": 0.5, "hn": 0.5},
           "q3": {"pos": 0.1, "hn": 0.2}}
    pairs = {q: ("pos", "hn") for q in run}
    assert multicon.win_rate(run, pairs) == pytest.approx(1 / 3)
    assert multicon.win_rate(run, pairs, tie_value=0.5) == pytest.approx(1.5 / 3)


def test_adjacent_win_rates_per_step():
    run = {"q": {"d0": 0.1, "d1": 0.3, "d2": 0.2, "pos": 0.9},
           "r": {"d0": 0.1, "d1": 0.2, "d2": 0.3, "pos": 0.05}}
    ladders = {"q": ["d0", "d1", "d2", "pos"], "r": ["d0", "d1", "d2", "pos"]}
    assert multicon.adjacent_win_rates(run, ladders) == {1: 1.0, 2: 0.5, 3: 0.5}


def test_flip_rate_counts_order_changes_between_formats():
    inst = {"q1": {"a": 2, "b": 1}, "q2": {"a": 1, "b": 2}, "q3": {"a": 1, "b": 1}}
    desc = {"q1": {"a": 1, "b": 2}, "q2": {"a": 1, "b": 2}, "q3": {"a": 2, "b": 1}}
    pairs = {q: ("a", "b") for q in inst}
    assert multicon.flip_rate(inst, desc, pairs) == pytest.approx(2 / 3)


def test_pairwise_metrics_name_the_missing_score():
    with pytest.raises(multicon.MissingScoreError, match="'hn'"):
        multicon.win_rate({"q": {"pos": 1.0}}, {"q": ("pos", "hn")})


def _ranking(order):
    """A run for one query where ``order`` lists doc ids best first."""
    return {doc: float(len(order) - i) for i, doc in enumerate(order)}


def test_wise_reward_and_penalty_cases_by_hand():
    assert infosearch.wise_reward(rank_og=2, rank_ins=1, n_original=3) == 1.0
    expected = (1 - math.sqrt(5 - 2) / 20) / math.sqrt(2)
    assert infosearch.wise_reward(5, 2, 1) == pytest.approx(expected)
    linear = (1 - (5 - 2) / 20) / math.sqrt(2)
    assert infosearch.wise_reward(5, 2, 1, shape="linear") == pytest.approx(linear)
    assert infosearch.wise_reward(30, 4, 1) == 0.01
    assert infosearch.wise_reward(30, 4, 1, beyond_k=0.0) == 0.0
    assert infosearch.wise_reward(30, 4, 1, k=50) == pytest.approx(
        (1 - math.sqrt(26) / 50) / 2)
    assert infosearch.wise_penalty(rank_og=5, rank_ins=9, rank_rev=2) == -1.0
    assert infosearch.wise_penalty(rank_og=2, rank_ins=8, rank_rev=9) == pytest.approx(-6 / 8)
    assert infosearch.wise_penalty(rank_og=6, rank_ins=3, rank_rev=2) == pytest.approx(-4 / 6)


def test_sicr_wise_pmrr_from_three_runs_and_qrels():
    og = {"q": _ranking(["x", "y", "gold", "z"])}
    ins = {"q": _ranking(["gold", "x", "y", "z"])}
    rev = {"q": _ranking(["x", "y", "z", "gold"])}
    qrels_og = {"q": {"x": 1, "gold": 1}}
    qrels_ins = {"q": {"gold": 1, "x": 0}}
    # R_og = 3, R_ins = 1, R_rev = 4; scores og 2 < ins 4, og 2 > rev 1: SICR holds.
    assert infosearch.sicr(og, ins, rev, qrels_og, qrels_ins) == {"q": 1.0}
    # R_og (3) > N (2): not the full reward; R_og <= K: (1 - sqrt(2)/20) / sqrt(1).
    assert infosearch.wise(og, ins, rev, qrels_og, qrels_ins)["q"] == pytest.approx(
        1 - math.sqrt(2) / 20)
    # p-MRR on the reversed run: the gold moved from 3 to 4 -> 1 - 3/4.
    pmrr = infosearch.p_mrr(og, rev, infosearch.gold_docs(qrels_ins))
    assert pmrr == {"q": pytest.approx(0.25)}
    assert infosearch.p_mrr_value(rank_og=10, rank_new=5) == pytest.approx(-0.5)


def test_sicr_fails_when_scores_do_not_move_with_ranks():
    og = {"q": {"gold": 0.5, "a": 0.9}}
    ins = {"q": {"gold": 0.4, "a": 0.1}}  # rank improves, score drops
    rev = {"q": {"gold": 0.1, "a": 0.9, "b": 0.8}}
    assert infosearch.sicr(og, ins, rev, {"q": {"gold": 1}}, {"q": {"gold": 1}}) == {"q": 0.0}


def test_missing_gold_gets_rank_past_the_end():
    og = {"q": _ranking(["a", "gold"])}
    ins = {"q": _ranking(["gold", "a"])}
    rev = {"q": _ranking(["a", "b", "c"])}  # gold absent: rank 4
    positions = infosearch.gold_positions(og, ins, rev, {"q": {"gold": 1}}, {"q": {"gold": 1}})
    assert (positions[0].rank_og, positions[0].rank_ins, positions[0].rank_rev) == (2, 1, 4)


def test_robustness_is_the_minimum_ndcg_over_variants():
    good = ({"q": {"a": 1}}, {"q": {"a": 2.0, "b": 1.0}})
    bad = ({"q": {"b": 1}}, {"q": {"a": 2.0, "b": 1.0}})
    value = infosearch.robustness_at_k([good, bad], k=10)
    assert value == {"q": pytest.approx(1 / math.log2(3))}


def test_lsnc_by_hand():
    run = {"q": _ranking(["v1", "ok", "v2", "v3"])}
    value = comlq.lsnc(run, {"q": {"v1", "v2", "v3"}}, k=3)["q"]
    assert value == pytest.approx(-math.log(3 / 4) / math.log(4))
    assert comlq.lsnc(run, {"q": set()}, k=3)["q"] == pytest.approx(1.0)
    # a query with an empty run gets no free 1.0: it is left out and counted
    assert comlq.lsnc({**run, "e": {}}, {"q": {"v1"}, "e": {"v1"}}, k=3).keys() == {"q"}
    assert comlq.empty_runs({**run, "e": {}}, {"q": {"v1"}, "e": {"v1"}, "f": set()}) == 2
    assert comlq.lsnc_value(3, 3) == pytest.approx(0.0)


def test_decomposition_diagnostics():
    qrels = {"q": {"pos": 1, "hn": 0}, "r": {"pos2": 1}}
    run = {"q": _ranking(["hn", "easy", "pos"]), "r": _ranking(["x", "y"])}
    assert diagnostics.recall_failure(qrels, run, k=2) == {"q": 1.0, "r": 1.0}
    assert diagnostics.recall_failure(qrels, run, k=3)["q"] == 0.0
    no_positive = {**qrels, "s": {"neg": 0}}
    assert "s" not in diagnostics.recall_failure(no_positive, run, k=2)
    assert diagnostics.easy_negative_rate(qrels, run, k=2, mode="any") == {"q": 1.0, "r": 1.0}
    assert diagnostics.easy_negative_rate(qrels, run, k=2) == {"q": 0.5, "r": 1.0}  # share
    share = diagnostics.easy_negative_rate(qrels, run, k=2, mode="share",
                                           hard_negatives={"r": ["x"]})
    assert share == {"q": 0.5, "r": 0.5}
    ranks = diagnostics.first_positive_rank(qrels, run)
    assert ranks == {"q": 3.0, "r": 3.0}
    assert mean(ranks) == 3.0


# -- MultiConIR items: computed once, averaged the same way by the summary and the registry --

def _multicon_folder(root: Path) -> Path:
    from irforge.core.jsonl import write_jsonl
    from irforge.core.layouts.multicon import LAYOUT

    def ladder(*docs: str) -> list[dict]:
        return [{"doc_id": doc, "satisfied": j} for j, doc in enumerate(docs)]

    write_jsonl(LAYOUT.path(root, "task1"), [
        {"query_id": "q1", "k": 1, "positive": "p", "hard_negative": "n"},
        {"query_id": "q2", "k": 1, "positive": "p", "hard_negative": "n"},
        {"query_id": "q3", "k": 2, "positive": "p", "hard_negative": "n"}])
    write_jsonl(LAYOUT.path(root, "task2"), [
        {"query_id": "X", "candidates": ladder("x0", "x1", "x2")},
        {"query_id": "Y", "candidates": ladder("y0", "y1")}])
    write_jsonl(LAYOUT.path(root, "task3"), [
        {"instruction_query": "A-inst", "descriptive_query": "A-desc",
         "candidates": ladder("a0", "a1", "a2")},
        {"instruction_query": "B-inst", "descriptive_query": "B-desc",
         "candidates": ladder("b0", "b1")}])
    return root


RUN = {
    "q1": {"p": 2.0, "n": 1.0}, "q2": {"p": 1.0, "n": 1.0}, "q3": {"p": 0.5, "n": 1.0},
    "X": {"x0": 1.0, "x1": 2.0, "x2": 1.5}, "Y": {"y0": 1.0, "y1": 0.0},
    # A: step 1 flips (inst: a1 > a0, desc: not), step 2 does not; B: step 1 flips
    "A-inst": {"a0": 1.0, "a1": 2.0, "a2": 3.0}, "A-desc": {"a0": 1.0, "a1": 0.5, "a2": 3.0},
    "B-inst": {"b0": 1.0, "b1": 2.0}, "B-desc": {"b0": 2.0, "b1": 1.0},
}


def _paper_values(root: Path, name: str) -> dict[str, float]:
    from irforge.eval.metrics.papers import PaperContext, compute
    from irforge.eval.metrics.registry import parse_metric

    ctx = PaperContext(bench_dir=root, qrels={}, run=RUN, task_run=RUN)
    return compute(parse_metric(name), ctx)


def test_flip_rate_is_the_mean_over_every_ladder_pair_as_in_the_paper(tmp_path: Path) -> None:
    """FR = (1/N) sum over the N adjacent pairs: A has 2 pairs (1 flip), B 1 pair (1 flip), so
    FR = 2/3; the per-query mean (1/2 + 1) / 2 = 0.75 weighs B's one pair like A's two."""
    from irforge.eval.task_metrics import multicon_metrics

    root = _multicon_folder(tmp_path)
    items = _paper_values(root, "flip-rate")
    assert items == {"A-inst#1": 1.0, "A-inst#2": 0.0, "B-inst#1": 1.0}
    summary = multicon_metrics(root, RUN)
    assert summary["flip_rate"] == pytest.approx(2 / 3)
    assert summary["flip_rate_pairs"] == 3
    assert sum(items.values()) / len(items) == pytest.approx(summary["flip_rate"])


def test_win_rates_by_k_from_the_one_item_function(tmp_path: Path) -> None:
    """WR_1: q1 wins, q2 ties (a loss) -> 1/2; WR_2: q3 loses -> 0. WR_{1,0}: X wins, Y loses
    -> 1/2; WR_{2,1}: X's x2 < x1 -> 0."""
    from irforge.eval.task_metrics import multicon_metrics

    root = _multicon_folder(tmp_path)
    summary = multicon_metrics(root, RUN)
    assert summary["win_rate_by_k"] == {1: 0.5, 2: 0.0}
    assert summary["win_rate_queries_by_k"] == {1: 2, 2: 1}
    assert summary["adjacent_win_rate"] == {1: 0.5, 2: 0.0}
    assert _paper_values(root, "wr@1") == {"q1": 1.0, "q2": 0.0}
    assert _paper_values(root, "wr") == {"q1": 1.0, "q2": 0.0, "q3": 0.0}
    assert _paper_values(root, "awr@1") == {"X": 1.0, "Y": 0.0}
    assert _paper_values(root, "awr") == {"X#1": 1.0, "X#2": 0.0, "Y#1": 0.0}
