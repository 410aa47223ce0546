"""Score one exported TREC run with ranx, pytrec_eval, ir_measures and irforge, per query.

Each tool reads the exported files with its own reader (:data:`TOOLS`, one function each);
:func:`compare_run` lines their per-query values up on the queries every tool scores (judged
in the qrels and listed in the run: pytrec_eval's convention, which irforge's default shares;
ir_measures would add 0 for a judged query the run lacks, ranx refuses unequal query sets) and
reports the largest difference between each pair of tools, per query and for the mean.
``benchmarks/export_agreement.py`` runs it on every exported run of a folder (docs/export.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from irforge.core.errors import IrforgeError
from irforge.eval.metrics.registry import Measure, labelled_metrics

PerQuery = dict[str, dict[str, float]]
"""``{query_id: {metric label: value}}``."""

DEFAULT_METRICS = ("map", "ndcg@10", "P@5", "recip_rank", "recall@100", "judged@10")
"""What the agreement check compares by default: the usual trec measures and every trec
measure the demo's report prints (``irforge.demo.eval.DEMO_METRICS``)."""

# irforge measure name -> (spelling without a cutoff, spelling with "{k}"); None: not offered
RANX_NAMES: dict[str, tuple[str | None, str | None]] = {
    "ndcg": ("ndcg", "ndcg@{k}"), "p": (None, "precision@{k}"),
    "recall": ("recall", "recall@{k}"), "map": ("map", None), "mrr": ("mrr", None),
    "rprec": ("r-precision", None), "bpref": ("bpref", None), "success": (None, "hit_rate@{k}"),
}
IR_MEASURES_NAMES: dict[str, tuple[str | None, str | None]] = {
    "ndcg": ("nDCG", "nDCG@{k}"), "p": (None, "P@{k}"), "recall": (None, "R@{k}"),
    "map": ("AP", "AP@{k}"), "mrr": ("RR", None), "judged": (None, "Judged@{k}"),
    "rprec": ("Rprec", None), "bpref": ("Bpref", None), "success": (None, "Success@{k}"),
}
INSTALL = "pip install ranx pytrec-eval-terrier ir-measures (in irforge's dev extra)"


class ToolMissingError(IrforgeError):
    """A scoring library the agreement check needs is not installed."""


def spelled(measure: Measure, names: Mapping[str, tuple[str | None, str | None]]) -> str | None:
    """``measure`` as a tool spells it (``names`` of that tool), or None when it has none."""
    plain, cut = names.get(measure.name, (None, None))
    if measure.cutoff is None:
        return plain
    return None if cut is None else cut.format(k=measure.cutoff)


