"""Bar plots of agreement tables (matplotlib, imported lazily, no display needed)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from irforge.core.errors import require
from irforge.validators.llm_agreement import AgreementRow


def plot_agreement(rows: Sequence[AgreementRow], path: Path, title: str = "") -> Path:
    """Grouped bars of kappa per stratum value, one bar per LLM rater, with CI whiskers."""
    matplotlib = require("matplotlib", "annotation")
    matplotlib.use("Agg")
    from matplotlib import pyplot

    groups = list(dict.fromkeys((row.stratum, row.value) for row in rows))
    raters = list(dict.fromkeys(row.rater for row in rows))
    lookup = {(row.stratum, row.value, row.rater): row for row in rows}
    width = 0.8 / max(len(raters), 1)
    figure, axes = pyplot.subplots(figsize=(max(6.0, 0.9 * len(groups) * max(len(raters), 1)), 4))
    positions = np.arange(len(groups))
    for index, rater in enumerate(raters):
        found = [lookup.get((stratum, value, rater)) for stratum, value in groups]
        heights = [row.kappa if row and np.isfinite(row.kappa) else 0.0 for row in found]
        low = [max(0.0, h - row.low) if row and np.isfinite(row.low) else 0.0
               for h, row in zip(heights, found, strict=True)]
        high = [max(0.0, row.high - h) if row and np.isfinite(row.high) else 0.0
                for h, row in zip(heights, found, strict=True)]
        axes.bar(positions + index * width - 0.4 + width / 2, heights, width, label=rater,
                 yerr=[low, high], capsize=2)
    axes.set_xticks(positions)
    axes.set_xticklabels([value if stratum == "all" else f"{stratum}={value}"
                          for stratum, value in groups], rotation=30, ha="right")
    axes.set_ylabel("Cohen's kappa")
    axes.set_ylim(min(-0.1, axes.get_ylim()[0]), 1.05)
    axes.axhline(0.0, color="black", linewidth=0.5)
    axes.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
    axes.set_title(title or "LLM vs human agreement")
    figure.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    from irforge.core.jsonl import atomic_open

    with atomic_open(path, "wb") as handle:
        figure.savefig(handle, format=path.suffix.lstrip(".") or "png", dpi=120)
    pyplot.close(figure)
    return path
