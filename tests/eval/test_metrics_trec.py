"""The trec measures: hand-computed cases, the tie rule, and equality with pytrec_eval."""

from __future__ import annotations

import math
import random

import pytest

from irforge.core.records import Run
from irforge.eval import evaluate
from irforge.eval.metrics import EvaluationInputError, UnknownMetricError, parse_metric

QRELS = {"q1": {"a": 2, "b": 0, "c": 1, "z": 1}, "q2": {"x": 1}}
RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1}, "q2": {"y": 1.0, "x": 0.5}}


def test_hand_computed_values_per_query():
    table = evaluate(QRELS, RUN, ["ndcg@3", "p@2", "recall@3", "map", "mrr", "judged@4"],
                     per_query=True)
    q1 = table["q1"]
    dcg = 2 / math.log2(2) + 0 + 1 / math.log2(4)
    idcg = 2 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert q1["ndcg@3"] == pytest.approx(dcg / idcg, abs=1e-12)
    assert q1["p@2"] == 0.5
    assert q1["recall@3"] == pytest.approx(2 / 3)
    assert q1["map"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert q1["mrr"] == 1.0
    assert q1["judged@4"] == 0.75
    assert table["q2"]["mrr"] == 0.5
    assert table["q2"]["map"] == 0.5


def test_judged_on_a_run_shorter_than_k_divides_by_its_length_as_ir_measures():
    import ir_measures

    # q1 lists 4 documents, 3 of them judged; q2 lists 2, one of them judged
    ours = evaluate(QRELS, RUN, ["judged@10"], per_query=True)
    assert ours == {"q1": {"judged@10": 0.75}, "q2": {"judged@10": 0.5}}
    theirs = {m.query_id: m.value for m in ir_measures.iter_calc(
        [ir_measures.parse_measure("Judged@10")], QRELS, RUN)}
    assert theirs == {"q1": 0.75, "q2": 0.5}


def test_means_and_run_record_and_missing_queries():
    qrels = {**QRELS, "q3": {"k": 1}}
    means = evaluate(qrels, Run("r", RUN), ["mrr"], missing="zero")
    assert means["mrr"] == pytest.approx((1.0 + 0.5 + 0.0) / 3)
    skipped = evaluate(qrels, RUN, ["mrr"], missing="skip")
    assert skipped["mrr"] == pytest.approx(0.75)
    # the default is pytrec_eval's: the query the run lacks is left out
    assert evaluate(qrels, RUN, ["mrr"]) == skipped


def test_default_mean_equals_pytrec_eval_when_the_run_misses_a_query():
    import pytrec_eval

    qrels = {**QRELS, "q3": {"k": 1}}
    ours = evaluate(qrels, RUN, ["map"], per_query=True)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(RUN)
    assert set(ours) == set(theirs) == {"q1", "q2"}


def test_pytrec_eval_spellings_are_accepted_and_returned_as_asked():
    names = ["ndcg_cut.10", "P.5", "ndcg_cut_3", "recall.100", "map_cut.10", "recip_rank",
             "P@2", "ndcg@10"]
    means = evaluate(QRELS, RUN, names)
    assert list(means) == names
    assert means["ndcg_cut.10"] == means["ndcg@10"]
    assert means["P.5"] == evaluate(QRELS, RUN, ["p@5"])["p@5"]
    assert means["P@2"] == pytest.approx((0.5 + 0.5) / 2)
    # pytrec_eval's cutoff lists expand to one key per cutoff
    assert list(evaluate(QRELS, RUN, ["P.5,10"])) == ["P.5", "P.10"]
    table = evaluate(QRELS, RUN, ["ndcg_cut.10"], per_query=True)
    assert set(table["q1"]) == {"ndcg_cut.10"}


def test_pytrec_eval_spellings_equal_pytrec_eval():
    import pytrec_eval

    names = {"ndcg_cut.10": "ndcg_cut_10", "P.5": "P_5", "recall.100": "recall_100",
             "map": "map", "recip_rank": "recip_rank"}
    ours = evaluate(QRELS, RUN, list(names), per_query=True)
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, set(names)).evaluate(RUN)
    for query_id, values in theirs.items():
        for asked, key in names.items():
            assert ours[query_id][asked] == pytest.approx(values[key], abs=1e-12)


