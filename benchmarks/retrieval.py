"""BM25 and dense retrieval on the full ComLQ corpus: times, exact vs HNSW recall and nDCG.

    PYTHONPATH=. python benchmarks/retrieval.py [--data ../shared/data/comlq] [--limit N]
        [--peer-queries 200] [--cache .irforge/bench-embeddings]

- BM25: irforge (bm25s, lucene and okapi modes) index + search of every query, against
  rank_bm25's BM25Okapi (the peer) on ``--peer-queries`` queries (it scores every document
  in Python, so it is timed per query); the okapi scores are checked equal to the peer's.
- Dense: the embedded all-MiniLM-L6-v2 encodes the corpus (``--limit`` passages, the gold
  ones first, 0 = all; embeddings cached on disk), then exact search and usearch HNSW search
  top-100 for every query whose gold passages are all in the encoded set; prints recall@10
  and recall@100 of HNSW against exact and nDCG@10 of both.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from bench_smoke import parse

from irforge.core.beir import read_corpus, read_qrels, read_queries
from irforge.core.records import qrels_to_dict
from irforge.eval import evaluate

# ../shared beside the checkout (the project never needs it at run time; this benchmark does)
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "comlq"


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def bench_bm25(docs, queries, qrels, peer_queries: int) -> None:
    from rank_bm25 import BM25Okapi

    from irforge.retrievers.bm25 import BM25Retriever

    for method in ("lucene", "okapi"):
        retriever = BM25Retriever(method=method)
        t_index, _ = timed(lambda r=retriever: r.index(docs))
        t_search, run = timed(lambda r=retriever: r.search(queries, 100))
        ndcg = evaluate(qrels, run, ["ndcg@10"])["ndcg@10"]
        print(f"irforge bm25-{method}: index {t_index:.2f} s, search {len(queries)} queries "
              f"{t_search:.2f} s ({1000 * t_search / len(queries):.2f} ms/query), "
              f"nDCG@10 {ndcg:.4f}")
    okapi = retriever
    tokens = [okapi.analyzer(d.text if not d.title else f"{d.title}\n{d.text}") for d in docs]
    t_peer_index, peer = timed(lambda: BM25Okapi(tokens))
    sample = queries[:peer_queries]
    t_peer, peer_scores = timed(lambda: [peer.get_scores(okapi.analyzer(q.text))
                                         for q in sample])
    t_ours, ours = timed(lambda: [okapi.score_all(q) for q in sample])
    gap = max(float(np.max(np.abs(a - b))) for a, b in zip(ours, peer_scores, strict=True))
    print(f"rank_bm25 BM25Okapi: index {t_peer_index:.2f} s, {len(sample)} queries "
          f"{t_peer:.2f} s ({1000 * t_peer / len(sample):.1f} ms/query)")
    print(f"irforge okapi scoring the same {len(sample)} queries: {t_ours:.2f} s -> "
          f"{t_peer / t_ours:.1f}x faster than rank_bm25; largest score gap {gap:.2e}")


def bench_dense(docs, queries, qrels, limit: int, cache: Path) -> None:
    from irforge.retrievers.dense import DenseRetriever

    gold = {d for grades in qrels.values() for d in grades}
    ordered = sorted(docs, key=lambda d: d.doc_id not in gold)
    chosen = ordered if limit <= 0 else ordered[:limit]
    kept = {d.doc_id for d in chosen}
    usable = [q for q in queries if set(qrels.get(q.query_id, {})) <= kept]
    sub_qrels = {q.query_id: qrels[q.query_id] for q in usable}
    exact = DenseRetriever(cache_dir=cache)
    t_encode, _ = timed(lambda: exact.index(chosen))
    ann = DenseRetriever(cache_dir=cache, search="hnsw")
    t_build, _ = timed(lambda: ann.index(chosen))
    t_queries, _ = timed(lambda: exact.embed([q.text for q in usable]))  # fills the cache
    t_exact, run_exact = timed(lambda: exact.search(usable, 100))
    t_ann, run_ann = timed(lambda: ann.search(usable, 100))
    recall = {k: float(np.mean([len(set(list(run_exact.scores[q.query_id])[:k])
                                    & set(list(run_ann.scores[q.query_id])[:k])) / k
                                for q in usable])) for k in (10, 100)}
    ndcg_exact = evaluate(sub_qrels, run_exact, ["ndcg@10"])["ndcg@10"]
    ndcg_ann = evaluate(sub_qrels, run_ann, ["ndcg@10"])["ndcg@10"]
    print(f"dense MiniLM: {len(chosen)} passages (limit {limit or 'none'}), {len(usable)} "
          f"queries; encode+index {t_encode:.1f} s (cached vectors are reused), "
          f"HNSW build {t_build:.1f} s")
    print(f"query encoding {t_queries:.1f} s; search top-100 (cached query vectors): "
          f"exact {t_exact:.2f} s, HNSW {t_ann:.2f} s -> HNSW {t_exact / t_ann:.1f}x; "
          f"HNSW recall@10 {recall[10]:.4f}, "
          f"recall@100 {recall[100]:.4f}; nDCG@10 exact {ndcg_exact:.4f} vs HNSW "
          f"{ndcg_ann:.4f} (drop {ndcg_exact - ndcg_ann:+.4f})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--limit", type=int, default=0, help="passages to encode (0 = all)")
    parser.add_argument("--peer-queries", type=int, default=200)
    parser.add_argument("--cache", type=Path, default=Path(".irforge/bench-embeddings"))
    parser.add_argument("--skip-dense", action="store_true")
    args = parse(parser, None, limit=100, peer_queries=3, skip_dense=True)  # gpu_eval encodes
    docs = list(read_corpus(args.data / "corpus.jsonl"))
    queries = list(read_queries(args.data / "queries.jsonl"))
    qrels = qrels_to_dict(read_qrels(args.data / "qrels" / "test.tsv"))
    queries = [q for q in queries if q.query_id in qrels]
    print(f"ComLQ: {len(docs)} passages, {len(queries)} judged queries")
    bench_bm25(docs, queries, qrels, args.peer_queries)
    if not args.skip_dense:
        bench_dense(docs, queries, qrels, args.limit, args.cache)


if __name__ == "__main__":
    main()
