"""A small benchmark folder to export: the shipped sample plus an instruction query, a second
qrels split, tool outputs that loaders must not see, and a TREC run from the eval runner."""

from __future__ import annotations

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Query, Run
from irforge.data.sample import write_seed_benchmark

INSTRUCTION = "Only documents written for emergency officials are relevant."


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Benchmark:
    root = tmp_path_factory.mktemp("export") / "flood-bench"
    write_seed_benchmark(root)
    folder = Benchmark(root)
    queries = list(folder.queries())
    first = queries[0]
    queries[0] = Query(first.query_id, first.text, {**first.metadata,
                                                     "condition_description": INSTRUCTION})
    folder.write_queries(queries)
    qrels = list(folder.qrels())
    folder.write_qrels(qrels[: len(qrels) // 2], "human")
    # tool outputs a folder loader would trip over
    (root / "eval").mkdir()
    (root / "eval" / "results.json").write_text(
        '{"split": "test", "systems": [{"name": "bm25"}], "run_files": ["runs/bm25.trec"]}',
        encoding="utf-8")
    (root / "audits").mkdir()
    (root / "audits" / "agreement_relevance.json").write_text(
        '{"task": "relevance", "rows": [{"stratum": "all", "rater": "ensemble", "n": 20, '
        '"kappa": 0.61, "low": 0.4, "high": 0.8}]}', encoding="utf-8")
    folder.record_step("relevance", {
        "method": "zero-shot relevance labeling", "settings": {"scale": 3},
        "llm": {"model": "openai/test-model", "prompts": {"relevance.direct": "abc123"},
                "cost_usd": 0.25},
        "yield": [{"step": "relevance.label", "attempted": 50, "accepted": 41,
                   "rejected": {"llm invalid": 9}}]})
    run = bm25_run(folder)
    from irforge.core.trec import write_trec_run

    write_trec_run(root / "eval" / "runs" / "bm25.trec", run)
    return folder


def bm25_run(bench: Benchmark) -> Run:
    from irforge.retrievers import get_retriever

    retriever = get_retriever("bm25")
    retriever.index(list(bench.corpus()))
    return retriever.search(list(bench.queries()), 10)
