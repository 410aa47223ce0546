"""Rerankers: yes/no-logit pointwise (llama.cpp and transformers), cross-encoder, listwise."""

from __future__ import annotations

import math

import pytest

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc, Query, Run
from irforge.eval.rerankers import get_reranker
from irforge.eval.rerankers.listwise import ListwiseReranker, apply_ranking, window_starts
from irforge.eval.rerankers.pointwise import (
    LlamaYesNo,
    PointwiseLLMReranker,
    TransformersYesNo,
    yes_probability,
)
from irforge.llm import Engine
from irforge.llm.settings import embedded_gguf
from irforge.testing.scripted import Action, Rule, Script, ScriptedServer

DOCS = {d.doc_id: d for d in [
    Doc("paris", "Paris is the capital and largest city of France."),
    Doc("bread", "Knead the dough for ten minutes, then let it rise for an hour."),
    Doc("lyon", "Lyon is a city in France known for its cuisine."),
    Doc("tides", "Tides are caused by the gravitational pull of the moon."),
]}
QUERIES = [Query("q1", "What is the capital of France?"), Query("q2", "How do I bake bread?")]
RUN = Run("first", {"q1": {"lyon": 3.0, "paris": 2.0, "bread": 1.0, "tides": 0.5},
                    "q2": {"tides": 3.0, "bread": 2.0, "paris": 1.0}})


def _head_and_tail(run: Run, query_id: str, k: int) -> tuple[set[str], list[str]]:
    """The reranked top k (as a set) and the tail below it, which must keep RUN's order."""
    ranking = [d for d, _ in run.ranked(query_id)]
    head, tail = ranking[:k], ranking[k:]
    scores = run.scores[query_id]
    assert all(scores[t] < min(scores[h] for h in head) for t in tail)
    return set(head), tail


@pytest.fixture(scope="module")
def llama_scorer():
    return LlamaYesNo()


def test_yes_probability_is_the_two_way_softmax():
    assert yes_probability(2.0, 2.0) == 0.5
    assert yes_probability(3.0, 1.0) == pytest.approx(math.exp(3) / (math.exp(3) + math.exp(1)))


def test_pointwise_llama_reranks_top_k_with_probabilities(llama_scorer):
    reranker = PointwiseLLMReranker(llama_scorer)
    run = reranker.rerank(QUERIES, DOCS, RUN, k=2)
    assert _head_and_tail(run, "q1", 2) == ({"lyon", "paris"}, ["bread", "tides"])
    assert _head_and_tail(run, "q2", 2) == ({"tides", "bread"}, ["paris"])
    values = [run.scores[q][d] for q, head in (("q1", ("lyon", "paris")),
                                                ("q2", ("tides", "bread"))) for d in head]
    assert all(0.0 < v < 1.0 for v in values)
    assert reranker.failed_calls == 0
    assert len(set(values)) > 1  # the model's answer depends on the pair
    prompt = reranker.conversation("capital of France", "Paris is...")[-1]["content"]
    assert "capital of France" in prompt and "Paris is..." in prompt


@pytest.mark.slow
def test_transformers_backend_agrees_with_llama_cpp_on_the_same_gguf(llama_scorer):
    pytest.importorskip("gguf")
    pairs = [(QUERIES[0].text, DOCS["paris"].text), (QUERIES[1].text, DOCS["tides"].text)]
    llama = PointwiseLLMReranker(llama_scorer).score_texts(pairs)
    hf = PointwiseLLMReranker(TransformersYesNo(str(embedded_gguf()))).score_texts(pairs)
    assert hf == pytest.approx(llama, abs=0.1)


def test_reranking_a_run_with_documents_outside_the_corpus_is_a_clear_error(llama_scorer):
    run = Run("bad", {"q1": {"ghost": 1.0}})
    with pytest.raises(IrforgeError, match="not in the corpus"):
        PointwiseLLMReranker(llama_scorer).rerank(QUERIES[:1], DOCS, run, k=5)


def test_cross_encoder_scores_pairs_and_keeps_k(monkeypatch):
    torch = pytest.importorskip("torch")
    from irforge.retrievers.dense import default_model_path

    torch.manual_seed(0)  # MiniLM has no trained relevance head: a seeded random one
    reranker = get_reranker(f"cross-encoder:{default_model_path()}")
    run = reranker.rerank(QUERIES, DOCS, RUN, k=2)
    assert _head_and_tail(run, "q1", 2) == ({"lyon", "paris"}, ["bread", "tides"])
    direct = reranker.score_pairs([(QUERIES[0].text, "Lyon is a city in France known for its "
                                                     "cuisine.")])
    assert run.scores["q1"]["lyon"] == pytest.approx(float(direct[0]), abs=1e-5)


def test_window_schedule_and_ranking_repair():
    assert window_starts(5, window=20, step=10) == [0]
    assert window_starts(30, window=20, step=10) == [10, 0]
    assert window_starts(45, window=20, step=10) == [25, 15, 5, 0]
    assert apply_ranking(["a", "b", "c", "d"], [3, 3, 9, 1]) == ["c", "a", "b", "d"]


def test_listwise_through_the_scripted_server_moves_docs_and_survives_a_failure(tmp_path):
    script = Script(
        default=Action.answer({"ranking": [2, 1]}),
        rules=(Rule("bake bread", (Action.error(500),)),),
    )
    with ScriptedServer(script) as server:
        engine = Engine("openai/scripted", api_base=server.url, cache_path=tmp_path / "c.db",
                        concurrency=1, max_retries=0, progress=False)
        reranker = ListwiseReranker(engine, window=2, step=1)
        run = reranker.rerank(QUERIES, DOCS, RUN, k=3)
    # q1 [lyon, paris, bread]: windows (paris, bread) -> (bread, paris); then (lyon, bread)
    # and tides, below the top 3, stays last
    assert [d for d, _ in run.ranked("q1")] == ["bread", "lyon", "paris", "tides"]
    # q2's calls fail: its windows keep the first-stage order
    assert [d for d, _ in run.ranked("q2")] == ["tides", "bread", "paris"]
    assert reranker.failed_calls == reranker.failed_windows == 2
    assert sum(reranker.failure_reasons.values()) == 2


def test_listwise_with_the_embedded_model_returns_a_permutation(tmp_path):
    engine = Engine(cache_path=tmp_path / "c.db", progress=False)
    reranker = ListwiseReranker(engine, window=3, step=2)
    run = reranker.rerank(QUERIES[:1], DOCS, RUN, k=3)
    assert _head_and_tail(run, "q1", 3) == ({"bread", "lyon", "paris"}, ["tides"])
    assert reranker.failed_calls == 0
