"""The shipped sample corpus and its hand-written query set (the demo's seed benchmark)."""

from __future__ import annotations

from collections import Counter

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import qrels_to_dict
from irforge.data.sample import sample_docs, sample_qrels, sample_queries
from irforge.demo import STAGES, DemoContext, final_report, stage_seed
from irforge.demo.eval import run_eval_stage
from irforge.retrievers import get_retriever

DISASTER = {f"d0{i}" for i in range(1, 9)}
ENTITY = {f"d{i:02d}" for i in range(9, 15)}
LINKED = {f"d{i}" for i in range(15, 19)}


@pytest.fixture(scope="module")
def bm25_run():
    retriever = get_retriever("bm25")
    retriever.index(sample_docs())
    return retriever.search(sample_queries(), 10)


def test_every_qrel_points_at_an_existing_document_and_query():
    doc_ids = {doc.doc_id for doc in sample_docs()}
    query_ids = {query.query_id for query in sample_queries()}
    qrels = sample_qrels()
    assert {qrel.doc_id for qrel in qrels} <= doc_ids
    assert {qrel.query_id for qrel in qrels} == query_ids
    assert {qrel.relevance for qrel in qrels} <= {1, 2}
    assert all(max(grades.values()) == 2 for grades in qrels_to_dict(qrels).values())


def test_query_set_has_eight_queries_per_document_family():
    queries = sample_queries()
    assert len(queries) == 24 == len({q.query_id for q in queries})
    assert all(q.metadata["source"] == "hand-written" for q in queries)
    qrels = qrels_to_dict(sample_qrels())

    def family(query) -> str:
        prefixes = {doc_id[:3] for doc_id in qrels[query.query_id]}
        for name, ids in (("disaster", DISASTER), ("entity", ENTITY), ("linked", LINKED)):
            if prefixes <= ids:
                return name
        raise AssertionError(f"{query.query_id} mixes document families: {prefixes}")

    by_family = {name: [q for q in queries if family(q) == name]
                 for name in ("disaster", "entity", "linked")}
    assert {name: len(items) for name, items in by_family.items()} == {
        "disaster": 8, "entity": 8, "linked": 8}
    assert all(q.metadata["intent"] in {"QA", "FC"} for q in by_family["disaster"])
    assert all(q.metadata["k"] == len(q.metadata["conditions"]) >= 2
               for q in by_family["entity"])
    assert Counter(q.metadata["type"] for q in by_family["linked"]) == {
        "1p": 2, "2p": 2, "2i": 2, "2in": 2}
    assert all(q.metadata["answer"] for q in by_family["linked"])


def test_bm25_ranks_a_relevant_document_first_for_most_queries(bm25_run):
    # Measured: BM25 puts a relevant document first for 24/24 queries (MRR@10 = 1.0).
    qrels = qrels_to_dict(sample_qrels())
    reciprocal_ranks = []
    for query_id, grades in qrels.items():
        ranked = [doc_id for doc_id, _ in bm25_run.ranked(query_id)]
        first = next((rank for rank, doc_id in enumerate(ranked, 1) if grades.get(doc_id)), None)
        reciprocal_ranks.append(1 / first if first else 0.0)
    assert sum(rr == 1.0 for rr in reciprocal_ranks) >= 22
    assert sum(reciprocal_ranks) / len(reciprocal_ranks) >= 0.9


def test_seed_stage_writes_a_benchmark_the_eval_stage_scores(tmp_path):
    names = [name for name, _ in STAGES]
    assert names.index("seed") < names.index("eval") < names.index("audit") == len(names) - 1
    summary = stage_seed(DemoContext(out=tmp_path, model=None))
    assert "24 hand-written queries" in summary
    seed = Benchmark(tmp_path / "seed")
    assert seed.manifest()["steps"]["seed"]["qrels_level"] == "document"
    assert len(list(seed.corpus())) == 18
    eval_summary = run_eval_stage(tmp_path, retrievers=("bm25",))
    # the seed set is scored apart from generated queries, and labelled as such
    assert eval_summary.startswith("generated: no generated benchmark has qrels")
    assert f"hand-written: {tmp_path / 'seed'}: bm25-lucene nDCG@10=" in eval_summary
    assert "on 24 queries" in eval_summary
    report = (tmp_path / "seed" / "eval" / "report.md").read_text(encoding="utf-8")
    assert "ndcg@10 per type" in report and "2in" in report
    closing = final_report(tmp_path, [("seed", summary), ("eval", eval_summary)])
    assert str(tmp_path / "seed" / "eval" / "report.md") in closing
