"""Plots of an evaluation (matplotlib, Agg backend): conditions curve, radar, exact vs ANN.

Each plot is drawn only when the benchmark has what it shows, has a title, axis labels and
the number of queries behind each point, and is saved as PNG and SVG.
"""

from __future__ import annotations

import math
from pathlib import Path

from irforge.core.errors import require
from irforge.eval.runner import EvalResults


def _pyplot():
    matplotlib = require("matplotlib", "eval")
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # SVG text stays text (editable in a paper)
    matplotlib.rcParams["svg.hashsalt"] = "irforge"  # the same plot, the same SVG ids
    import matplotlib.pyplot as plt

    return plt


def _save(figure, path: Path, **kwargs) -> Path:
    """Save as PNG at ``path`` and as SVG beside it."""
    from irforge.core.jsonl import atomic_open

    with atomic_open(path, "wb") as handle:  # renamed into place whole (a journaled write)
        figure.savefig(handle, format="png", dpi=120, **kwargs)
    with atomic_open(path.with_suffix(".svg"), "wb") as handle:
        figure.savefig(handle, format="svg", metadata={"Date": None}, **kwargs)
    return path


def _condition_points(results: EvalResults, system) -> tuple[list[tuple[int, float, int]], str]:
    """(k, value, queries) per number of conditions: WR_k from Task 1, else the first metric."""
    metric = results.primary
    if "win_rate_by_k" in system.tasks:
        counts = system.tasks.get("win_rate_queries_by_k", {})
        return ([(int(k), v, int(counts.get(k, 0))) for k, v in
                 sorted(system.tasks["win_rate_by_k"].items(), key=lambda kv: int(kv[0]))],
                "win rate WR_k (MultiConIR Task 1)")
    return ([(int(k), v[metric], int(v["queries"])) for k, v in
             sorted(system.per_conditions.items(), key=lambda kv: int(kv[0]))
             if metric in v], metric)


def plot_conditions(results: EvalResults, path: Path) -> Path | None:
    """Win rate (MultiConIR WR_k) vs number of conditions, or the first metric per number of
    conditions when the bench has no Task 1 file; None unless queries carry at least two
    different numbers of conditions."""
    series = [(s.name, *_condition_points(results, s)) for s in results.systems]
    series = [item for item in series if len({k for k, _, _ in item[1]}) >= 2]
    if not series:
        return None
    plt = _pyplot()
    figure, axes = plt.subplots(figsize=(6, 4))
    for name, points, _ in series:
        axes.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=name)
    for k, value, n in series[0][1]:
        axes.annotate(f"n={n}", (k, value), textcoords="offset points", xytext=(0, 6),
                      ha="center", fontsize=7)
    from matplotlib.ticker import MaxNLocator

    axes.xaxis.set_major_locator(MaxNLocator(integer=True))  # condition counts are whole
    axes.set_xlabel("number of conditions in the query")
    axes.set_ylabel(series[0][2])
    axes.set_title(f"{series[0][2]} by number of conditions (n = queries per point)")
    axes.set_ylim(0, 1.08)
    axes.legend(fontsize=7)
    figure.tight_layout()
    _save(figure, path)
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
    _save(figure, path, bbox_inches="tight")
    plt.close(figure)
    return path


def plot_radar(results: EvalResults, path: Path) -> Path | None:
    """The first metric per query group (type / dimension), one polygon per system."""
    groups = sorted({g for s in results.systems for g in s.per_group})
    if len(groups) < 3:
        return None
    metric = results.primary
    counts = results.groups.get("counts", {})
    series = {s.name: [s.per_group.get(g, {}).get(metric, 0.0) for g in groups]
              for s in results.systems}
    labels = [f"{g}\n(n={counts.get(g, '?')})" for g in groups]
    return _radar(path, labels, series, f"{metric} per {results.group_field}", (0, 1))


def plot_infosearch_radar(results: EvalResults, path: Path) -> Path | None:
    """InfoSearch WISE per dimension (range -1..1), one polygon per system."""
    dims = {s.name: s.tasks["infosearch"]["per_dimension"] for s in results.systems
            if "infosearch" in s.tasks}
    groups = sorted({g for per_dim in dims.values() for g in per_dim})
    if len(groups) < 3:
        return None
    series = {name: [per_dim.get(g, {}).get("wise", 0.0) for g in groups]
              for name, per_dim in dims.items()}
    first = next(iter(dims.values()))
    labels = [f"{g}\n(n={int(first.get(g, {}).get('queries', 0))})" for g in groups]
    return _radar(path, labels, series, "InfoSearch WISE per dimension", (-1, 1))


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
    axes.set_xlabel("dense retriever")
    axes.set_ylabel("nDCG@10")
    axes.set_title(f"Exact vs HNSW search (n = {results.queries} queries each)")
    axes.set_ylim(0, 1.1)
    axes.legend()
    figure.tight_layout()
    _save(figure, path)
    plt.close(figure)
    return path


PLOTS = {
    "conditions.png": plot_conditions,
    "radar.png": plot_radar,
    "infosearch_radar.png": plot_infosearch_radar,
    "exact_vs_ann.png": plot_exact_vs_ann,
}


def write_plots(results: EvalResults, folder: Path) -> list[Path]:
    """Every plot that the data allows, as PNG (returned) and SVG files in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    made = [plot(results, folder / name) for name, plot in PLOTS.items()]
    return [path for path in made if path is not None]