def test_ties_follow_trec_eval_docno_descending():
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 1.0}}
    # trec_eval orders ties by doc id descending: c, b, a -> the relevant "a" is third.
    assert evaluate(qrels, run, ["mrr"])["mrr"] == pytest.approx(1 / 3)
    run = {"q": {"c": 1.0, "b": 1.0, "a": 1.0, "z": 0.5}}
    assert evaluate({"q": {"z": 1}}, run, ["mrr"])["mrr"] == pytest.approx(1 / 4)


def test_relevance_level_changes_binary_measures_only():
    both = evaluate(QRELS, RUN, ["p@3", "ndcg@3"], per_query=True, relevance_level=2)["q1"]
    assert both["p@3"] == pytest.approx(1 / 3)
    default = evaluate(QRELS, RUN, ["ndcg@3"], per_query=True)["q1"]
    assert both["ndcg@3"] == default["ndcg@3"]


@pytest.mark.parametrize("name", ["ndcg@", "bleu@10", "p", "map@0", "mrr@x", "judged"])
def test_bad_metric_names_are_clear_errors(name):
    with pytest.raises(UnknownMetricError, match="metric"):
        parse_metric(name)


@pytest.mark.parametrize(("trec", "ours"), [
    ("ndcg_cut_10", "ndcg@10"), ("P_5", "p@5"), ("recip_rank", "mrr"), ("map_cut_20", "map@20"),
    ("Rprec", "rprec"), ("bpref", "bpref"), ("success_10", "success@10"),
    ("recall_100", "recall@100"), ("R-precision", "rprec")])
def test_trec_eval_names_are_aliases(trec, ours):
    assert str(parse_metric(trec)) == ours
    measure = parse_metric(ours)
    assert measure.trec_name in (None, trec) or trec == "R-precision"


def test_paper_measures_are_in_the_same_registry_with_their_files():
    wise = parse_metric("wise")
    assert str(wise) == "wise@20" and wise.is_paper
    assert "qrels/og.tsv" in wise.spec.needs
    assert parse_metric("LSNC@100").spec.needs == ("logical/negation_labels.jsonl",)
    assert str(parse_metric("flip_rate")) == "flip-rate"
    with pytest.raises(UnknownMetricError, match="paper measure"):
        evaluate(QRELS, RUN, ["wise"])


def test_metric_names_parse_case_insensitively():
    assert str(parse_metric("nDCG@10")) == "ndcg@10"
    assert str(parse_metric("P@5")) == "p@5"
    assert parse_metric("recip_rank").name == "mrr"
    assert parse_metric("map@100").trec_name == "map_cut_100"


def test_empty_qrels_is_a_clear_error():
    with pytest.raises(EvaluationInputError, match="qrels are empty"):
        evaluate({}, RUN, ["map"])


def _random_case(seed: int, queries: int = 60):
    rng = random.Random(seed)
    qrels, run = {}, {}
    for q in range(queries):
        docs = [f"d{rng.randrange(400)}" for _ in range(rng.randrange(1, 80))]
        run[f"q{q}"] = {d: float(rng.choice([0.5, 1.0, 1.5, rng.random()])) for d in docs}
        judged = rng.sample(range(400), rng.randrange(0, 30))
        qrels[f"q{q}"] = {f"d{d}": rng.choice([0, 0, 1, 2, 3]) for d in judged}
    return qrels, run


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("level", [1, 2])
def test_equal_to_pytrec_eval_on_random_runs_with_ties(seed, level):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = _random_case(seed)
    names = ["ndcg@10", "ndcg", "p@5", "p@20", "recall@10", "recall@100", "map", "map@10",
             "mrr", "rprec", "bpref", "success@1", "success@10"]
    measures = [parse_metric(name) for name in names]
    ours = evaluate(qrels, run, names, per_query=True, relevance_level=level, missing="skip")
    theirs = pytrec_eval.RelevanceEvaluator(
        qrels, {m.trec_name for m in measures}, relevance_level=level).evaluate(run)
    assert set(ours) == set(theirs)
    for query_id, values in theirs.items():
        for measure in measures:
            assert ours[query_id][str(measure)] == pytest.approx(
                values[measure.trec_name], abs=1e-9), (query_id, str(measure))
