"""Plots of an evaluation (matplotlib, Agg backend): conditions curve, radar, exact vs ANN."""

from __future__ import annotations

import math
from pathlib import Path

from irforge.errors import require
from irforge.eval.runner import EvalResults


def _pyplot():
    matplotlib = require("matplotlib", "eval")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_conditions(results: EvalResults, path: Path) -> Path | None:
    """Win rate (MultiConIR WR_k) vs number of conditions, or the first metric per number of
    conditions when the bench has no Task 1 file; None when queries carry no conditions."""
    plt = _pyplot()
    metric = results.metrics[0]
    figure, axes = plt.subplots(figsize=(6, 4))
    drawn = False
    for system in results.systems:
        if "win_rate_by_k" in system.tasks:
            points = sorted((int(k), v) for k, v in system.tasks["win_rate_by_k"].items())
            label, ylabel = system.name, "win rate WR_k"
        elif system.per_conditions:
            points = sorted((int(k), v[metric]) for k, v in system.per_conditions.items())
            label, ylabel = system.name, metric
        else:
            continue
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
        drawn = True
    if not drawn:
        plt.close(figure)
        return None
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # condition counts are whole
    axes.set_xlabel("number of conditions in the query")
    axes.set_ylabel(ylabel)
    axes.set_ylim(0, 1)
    axes.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


def _radar(path: Path, groups: list[str], series: dict[str, list[float]], title: str,
           limits: tuple[float, float]) -> Path:
    """One polygon per series over ``groups`` (at least 3), saved as PNG."""
    plt = _pyplot()
    angles = [2 * math.pi * i / len(groups) for i in range(len(groups))]
    figure = plt.figure(figsize=(6, 6))
    axes = figure.add_subplot(polar=True)
    for name, values in series.items():
        axes.plot([*angles, angles[0]], [*values, values[0]], label=name)
        axes.fill([*angles, angles[0]], [*values, values[0]], alpha=0.1)
    axes.set_xticks(angles)
    axes.set_xticklabels(groups, fontsize=8)
    axes.set_ylim(*limits)
    axes.set_title(title)
    axes.legend(fontsize=7, loc="lower right", bbox_to_anchor=(1.3, -0.1))
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)
    return path


def plot_radar(results: EvalResults, path: Path) -> Path | None:
    """The first metric per query group (type / dimension), one polygon per system."""
    groups = sorted({g for s in results.systems for g in s.per_group})
    if len(groups) < 3:
        return None
    metric = results.metrics[0]
    series = {s.name: [s.per_group.get(g, {}).get(metric, 0.0) for g in groups]
              for s in results.systems}
    return _radar(path, groups, series, f"{metric} per {results.group_field}", (0, 1))


def plot_infosearch_radar(results: EvalResults, path: Path) -> Path | None:
    """InfoSearch WISE per dimension (range -1..1), one polygon per system."""
    dims = {s.name: s.tasks["infosearch"]["per_dimension"] for s in results.systems
            if "infosearch" in s.tasks}
    groups = sorted({g for per_dim in dims.values() for g in per_dim})
    if len(groups) < 3:
        return None
    series = {name: [per_dim.get(g, {}).get("wise", 0.0) for g in groups]
              for name, per_dim in dims.items()}
    return _radar(path, groups, series, "InfoSearch WISE per dimension", (-1, 1))


def plot_exact_vs_ann(results: EvalResults, path: Path) -> Path | None:
    """nDCG@10 of exact vs HNSW search per dense retriever, with the ANN recall@10."""
    if not results.ann:
        return None
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6, 4))
    for i, check in enumerate(results.ann):
        axes.bar(i - 0.2, check["ndcg@10_exact"], width=0.4, color="tab:blue",
                 label="exact" if i == 0 else None)
        axes.bar(i + 0.2, check["ndcg@10_ann"], width=0.4, color="tab:orange",
                 label="HNSW" if i == 0 else None)
        axes.text(i, max(check["ndcg@10_exact"], check["ndcg@10_ann"]) + 0.02,
                  f"recall@10 {check['recall_at_10']:.3f}", ha="center", fontsize=8)
    axes.set_xticks(range(len(results.ann)))
    axes.set_xticklabels([c["retriever"][-30:] for c in results.ann], fontsize=8)
    axes.set_ylabel("nDCG@10")
    axes.set_ylim(0, 1.1)
    axes.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


PLOTS = {
    "conditions.png": plot_conditions,
    "radar.png": plot_radar,
    "infosearch_radar.png": plot_infosearch_radar,
    "exact_vs_ann.png": plot_exact_vs_ann,
}


def write_plots(results: EvalResults, folder: Path) -> list[Path]:
    """Every plot that the data allows, as PNG files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    made = [plot(results, folder / name) for name, plot in PLOTS.items()]
    return [path for path in made if path is not None]