def _import(module: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ToolMissingError(f"the agreement check needs {module} ({exc}); {INSTALL}") from None


def _irforge(qrels_path: Path, run_path: Path, metrics: Mapping[str, Measure]) -> PerQuery:
    from irforge.core.beir import read_qrels
    from irforge.core.records import qrels_to_dict
    from irforge.core.trec import read_trec_run
    from irforge.eval.metrics import evaluate_per_query

    qrels = qrels_to_dict(read_qrels(qrels_path))
    return evaluate_per_query(qrels, read_trec_run(run_path), dict(metrics), missing="skip")


def _pytrec_eval(qrels_path: Path, run_path: Path, metrics: Mapping[str, Measure]) -> PerQuery:
    pytrec_eval = _import("pytrec_eval")
    names = {label: m.trec_name for label, m in metrics.items() if m.trec_name}
    if not names:
        return {}
    with qrels_path.open(encoding="utf-8") as qrels_file, \
            run_path.open(encoding="utf-8") as run_file:
        qrels, run = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    table = pytrec_eval.RelevanceEvaluator(qrels, set(names.values())).evaluate(run)
    return {query_id: {label: float(values[name]) for label, name in names.items()}
            for query_id, values in table.items()}


def _ranx(qrels_path: Path, run_path: Path, metrics: Mapping[str, Measure]) -> PerQuery:
    ranx = _import("ranx")
    names = {label: spelled(m, RANX_NAMES) for label, m in metrics.items()}
    names = {label: name for label, name in names.items() if name}
    qrels = ranx.Qrels.from_file(str(qrels_path), kind="trec").to_dict()
    run = ranx.Run.from_file(str(run_path), kind="trec").to_dict()
    # ranx scores only equal query sets: the queries both files hold (pytrec_eval's set)
    shared = sorted(q for q in run if qrels.get(q))
    if not names or not shared:
        return {}
    ranx_run = ranx.Run.from_dict({q: run[q] for q in shared})
    ranx.evaluate(ranx.Qrels.from_dict({q: qrels[q] for q in shared}), ranx_run,
                  list(dict.fromkeys(names.values())))
    return {q: {label: float(ranx_run.scores[name][q]) for label, name in names.items()}
            for q in shared}


def _ir_measures(qrels_path: Path, run_path: Path, metrics: Mapping[str, Measure]) -> PerQuery:
    ir_measures = _import("ir_measures")
    parsed = {label: ir_measures.parse_measure(name) for label, m in metrics.items()
              if (name := spelled(m, IR_MEASURES_NAMES))}
    if not parsed:
        return {}
    labels = {measure: label for label, measure in parsed.items()}
    out: PerQuery = {}
    for value in ir_measures.iter_calc(list(parsed.values()),
                                       ir_measures.read_trec_qrels(str(qrels_path)),
                                       ir_measures.read_trec_run(str(run_path))):
        out.setdefault(value.query_id, {})[labels[value.measure]] = float(value.value)
    return out


ToolFunction = Callable[[Path, Path, Mapping[str, Measure]], PerQuery]
TOOLS: dict[str, ToolFunction] = {
    "irforge": _irforge,
    "ranx": _ranx,
    "pytrec_eval": _pytrec_eval,
    "ir_measures": _ir_measures,
}
"""Each tool's per-query values for an exported qrels and run file, read by the tool itself."""


def tool_per_query(qrels_path: Path, run_path: Path,
                   metrics: Iterable[str | Measure] = DEFAULT_METRICS) -> dict[str, PerQuery]:
    """``{tool: {query_id: {metric: value}}}`` for every tool of :data:`TOOLS` (a tool leaves
    out the metrics it does not compute)."""
    labels = labelled_metrics(metrics)
    return {tool: function(Path(qrels_path), Path(run_path), labels)
            for tool, function in TOOLS.items()}


def shared_queries(qrels_path: Path, run_path: Path) -> tuple[list[str], list[str]]:
    """(queries judged in the qrels and listed in the run, judged queries the run lacks)."""
    from irforge.core.beir import read_qrels
    from irforge.core.records import qrels_to_dict
    from irforge.core.trec import read_trec_run

    judged = sorted(q for q, grades in qrels_to_dict(read_qrels(qrels_path)).items() if grades)
    listed = read_trec_run(run_path).scores
    return [q for q in judged if q in listed], [q for q in judged if q not in listed]


@dataclass(frozen=True)
class Difference:
    """The largest |difference| between two tools on one metric (a query, or the mean)."""

    metric: str
    tools: tuple[str, str]
    value: float  # inf when one tool has no value for a query the other scores
    query: str | None  # None: the difference of the means is the largest
    values: tuple[float | None, float | None]

    def describe(self) -> str:
        where = f"query {self.query!r}" if self.query is not None else "the mean"
        first, second = (("no value" if v is None else repr(v)) for v in self.values)
        return (f"{self.metric}: {self.tools[0]} and {self.tools[1]} differ by {self.value:.3g} "
                f"on {where} ({self.tools[0]} {first}, {self.tools[1]} {second})")


@dataclass(frozen=True)
class RunAgreement:
    """Every tool's values for one run file, on the queries all of them score."""

    qrels: Path
    run: Path
    queries: tuple[str, ...]
    unlisted: tuple[str, ...]  # judged queries the run lacks (not compared: tools differ)
    per_query: dict[str, PerQuery]
    metrics: tuple[str, ...]

    def means(self) -> dict[str, dict[str, float]]:
        """``{tool: {metric: mean over the compared queries}}`` (a query a tool lacks: skipped)."""
        out: dict[str, dict[str, float]] = {}
        for tool, table in self.per_query.items():
            for metric in self.metrics:
                values = [table[q][metric] for q in self.queries if metric in table.get(q, {})]
                if values:
                    out.setdefault(tool, {})[metric] = math.fsum(values) / len(values)
        return out

    def tools_of(self, metric: str) -> list[str]:
        """The tools that compute ``metric`` (on at least one compared query)."""
        return [tool for tool, table in self.per_query.items()
                if any(metric in table.get(q, {}) for q in self.queries)]

    def differences(self) -> list[Difference]:
        """Per metric and pair of tools computing it, the largest per-query or mean gap."""
        means = self.means()
        out = []
        for metric in self.metrics:
            for pair in combinations(self.tools_of(metric), 2):
                worst = _largest(metric, pair, self.queries,
                                 *(self.per_query[tool] for tool in pair))
                gap = abs(means[pair[0]][metric] - means[pair[1]][metric])
                if worst is None or gap > worst.value:
                    worst = Difference(metric, pair, gap, None,
                                       (means[pair[0]][metric], means[pair[1]][metric]))
                out.append(worst)
        return out

    def first_disagreement(self, tolerance: float) -> Difference | None:
        """The first difference above ``tolerance`` (metric order, then tool order)."""
        return next((d for d in self.differences() if not d.value <= tolerance), None)


def _largest(metric: str, pair: tuple[str, str], queries: Sequence[str], first: PerQuery,
             second: PerQuery) -> Difference | None:
    worst: Difference | None = None
    for query in queries:
        a, b = first.get(query, {}).get(metric), second.get(query, {}).get(metric)
        value = math.inf if a is None or b is None else abs(a - b)
        if worst is None or value > worst.value:
            worst = Difference(metric, pair, value, query, (a, b))
    return worst


def compare_run(qrels_path: Path, run_path: Path,
                metrics: Iterable[str | Measure] = DEFAULT_METRICS) -> RunAgreement:
    """Score ``run_path`` against ``qrels_path`` with every tool of :data:`TOOLS`."""
    labels = tuple(labelled_metrics(metrics))
    queries, unlisted = shared_queries(Path(qrels_path), Path(run_path))
    return RunAgreement(Path(qrels_path), Path(run_path), tuple(queries), tuple(unlisted),
                        tool_per_query(qrels_path, run_path, labels), labels)


def tool_means(qrels_path: Path, run_path: Path,
               metrics: Iterable[str | Measure] = DEFAULT_METRICS) -> dict[str, dict[str, float]]:
    """``{tool: {metric: mean}}`` over the queries every tool scores (see :func:`compare_run`)."""
    return compare_run(qrels_path, run_path, metrics).means()
