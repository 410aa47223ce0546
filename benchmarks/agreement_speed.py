"""Speed of irforge's agreement statistics relative to the reference libraries, same run.

Run by hand: ``python benchmarks/agreement_speed.py [--items 5000] [--smoke]``. Prints time
ratios (irforge / peer); below 1 means irforge is faster. Values are checked to agree before timing.
"""

from __future__ import annotations

import argparse
import timeit

import numpy as np
from bench_smoke import parse


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=5000, help="items the two raters label")
    parser.add_argument("--number", type=int, default=20, help="calls per timing")
    args = parse(parser, argv, items=200, number=1)
    import krippendorff
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score

    from irforge.validators.correlation import kendall_tau_b, spearman_rho
    from irforge.validators.statistics import cohen_kappa, krippendorff_alpha

    rng = np.random.default_rng(0)
    n, m = args.items, max(args.items * 2 // 5, 1)
    a = rng.integers(0, 4, n)
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 4, n))
    data = np.stack([np.where(rng.random(m) < 0.7, a[:m], rng.integers(0, 4, m))
                     for _ in range(5)]).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    x, y = rng.random(200), rng.random(200)
    cases = [
        (f"cohen kappa quadratic ({n} items)", lambda: cohen_kappa(a, b, "quadratic"),
         lambda: cohen_kappa_score(a, b, weights="quadratic")),
        (f"krippendorff alpha ordinal (5x{m}, 20% missing)",
         lambda: krippendorff_alpha(data, "ordinal"),
         lambda: krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")),
        ("kendall tau-b (200 systems)", lambda: kendall_tau_b(x, y),
         lambda: stats.kendalltau(x, y).statistic),
        ("spearman (200 systems)", lambda: spearman_rho(x, y),
         lambda: stats.spearmanr(x, y).statistic),
    ]
    for name, ours, peer in cases:
        assert np.isclose(ours(), peer()), name
        mine = min(timeit.repeat(ours, number=args.number, repeat=3))
        theirs = min(timeit.repeat(peer, number=args.number, repeat=3))
        print(f"{name}: irforge/peer time ratio = {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
