"""Results as files and tables: runs (TREC), results.json, a rich table, Markdown and HTML."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from irforge.eval.infosearch_eval import METRIC_NAMES as INFOSEARCH_METRICS
from irforge.eval.runner import EvalResults
from irforge.eval.trec_io import write_trec_run
from irforge.jsonl import atomic_open


def safe_name(name: str) -> str:
    """A file-name-safe version of a system name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_") or "run"


def rich_table(results: EvalResults):
    """A rich Table: one row per system, one column per metric (means)."""
    from rich.table import Table

    table = Table(title=f"{results.bench} ({results.queries} queries, {results.docs} docs)")
    table.add_column("system")
    infosearch = any("infosearch" in s.tasks for s in results.systems)
    extra = list(INFOSEARCH_METRICS) if infosearch else []
    for metric in [*results.metrics, *extra]:
        table.add_column(metric, justify="right")
    for system in results.systems:
        table.add_row(system.name, *(f"{system.means[m]:.4f}" for m in results.metrics),
                      *_infosearch_cells(system.tasks, extra))
    return table


def _infosearch_cells(tasks: dict, names: list[str]) -> list[str]:
    means = tasks.get("infosearch", {}).get("means", {})
    return [f"{means[name]:.4f}" if name in means else "-" for name in names]


def _infosearch_markdown(results: EvalResults) -> list[str]:
    """InfoSearch means per system, then per dimension, then the first metric per mode."""
    systems = [s for s in results.systems if "infosearch" in s.tasks]
    if not systems:
        return []
    names = list(INFOSEARCH_METRICS)
    parts = ["", "## InfoSearch (original / instructed / reversed queries)", "",
             "WISE with K = 20, p-MRR of the gold documents under the reversed instruction, "
             "Robustness@10 = minimum nDCG@10 over the three modes (docs/eval.md).", ""]
    parts.append(_markdown_table(["system", *names], [
        [s.name, *_infosearch_cells(s.tasks, names)] for s in systems]))
    rows = [[s.name, dim, *(f"{values[n]:.4f}" for n in names), str(int(values["queries"]))]
            for s in systems for dim, values in s.tasks["infosearch"]["per_dimension"].items()]
    if rows:
        parts += ["", "### Per dimension", "",
                  _markdown_table(["system", "dimension", *names, "queries"], rows)]
    metric = results.metrics[0]
    parts += ["", f"### {metric} per mode", "", _markdown_table(
        ["system", "og", "changed", "reversed"],
        [[s.name, *(f"{s.tasks['infosearch'][f'{metric}_by_mode'][m]:.4f}"
                    for m in ("og", "changed", "reversed"))] for s in systems])]
    return parts


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def to_markdown(results: EvalResults, plots: list[Path]) -> str:
    """The whole report as Markdown (plots linked by relative path)."""
    parts = [f"# Evaluation of {results.bench}", "",
             f"Split `{results.split}`: {results.queries} judged queries, {results.docs} "
             "documents. Ties in a run are broken by document id, descending (trec_eval).", ""]
    parts.append(_markdown_table(["system", *results.metrics], [
        [s.name, *(f"{s.means[m]:.4f}" for m in results.metrics)] for s in results.systems]))
    metric = results.metrics[0]
    groups = sorted({g for s in results.systems for g in s.per_group})
    if groups:
        parts += ["", f"## {metric} per {results.group_field}", ""]
        parts.append(_markdown_table(["system", *groups], [
            [s.name, *(f"{s.per_group[g][metric]:.4f}" if g in s.per_group else "-"
                       for g in groups)] for s in results.systems]))
    parts += _infosearch_markdown(results)
    tasks = [(s.name, key, value) for s in results.systems for key, value in s.tasks.items()
             if key != "infosearch"]
    if tasks:
        parts += ["", "## Paper task metrics", ""]
        parts.append(_markdown_table(["system", "metric", "value"],
                                     [[n, k, json.dumps(v)] for n, k, v in tasks]))
    if results.ann:
        parts += ["", "## Exact vs ANN (HNSW)", ""]
        keys = ["recall_at_10", "ndcg@10_exact", "ndcg@10_ann", "ndcg@10_drop"]
        parts.append(_markdown_table(["retriever", *keys], [
            [c["retriever"], *(f"{c[k]:.4f}" for k in keys)] for c in results.ann]))
    timing = [[s.name, ", ".join(f"{k} {v:.2f}s" for k, v in s.seconds.items())]
              for s in results.systems if s.seconds]
    if timing:
        parts += ["", "## Time", "", _markdown_table(["system", "seconds"], timing)]
    if plots:
        parts += ["", "## Plots", ""] + [f"![{p.stem}](plots/{p.name})" for p in plots]
    return "\n".join(parts) + "\n"


def to_html(markdown_text: str, title: str) -> str:
    """A self-contained HTML page from the report's Markdown (tables, headings, images)."""
    body, table_open = [], False
    for line in markdown_text.splitlines():
        if line.startswith("|"):
            cells = [html.escape(c.strip()) for c in line.strip("|").split("|")]
            if set("".join(cells)) <= {"-"}:
                continue
            tag = "th" if not table_open else "td"
            if not table_open:
                body.append("<table>")
                table_open = True
            body.append("<tr>" + "".join(f"<{tag}>{c}</{tag}>" for c in cells) + "</tr>")
            continue
        if table_open:
            body.append("</table>")
            table_open = False
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            body.append(f"<h{level}>{html.escape(line.lstrip('# '))}</h{level}>")
        elif match := re.match(r"!\[(.*)\]\((.*)\)", line):
            body.append(f'<img alt="{html.escape(match[1])}" src="{html.escape(match[2])}">')
        elif line.strip():
            body.append(f"<p>{html.escape(line).replace('`', '')}</p>")
    if table_open:
        body.append("</table>")
    style = ("body{font-family:sans-serif;max-width:60em;margin:2em auto}"
             "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.2em .6em}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title><style>{style}</style></head><body>{''.join(body)}</body></html>\n")


def write_outputs(results: EvalResults, out_dir: Path, plots: bool = True) -> dict[str, Path]:
    """Write runs/<system>.trec, results.json, plots/*.png, report.md and report.html."""
    from irforge.eval.plots import write_plots

    out_dir = Path(out_dir)
    (out_dir / "runs").mkdir(parents=True, exist_ok=True)
    for name, run in results.runs.items():
        write_trec_run(out_dir / "runs" / f"{safe_name(name)}.trec", run, safe_name(name))
    with atomic_open(out_dir / "results.json") as handle:
        json.dump(results.to_json(), handle, indent=1, sort_keys=True)
    made = write_plots(results, out_dir / "plots") if plots else []
    markdown = to_markdown(results, made)
    with atomic_open(out_dir / "report.md") as handle:
        handle.write(markdown)
    with atomic_open(out_dir / "report.html") as handle:
        handle.write(to_html(markdown, f"irforge eval: {results.bench}"))
    return {"results": out_dir / "results.json", "report": out_dir / "report.md",
            "html": out_dir / "report.html", "runs": out_dir / "runs"}
