"""Results as files and tables: runs (TREC), results.json, a rich table, Markdown and HTML."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from irforge.core.jsonl import atomic_open
from irforge.core.trec import write_trec_run
from irforge.core.trust import ALLOW_FLAG
from irforge.eval.infosearch_eval import METRIC_NAMES as INFOSEARCH_METRICS
from irforge.eval.metrics.registry import parse_metric
from irforge.eval.outputs import RESULTS, claim, run_file_names, safe_name
from irforge.eval.provenance import describe
from irforge.eval.runner import MISSING_NOTE, EvalResults
from irforge.eval.verdict import DEMO_LABEL

SIGNIFICANCE_LEVEL = 0.05
MARK = "†"


def significant_vs_baseline(results: EvalResults) -> set[tuple[str, str]]:
    """(system, metric) pairs that differ from the first system: paired randomization test,
    Holm-corrected over the system pairs of that metric, p < 0.05."""
    if not results.systems:
        return set()
    baseline = results.systems[0].name
    out = set()
    for row in results.significance:
        if row["randomization_p_holm"] < SIGNIFICANCE_LEVEL and baseline in (
                row["system_a"], row["system_b"]):
            other = row["system_b"] if row["system_a"] == baseline else row["system_a"]
            out.add((other, row["metric"]))
    return out


def shown_marks(results: EvalResults) -> set[tuple[str, str]]:
    """The † marks that a table of ``results.metrics`` actually shows."""
    shown = {(s.name, m) for s in results.systems for m in results.metrics if m in s.means}
    return significant_vs_baseline(results) & shown


def table_notes(results: EvalResults, marks: set[tuple[str, str]]) -> list[str]:
    """The footer lines a means table needs: † only when one is shown, and how a judged
    query that a system returned nothing for was counted."""
    notes = []
    if marks:
        baseline = results.systems[0].name
        notes.append(f"{MARK}: differs from {baseline} (paired randomization test, Holm, "
                     f"p < {SIGNIFICANCE_LEVEL})")
    return [*notes, MISSING_NOTE]


def mean_cell(system, metric: str, marks: set[tuple[str, str]], ci: bool = False) -> str:
    """``0.1234†`` (or with ``[low, high]``); ``-`` when the metric could not be computed."""
    if metric not in system.means:
        return "-"
    text = f"{system.means[metric]:.4f}" + (MARK if (system.name, metric) in marks else "")
    if ci and metric in system.ci:
        low, high = system.ci[metric]
        text += f" [{low:.3f}, {high:.3f}]"
    return text


def table_flags(results: EvalResults) -> str:
    """What every table of these results must say first: untrusted qrels, demo grade."""
    flags = []
    if results.untrusted_allowed:
        flags.append(f"UNTRUSTED QRELS (scored with {ALLOW_FLAG}: the judge failed its "
                     "control items)")
    if results.provenance.get("demo_grade"):
        flags.append(DEMO_LABEL)
    return "; ".join(flags)


def rich_table(results: EvalResults):
    """A rich Table: one row per system, one column per metric (means, † = differs from the
    first system), and the number of failed model calls."""
    from rich.table import Table

    marks = shown_marks(results)
    flags = table_flags(results)
    table = Table(title=(f"{flags}\n" if flags else "") +
                  f"{results.bench} ({results.queries} queries, {results.docs} docs)",
                  caption="\n".join(table_notes(results, marks)))
    table.add_column("system", overflow="fold")
    infosearch = any("infosearch" in s.tasks for s in results.systems)
    asked = set(results.metrics)
    extra = ([n for n in INFOSEARCH_METRICS if str(parse_metric(n)) not in asked]
             if infosearch else [])
    for metric in [*results.metrics, *extra, "failures"]:
        table.add_column(metric, justify="right", overflow="fold")
    for system in results.systems:
        table.add_row(system.name, *(mean_cell(system, m, marks) for m in results.metrics),
                      *_infosearch_cells(system.tasks, extra), str(system.failure_count))
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
    metric = results.primary
    parts += ["", f"### {metric} per mode", "", _markdown_table(
        ["system", "og", "changed", "reversed"],
        [[s.name, *(f"{s.tasks['infosearch'][f'{metric}_by_mode'][m]:.4f}"
                    for m in ("og", "changed", "reversed"))] for s in systems])]
    return parts


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def _header(results: EvalResults) -> list[str]:
    """Title, provenance (where the qrels came from, query groups) and warnings."""
    prov = results.provenance
    groups = results.groups
    parts = [f"# Evaluation of {results.bench}", ""]
    if results.truth:
        parts += ["## Verdict (read this before any score)", "",
                  *(f"- {line}" for line in results.truth), ""]
    parts += [f"Split `{results.split}`: {results.queries} judged queries, {results.docs} "
             "documents. Ties in a run are broken by document id, descending (trec_eval).", "",
             "## Provenance", "",
             f"- qrels: {describe(prov)}",
             f"- manifest steps: {', '.join(prov.get('steps', [])) or 'none'}"]
    if groups.get("counts"):
        counts = ", ".join(f"{g} {n}" for g, n in groups["counts"].items())
        parts.append(f"- queries per {groups['field']}: {counts}; ungrouped "
                     f"{groups['ungrouped']}")
    settings = results.settings
    if settings:
        parts.append(f"- depth {settings.get('depth')}, rerank k {settings.get('rerank_k')}, "
                     f"seed {settings.get('seed')}, bootstrap {settings.get('bootstrap')} "
                     f"resamples, randomization test {settings.get('trials')} draws "
                     "(exact for <= 16 queries)")
    if results.warnings:
        parts += ["", "## Warnings", ""] + [f"- {w}" for w in results.warnings]
    return parts


def _significance_markdown(results: EvalResults) -> list[str]:
    if not results.significance:
        return []
    rows = [[r["metric"], r["system_a"], r["system_b"], str(r["queries"]),
             f"{r['mean_a']:.4f}", f"{r['mean_b']:.4f}", f"{r['t_test_p']:.4g}",
             f"{r['t_test_p_holm']:.4g}", f"{r['randomization_p']:.4g}",
             f"{r['randomization_p_holm']:.4g}"] for r in results.significance]
    return ["", "## Significance", "",
            "Paired two-sided tests over the queries both systems have; Holm correction over "
            "the system pairs of each metric.", "",
            _markdown_table(["metric", "A", "B", "queries", "mean A", "mean B", "t-test p",
                             "t-test p (Holm)", "randomization p", "randomization p (Holm)"],
                            rows)]


def _failures_markdown(results: EvalResults) -> list[str]:
    rows = [[s.name, str(s.failure_count),
             ", ".join(f"{k} {v}" for k, v in s.failures.items()) or "-",
             "; ".join(f"{n} x {r}" for r, n in s.failure_reasons.items()) or "-"]
            for s in results.systems if s.kind != "retriever" or s.failures]
    if not rows:
        return []
    return ["", "## Model-call failures", "",
            "A failed reranker window keeps its first-stage order; a failed decomposition "
            "keeps the query whole. Systems with failures are not measuring their model.", "",
            _markdown_table(["system", "failures", "by stage", "reasons"], rows)]


def _groups_markdown(results: EvalResults) -> list[str]:
    metric = results.primary
    groups = sorted({g for s in results.systems for g in s.per_group})
    if not groups:
        return []
    counts = results.groups.get("counts", {})
    parts = ["", f"## {metric} per {results.group_field}", "",
             _markdown_table(["system", *(f"{g} (n={counts.get(g, '?')})" for g in groups)], [
                 [s.name, *(f"{s.per_group[g][metric]:.4f}" if g in s.per_group
                            and metric in s.per_group[g] else "-" for g in groups)]
                 for s in results.systems])]
    ungrouped = results.groups.get("ungrouped", 0)
    if ungrouped:
        parts += ["", f"{ungrouped} judged queries have no `{results.group_field}` and are in "
                  "no column above (they are in the overall means)."]
    return parts


def _diagnostics_markdown(results: EvalResults) -> list[str]:
    systems = [s for s in results.systems if s.diagnostics]
    if not systems:
        return []
    keys = list(systems[0].diagnostics)
    return ["", "## Decomposition diagnostics (first-stage candidate lists)", "",
            "Recall failure: share of queries with a positive that have none in the top k; "
            "easy negative: share of the top k outside the query's judged family; first "
            "positive rank: mean rank of the best relevant document (stage-aware "
            "decomposition, section 5).", "",
            _markdown_table(["system", *keys], [[s.name, *(f"{s.diagnostics[k]:.4f}"
                                                          for k in keys)] for s in systems])]


def to_latex(results: EvalResults) -> str:
    """A booktabs table of the means, † where a system differs from the first one."""
    def escape(text: str) -> str:
        return re.sub(r"([&%$#_{}])", r"\\\1", text).replace(">", r"$>$")

    marks = shown_marks(results)
    lines = [r"\begin{table}", r"\centering",
             r"\begin{tabular}{l" + "r" * len(results.metrics) + "}", r"\toprule",
             " & ".join(["System", *(escape(m) for m in results.metrics)]) + r" \\",
             r"\midrule"]
    for system in results.systems:
        cells = [f"{system.means[m]:.4f}" + (r"$^\dagger$" if (system.name, m) in marks
                                             else "") if m in system.means else "--"
                 for m in results.metrics]
        lines.append(" & ".join([escape(system.name), *cells]) + r" \\")
    baseline = escape(results.systems[0].name) if results.systems else ""
    dagger = (rf" $^\dagger$: differs from {baseline} (paired randomization test, "
              rf"Holm-corrected, $p < {SIGNIFICANCE_LEVEL}$)." if marks else "")
    flags = escape(table_flags(results))
    flags = f"{flags}. " if flags else ""
    lines += [r"\bottomrule", r"\end{tabular}",
              rf"\caption{{{flags}Means over {results.queries} queries.{dagger} "
              rf"{escape(MISSING_NOTE.capitalize())}.}}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def to_markdown(results: EvalResults, plots: list[Path]) -> str:
    """The whole report as Markdown (plots linked by relative path)."""
    parts = _header(results)
    marks = shown_marks(results)
    parts += ["", "## Means", "",
              "Mean [95% bootstrap interval]; failures = failed model calls; "
              + "; ".join(table_notes(results, marks)) + ".", ""]
    parts.append(_markdown_table(["system", *results.metrics, "failures"], [
        [s.name, *(mean_cell(s, m, marks, ci=True) for m in results.metrics),
         str(s.failure_count)] for s in results.systems]))
    missing = [f"- {s.name}: {m}: {why}" for s in results.systems
               for m, why in s.not_computed.items()]
    if missing:
        parts += ["", "Not computed:", "", *missing]
    parts += _significance_markdown(results)
    parts += _failures_markdown(results)
    parts += _groups_markdown(results)
    parts += _infosearch_markdown(results)
    tasks = [(s.name, key, value) for s in results.systems for key, value in s.tasks.items()
             if key != "infosearch"]
    if tasks:
        parts += ["", "## Paper task metrics", ""]
        parts.append(_markdown_table(["system", "metric", "value"],
                                     [[n, k, json.dumps(v)] for n, k, v in tasks]))
    parts += _diagnostics_markdown(results)
    if results.ann:
        parts += ["", "## Exact vs ANN (HNSW)", ""]
        keys = ["recall_at_10", "ndcg@10_exact", "ndcg@10_ann", "ndcg@10_drop"]
        parts.append(_markdown_table(["retriever", *keys], [
            [c["retriever"], *(f"{c[k]:.4f}" for k in keys)] for c in results.ann]))
    timing = [[s.name, ", ".join(f"{k} {v:.2f}s" for k, v in s.seconds.items())]
              for s in results.systems if s.seconds]
    if timing:
        parts += ["", "## Time", "", _markdown_table(["system", "seconds"], timing)]
    parts += ["", "## LaTeX", "", "`table.tex`:", "", "```latex", to_latex(results).rstrip(),
              "```"]
    if plots:
        parts += ["", "## Plots", "", "Each plot is also written as SVG beside the PNG.", ""]
        parts += [f"![{p.stem}](plots/{p.name})" for p in plots]
    return _flag_tables("\n".join(parts), table_flags(results)) + "\n"


def _flag_tables(markdown: str, flags: str) -> str:
    """Put ``flags`` (untrusted qrels, demo grade) in bold above every table."""
    if not flags:
        return markdown
    out: list[str] = []
    for line in markdown.split("\n"):
        if line.startswith("|") and not (out and out[-1].startswith("|")):
            out += [f"**{flags}**", ""]
        out.append(line)
    return "\n".join(out)


def to_html(markdown_text: str, title: str) -> str:
    """A self-contained HTML page from the report's Markdown (tables, headings, images, code)."""
    body, table_open, code = [], False, False
    for line in markdown_text.splitlines():
        if line.startswith("```"):
            body.append("</pre>" if code else "<pre>")
            code = not code
            continue
        if code:
            body.append(html.escape(line) + "\n")
            continue
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


