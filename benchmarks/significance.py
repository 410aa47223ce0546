"""Time irforge's paired randomization test and bootstrap CI against scipy, in one process.

    PYTHONPATH=. python benchmarks/significance.py [--queries 3000] [--trials 10000]

Both sides get the same per-query values of two systems; the randomization test is compared
with ``scipy.stats.permutation_test`` (paired samples, same number of draws, vectorized), the
bootstrap interval with ``scipy.stats.bootstrap`` (percentile, same resamples). Prints the
times, the ratio and the p-values / intervals (which agree up to sampling noise).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from bench_smoke import parse


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--queries", type=int, default=3000)
    parser.add_argument("--trials", type=int, default=10_000)
    args = parse(parser, None, queries=100, trials=200)

    from scipy import stats

    from irforge.eval.metrics.significance import bootstrap_ci, randomization_test

    rng = np.random.default_rng(0)
    a = rng.random(args.queries)
    b = np.clip(a + rng.normal(0.01, 0.2, args.queries), 0, 1)

    start = time.perf_counter()
    ours = randomization_test(a, b, trials=args.trials, seed=1)
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    theirs = stats.permutation_test(
        (a, b), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        n_resamples=args.trials, vectorized=True, random_state=1).pvalue
    t_theirs = time.perf_counter() - start
    print(f"randomization test, {args.queries} queries, {args.trials} draws: irforge "
          f"{t_ours:.3f}s (p={ours:.4f}), scipy {t_theirs:.3f}s (p={theirs:.4f}); "
          f"irforge is {t_theirs / t_ours:.1f}x scipy")

    start = time.perf_counter()
    low, high = bootstrap_ci(a, trials=1000, seed=1)
    t_ours = time.perf_counter() - start
    start = time.perf_counter()
    interval = stats.bootstrap((a,), np.mean, n_resamples=1000, method="percentile",
                               random_state=1).confidence_interval
    t_theirs = time.perf_counter() - start
    print(f"bootstrap CI, 1000 resamples: irforge {t_ours:.3f}s [{low:.4f}, {high:.4f}], "
          f"scipy {t_theirs:.3f}s [{interval.low:.4f}, {interval.high:.4f}]; irforge is "
          f"{t_theirs / t_ours:.1f}x scipy")


if __name__ == "__main__":
    main()
