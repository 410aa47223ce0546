"""Speed of irforge's agreement statistics relative to the reference libraries, same run.

Run by hand: ``python benchmarks/agreement_speed.py``. Prints time ratios (irforge / peer);
below 1 means irforge is faster. Values are checked to agree before timing.
"""

from __future__ import annotations

import timeit

import numpy as np


def main() -> None:
    import krippendorff
    from scipy import stats
    from sklearn.metrics import cohen_kappa_score

    from irforge.validators.correlation import kendall_tau_b, spearman_rho
    from irforge.validators.statistics import cohen_kappa, krippendorff_alpha

    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 5000)
    b = np.where(rng.random(5000) < 0.7, a, rng.integers(0, 4, 5000))
    data = np.stack([np.where(rng.random(2000) < 0.7, a[:2000], rng.integers(0, 4, 2000))
                     for _ in range(5)]).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    x, y = rng.random(200), rng.random(200)
    cases = [
        ("cohen kappa quadratic (5000 items)", lambda: cohen_kappa(a, b, "quadratic"),
         lambda: cohen_kappa_score(a, b, weights="quadratic")),
        ("krippendorff alpha ordinal (5x2000, 20% missing)",
         lambda: krippendorff_alpha(data, "ordinal"),
         lambda: krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal")),
        ("kendall tau-b (200 systems)", lambda: kendall_tau_b(x, y),
         lambda: stats.kendalltau(x, y).statistic),
        ("spearman (200 systems)", lambda: spearman_rho(x, y),
         lambda: stats.spearmanr(x, y).statistic),
    ]
    for name, ours, peer in cases:
        assert np.isclose(ours(), peer()), name
        mine = min(timeit.repeat(ours, number=20, repeat=3))
        theirs = min(timeit.repeat(peer, number=20, repeat=3))
        print(f"{name}: irforge/peer time ratio = {mine / theirs:.2f}")


if __name__ == "__main__":
    main()