def write_outputs(results: EvalResults, out_dir: Path, plots: bool = True,
                  replace: bool = False) -> dict[str, Path]:
    """Write runs/<system>.trec, results.json, plots/*.png|svg, table.tex, report.md, .html.

    An earlier evaluation of other systems or another split in ``out_dir`` is never dropped
    silently: refused, unless ``replace`` (irforge/eval/outputs.py).
    """
    from irforge.core.generation import generation

    out_dir = Path(out_dir)
    with generation(out_dir):  # the earlier runs go only when every new file is written
        return _write_outputs(results, out_dir, plots, replace)


def _write_outputs(results: EvalResults, out_dir: Path, plots: bool, replace: bool
                   ) -> dict[str, Path]:
    from irforge.eval.plots import write_plots

    claim(out_dir, results.split, [s.name for s in results.systems], replace)
    (out_dir / "runs").mkdir(parents=True, exist_ok=True)
    for name, run in results.runs.items():
        write_trec_run(out_dir / "runs" / f"{safe_name(name)}.trec", run, safe_name(name))
    with atomic_open(out_dir / RESULTS) as handle:
        json.dump({**results.to_json(), "run_files": run_file_names(results.runs)}, handle,
                  indent=1, sort_keys=True)
    made = write_plots(results, out_dir / "plots") if plots else []
    markdown = to_markdown(results, made)
    with atomic_open(out_dir / "report.md") as handle:
        handle.write(markdown)
    with atomic_open(out_dir / "table.tex") as handle:
        handle.write(to_latex(results))
    with atomic_open(out_dir / "report.html") as handle:
        handle.write(to_html(markdown, f"irforge eval: {results.bench}"))
    return {"results": out_dir / "results.json", "report": out_dir / "report.md",
            "latex": out_dir / "table.tex",
            "html": out_dir / "report.html", "runs": out_dir / "runs"}
