"""Decomposers, fusion and the stage-aware pipelines on a small multi-condition corpus."""

from __future__ import annotations

import pytest

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Query, Run
from irforge.eval.pipelines import (
    AdaptiveDecomposer,
    decomposed_retrieve,
    first_stage_diagnostics,
    get_decomposer,
    plain_rerank,
    rrf,
    score_sum,
    stage_aware_rerank,
)
from irforge.eval.pipelines.decompose import conditions_of, group_sizes
from irforge.eval.pipelines.fusion import RETRIEVAL_FUSIONS
from irforge.eval.rerankers.cross import CrossEncoderReranker
from irforge.llm import Engine
from irforge.retrievers import get_retriever
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

CONDITIONS = ["set in Norway", "written after 2010", "a female detective", "a winter setting",
              "a murder in a fishing village"]
QUERY = Query("q", "Find a crime novel.", {"conditions": CONDITIONS, "stem": "A crime novel:"})


def test_group_sizes_follow_k_to_j():
    assert group_sizes(3, 2, 3) == [3]
    assert group_sizes(4, 2, 3) == [2, 2]
    assert group_sizes(5, 2, 3) == [3, 2]
    assert group_sizes(10, 2, 3) == [3, 3, 2, 2]
    assert group_sizes(4, 1, 1) == [1, 1, 1, 1]
    with pytest.raises(ValueError):
        group_sizes(4, 3, 2)


def test_naive_and_fixed_decomposers_cover_every_condition_once():
    naive = get_decomposer("naive").decompose([QUERY])["q"]
    assert [s.metadata["conditions"] for s in naive] == [[c] for c in CONDITIONS]
    assert naive[0].text == "A crime novel: set in Norway"
    fixed = get_decomposer("fixed").decompose([QUERY])["q"]
    assert [len(s.metadata["conditions"]) for s in fixed] == [3, 2]
    assert [c for s in fixed for c in s.metadata["conditions"]] == CONDITIONS
    assert fixed[0].query_id == "q::0" and fixed[0].metadata["parent"] == "q"
    short = Query("s", "Red apples; from Kent")
    assert get_decomposer("fixed:2-3").decompose([short])["s"][0].text == short.text
    assert conditions_of(short) == ["Red apples", "from Kent"]
    with pytest.raises(IrforgeError, match="fixed:K-J"):
        get_decomposer("fixed:3-x")


def test_adaptive_decomposer_uses_the_engine_and_falls_back_on_failure(tmp_path):
    script = Script(default=Action.answer({"subqueries": [
        {"text": "novel set in Norway", "conditions": [1, 4, 5]},
        {"text": "female detective after 2010", "conditions": [2, 3]}]}),
                    rules=(Rule("bad query", (Action.answer({"subqueries": []}),)),))
    with ScriptedServer(script) as server:
        engine = Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.db",
                        progress=False, max_retries=0)
        decomposer = AdaptiveDecomposer(engine)
        out = decomposer.decompose([QUERY, Query("b", "bad query")])
    assert [s.text for s in out["q"]] == ["novel set in Norway", "female detective after 2010"]
    assert [s.text for s in out["b"]] == ["bad query"]
    assert [f.item_id for f in decomposer.failures] == ["b"]
    assert [s.metadata["conditions"] for s in out["q"]] == [
        ["set in Norway", "a winter setting", "a murder in a fishing village"],
        ["written after 2010", "a female detective"]]


def test_rrf_and_score_sum_by_hand():
    a = {"x": 3.0, "y": 2.0}
    b = {"y": 5.0, "z": 1.0}
    fused = rrf([a, b], k=60)
    assert fused["y"] == pytest.approx(1 / 62 + 1 / 61)
    assert fused["x"] == pytest.approx(1 / 61)
    assert score_sum([a, b]) == {"x": 3.0, "y": 7.0, "z": 1.0}
    assert score_sum([a, b], missing="min") == {"x": 4.0, "y": 7.0, "z": 3.0}
    # retrieval lists: b is below a in the first list and absent from the second; with
    # negative scores, adding 0 for "absent" would put it first, the list's minimum does not
    lists = [{"a": -0.5, "b": -0.6}, {"a": -0.5}]
    assert max(score_sum(lists), key=score_sum(lists).get) == "b"
    assert RETRIEVAL_FUSIONS["sum"](lists) == {"a": -1.0, "b": pytest.approx(-1.1)}


DOCS = [
    Doc("pos", "A crime novel set in Norway, written after 2010, with a female detective, "
               "in winter, about a murder in a fishing village."),
    Doc("hn", "A crime novel set in Sweden, written in 1990, with a male detective, in summer, "
              "about a murder in a fishing village."),
    Doc("easy1", "Fishing villages of Norway export cod in winter."),
    Doc("easy2", "A guide to baking bread after 2010."),
]


def test_pipelines_run_end_to_end_with_diagnostics():
    import torch

    from irforge.retrievers.dense import default_model_path

    docs_by_id = {d.doc_id: d for d in DOCS}
    qrels = {"q": {"pos": 1, "hn": 0}}
    retriever = get_retriever("bm25")
    retriever.index(DOCS)
    query = Query(QUERY.query_id, " ".join([QUERY.metadata["stem"], *CONDITIONS]),
                  QUERY.metadata)
    first = retriever.search([query], k=4)
    torch.manual_seed(0)
    reranker = CrossEncoderReranker(str(default_model_path()))
    plain = plain_rerank([query], docs_by_id, first, reranker, k=4)
    staged = stage_aware_rerank([query], docs_by_id, first, reranker,
                                get_decomposer("fixed"), "sum", k=4)
    assert set(staged.scores["q"]) == set(plain.scores["q"]) == {d.doc_id for d in DOCS}
    subs = get_decomposer("fixed").decompose([query])["q"]
    expected = {d: sum(reranker.score_pairs([(s.text, docs_by_id[d].text)])[0] for s in subs)
                for d in docs_by_id}
    for doc_id, value in staged.scores["q"].items():
        assert value == pytest.approx(expected[doc_id], abs=1e-4)
    decomposed = decomposed_retrieve([query], retriever, get_decomposer("naive"), "rrf", k=2)
    assert 1 <= len(decomposed.scores["q"]) <= 2
    diag = first_stage_diagnostics(qrels, first, k=2)
    assert set(diag) == {"recall_failure@2", "easy_negative@2", "first_positive_rank"}
    assert diag["first_positive_rank"] >= 1
    one = Run("r", {"q": {"easy1": 2.0, "hn": 1.0, "pos": 0.5}})
    # the share of the top 2 that is an easy negative: easy1 of (easy1, hn)
    assert first_stage_diagnostics(qrels, one, k=2) == {
        "recall_failure@2": 1.0, "easy_negative@2": 0.5, "first_positive_rank": 3.0}
