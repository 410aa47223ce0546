"""Check that ranx, pytrec_eval, ir_measures and irforge score every exported run alike.

    python benchmarks/export_agreement.py FOLDER [--tolerance 1e-9] [--metric M ...]
                                         [--keep DIR] [--json FILE]

FOLDER is a benchmark or a run folder (``irforge run``, ``irforge demo``: every member the
collection rule finds, ``irforge.core.collection``). Each member whose ``eval/results.json``
lists runs is exported as ``irforge export --format trec`` does (``export_benchmark``) into a
temporary folder (``--keep DIR`` keeps it); every exported run is scored against its exported
qrels by each tool, per query and as the mean (``irforge.export.agreement``), and one table row
per member, run and measure gives the largest |difference| between each pair of tools.

Exit 0 when every pair agrees within the tolerance on every run; 1 naming the first
disagreement; 3 when no member has an evaluated run (members without runs are skipped, with
the reason); 2 for a usage error (a missing folder, a library not installed).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

from irforge.core.collection import benchmark_folders
from irforge.core.errors import IrforgeError
from irforge.export import export_benchmark
from irforge.export.agreement import DEFAULT_METRICS, TOOLS, RunAgreement, compare_run

SHORT = {"irforge": "irf", "ranx": "ranx", "pytrec_eval": "pytrec", "ir_measures": "irm"}
PAIRS = list(combinations(TOOLS, 2))
EXIT_AGREE, EXIT_DISAGREE, EXIT_USAGE, EXIT_EMPTY = 0, 1, 2, 3


@dataclass
class Report:
    """What the check compared, skipped and found."""

    rows: list[tuple[str, str, RunAgreement]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # runs that could not be compared


def skip_reason(folder: Path) -> str | None:
    """Why a member has no evaluated run to export (None when ``eval/results.json`` lists
    some)."""
    from irforge.core.trust import untrusted_judges
    from irforge.eval.outputs import earlier_results, owned_runs

    if owned_runs(folder / "eval")[0]:
        return None
    untrusted = untrusted_judges(folder, "test")
    if untrusted:
        return (f"not scored: its qrels were labeled by judge {', '.join(untrusted)}, which "
                "failed its control items (judge_controls.json), so eval left it out")
    if not judged_queries(folder):
        return ("nothing to score: its test qrels judge no query (its build kept none; "
                "failures.jsonl says why)")
    if earlier_results(folder / "eval") is None:
        return f"not evaluated: no {folder / 'eval' / 'results.json'} (run irforge eval)"
    return "eval/results.json lists no run file that exists (run irforge eval again)"


def judged_queries(folder: Path) -> int:
    """How many queries the member's test qrels judge (an unreadable file counts as some: the
    reason given is then that it was not evaluated)."""
    from irforge.core.bench import Benchmark

    bench = Benchmark(folder)
    if not bench.qrels_path("test").is_file():
        return 0
    try:
        return sum(1 for grades in bench.qrels_dict("test").values() if grades)
    except IrforgeError:
        return 1


def qrels_for(run_file: Path, export_dir: Path, split: str | None) -> Path:
    """The exported qrels a run was scored on: its instruction mode's split for
    ``<system>.<mode>.trec``, else the split ``eval/results.json`` names (else ``test``)."""
    qrels_dir = export_dir / "qrels"
    mode = run_file.stem.rpartition(".")[2] if "." in run_file.stem else None
    for name in (mode, split, "test"):
        if name and (qrels_dir / f"{name}.qrels").is_file():
            return qrels_dir / f"{name}.qrels"
    found = sorted(qrels_dir.glob("*.qrels"))
    if len(found) == 1:
        return found[0]
    raise IrforgeError(f"{run_file}: no exported qrels for split {split!r} in {qrels_dir} "
                       f"(found {', '.join(p.name for p in found) or 'none'})")


def check_member(name: str, folder: Path, out: Path, metrics: list[str], report: Report) -> None:
    """Export one member as TREC and compare every exported run."""
    from irforge.eval.outputs import earlier_results, owned_runs

    listed = {path.name for path in owned_runs(folder / "eval")[0]}
    result = export_benchmark(folder, "trec", out)
    exported = sorted(path for path in result.files if path.parent == out / "runs")
    missing = sorted(listed - {path.name for path in exported})
    if missing:
        report.problems.append(f"{name}: eval/results.json lists {', '.join(missing)} but the "
                               "export did not write it")
    earlier = earlier_results(folder / "eval")
    for run_file in exported:
        agreement = compare_run(qrels_for(run_file, out, earlier and earlier.split), run_file,
                                metrics)
        if not agreement.queries:
            report.problems.append(f"{name}/{run_file.name}: no query of "
                                   f"{agreement.qrels.name} is in the run: nothing to compare")
        report.rows.append((name, run_file.name, agreement))


def check(root: Path, out: Path, metrics: list[str]) -> Report:
    """Export and compare every member of ``root`` that has evaluated runs."""
    found = benchmark_folders(root)
    report = Report()
    for folder in found.folders:
        name = found.name(folder)
        reason = skip_reason(folder)
        if reason is not None:
            report.skipped.append((name, reason))
            continue
        try:
            check_member(name, folder, out / (name if found.is_collection else "export"),
                         metrics, report)
        except IrforgeError as exc:  # name the member whose runs could not be checked
            error = IrforgeError(f"member {name}: {exc}")
            error.exit_code = exc.exit_code
            raise error from None
    return report


def _cells(agreement: RunAgreement, metric: str) -> list[str]:
    found = {d.tools: d.value for d in agreement.differences() if d.metric == metric}
    return ["-" if pair not in found else "0" if found[pair] == 0 else f"{found[pair]:.1e}"
            for pair in PAIRS]


def table(report: Report) -> list[str]:
    """One line per member, run and measure: the largest |difference| of each pair of tools
    over the compared queries and the mean ("-": one of the two does not compute it)."""
    heads = ["member", "run", "measure", "queries",
             *(f"{SHORT[a]}~{SHORT[b]}" for a, b in PAIRS)]
    lines = [[name, run, metric, str(len(agreement.queries)),
              *_cells(agreement, metric)]
             for name, run, agreement in report.rows for metric in agreement.metrics]
    widths = [max(len(row[i]) for row in [heads, *lines]) for i in range(len(heads))]
    return ["  ".join(cell.ljust(width) if i < 3 else cell.rjust(width)
                      for i, (cell, width) in enumerate(zip(row, widths, strict=True))).rstrip()
            for row in [heads, *lines]]


def as_json(report: Report, tolerance: float) -> dict:
    """The report as JSON: every compared run with its per-pair largest differences."""
    return {"tolerance": tolerance, "skipped": dict(report.skipped), "problems": report.problems,
            "runs": [{"member": name, "run": run, "qrels": agreement.qrels.name,
                      "queries": len(agreement.queries), "unlisted": list(agreement.unlisted),
                      "differences": [{"metric": d.metric, "tools": list(d.tools),
                                       "value": d.value if d.value < math.inf else "inf",
                                       "query": d.query}
                                      for d in agreement.differences()]}
                     for name, run, agreement in report.rows]}


def verdict(report: Report, tolerance: float) -> tuple[int, list[str]]:
    """The exit code and the closing lines."""
    if not report.rows:
        lines = ["NO EXPORTED RUNS: no member has an evaluated run to export, so nothing was "
                 "compared (an empty check is not a pass)"]
        lines += [f"  {name}: {reason}" for name, reason in report.skipped]
        return EXIT_EMPTY, [*lines, "run `irforge eval FOLDER` first, then this check again"]
    for name, run, agreement in report.rows:
        first = agreement.first_disagreement(tolerance)
        if first is not None:
            return EXIT_DISAGREE, [f"DISAGREE: {name}/{run} (qrels {agreement.qrels.name}): "
                                   f"{first.describe()}; tolerance {tolerance:g}"]
    if report.problems:
        return EXIT_DISAGREE, [f"NOT COMPARED: {report.problems[0]}",
                               *(f"  also: {p}" for p in report.problems[1:])]
    worst = max((d.value for _, _, a in report.rows for d in a.differences()), default=0.0)
    members = len({name for name, _, _ in report.rows})
    queries = sum(len(a.queries) for _, _, a in report.rows)
    return EXIT_AGREE, [f"AGREE: {len(report.rows)} exported run(s) of {members} member(s), "
                        f"{queries} run-queries: irforge, ranx, pytrec_eval and ir_measures "
                        f"agree within {tolerance:g} (largest difference {worst:.3g})"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="benchmark or run folder (irforge demo --out)")
    parser.add_argument("--tolerance", type=float, default=1e-9)
    parser.add_argument("--metric", action="append", dest="metrics",
                        help=f"measure to compare (repeat; default {', '.join(DEFAULT_METRICS)})")
    parser.add_argument("--keep", type=Path, help="export into this new folder and keep it")
    parser.add_argument("--json", type=Path, help="also write the report as JSON here")
    args = parser.parse_args(argv)
    metrics = args.metrics or list(DEFAULT_METRICS)
    try:
        if args.keep is not None:
            report = check(args.folder, args.keep, metrics)
        else:
            with tempfile.TemporaryDirectory(prefix="irforge-agreement-") as tmp:
                report = check(args.folder, Path(tmp), metrics)
    except IrforgeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.exit_code or EXIT_USAGE
    code, closing = verdict(report, args.tolerance)
    if report.rows:
        legend = ", ".join(f"{short}={tool}" for tool, short in SHORT.items())
        print(f"largest |difference| per pair of tools ({legend}), over every compared query "
              "and the mean:")
        print("\n".join(table(report)))
    for name, reason in report.skipped:
        print(f"skipped {name}: {reason}")
    for name, run, agreement in report.rows:
        if agreement.unlisted:
            print(f"note {name}/{run}: {len(agreement.unlisted)} judged query(ies) the run does "
                  "not list are not compared (pytrec_eval and irforge skip them, ir_measures "
                  "scores them 0)")
    if args.json is not None:
        args.json.write_text(json.dumps(as_json(report, args.tolerance), indent=1) + "\n",
                             encoding="utf-8")
    print("\n".join(closing), file=sys.stderr if code else sys.stdout)
    return code


if __name__ == "__main__":
    sys.exit(main())
