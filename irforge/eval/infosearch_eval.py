"""InfoSearch folders in ``irforge eval``: three retrieval modes; SICR, WISE, p-MRR, Robustness@k.

A folder written by ``irforge build instructions`` (docs/instructions.md) holds
``qrels/{og,changed,reversed}.tsv`` and ``instructions/queries_{changed,reversed}.jsonl``
beside ``queries.jsonl``. Each retriever is run once per mode (original queries, instructed
queries, reversed queries) and the runs are scored with ``irforge.eval.metrics.infosearch``
(infosearch.txt, section 2.3), overall and per query metadata ``dimension``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from irforge.core.beir import read_qrels, read_queries
from irforge.core.bench import Benchmark
from irforge.core.layouts.instructions import LAYOUT, MODES, mode_qrels, mode_queries
from irforge.core.records import Query, Run, qrels_to_dict
from irforge.eval.metrics import EvaluationInputError, evaluate_per_query
from irforge.eval.metrics import infosearch as paper
from irforge.eval.metrics.groups import group_means
from irforge.eval.metrics.ranking import QrelsDict, RunDict

MODE_QUERY_FILES = {mode: LAYOUT.relative(mode_queries(mode)) for mode in ("changed", "reversed")}
DIMENSION_FIELD = "dimension"
WISE_K = 20
ROBUSTNESS_K = 10
METRIC_NAMES = ("sicr", "wise", "p-mrr", f"robustness@{ROBUSTNESS_K}")


class Searcher(Protocol):
    """Anything with the eval contract's ``search(queries, k) -> Run``."""

    def search(self, queries: Sequence[Query], k: int) -> Run: ...


@dataclass(frozen=True)
class InfoSearchModes:
    """The queries and qrels of the three modes, over the same query ids."""

    queries: Mapping[str, tuple[Query, ...]]
    qrels: Mapping[str, QrelsDict]
    dimensions: Mapping[str, str]


def is_infosearch_bench(bench_dir: Path) -> bool:
    """True when the folder has the three mode qrels and the two mode query files."""
    root = Path(bench_dir)
    return all(LAYOUT.path(root, mode_qrels(mode)).is_file() for mode in MODES) and all(
        LAYOUT.path(root, mode_queries(mode)).is_file() for mode in MODE_QUERY_FILES)


def read_infosearch_modes(bench_dir: Path) -> InfoSearchModes:
    """Read the three modes; every query judged in og must have its instructed and reversed text."""
    bench = Benchmark(Path(bench_dir))
    qrels = {mode: qrels_to_dict(read_qrels(LAYOUT.path(bench.root, mode_qrels(mode))))
             for mode in MODES}
    originals = {q.query_id: q for q in bench.queries()}
    texts = {"og": originals}
    for mode in MODE_QUERY_FILES:
        texts[mode] = {q.query_id: q for q in read_queries(LAYOUT.path(bench.root,
                                                                         mode_queries(mode)))}
    judged = sorted(q for q, grades in qrels["og"].items() if grades)
    queries: dict[str, tuple[Query, ...]] = {}
    for mode in MODES:
        source = (bench.queries_path if mode == "og"
                  else LAYOUT.path(bench.root, mode_queries(mode)))
        missing = [q for q in judged if q not in texts[mode]]
        if missing:
            raise EvaluationInputError(
                f"{source}: no {mode} text for query {missing[0]!r} judged in "
                f"{LAYOUT.path(bench.root, 'qrels_og')} ({len(missing)} missing; rebuild the "
                "folder with irforge build instructions or remove those qrels)")
        not_judged = [q for q in judged if q not in qrels[mode]]
        if not_judged:
            raise EvaluationInputError(
                f"{bench.qrels_path(mode)}: query {not_judged[0]!r} has no {mode} qrels "
                f"({len(not_judged)} missing; every mode must judge the same queries)")
        queries[mode] = tuple(texts[mode][q] for q in judged)
    dimensions = {q: str(originals[q].metadata[DIMENSION_FIELD]) for q in judged
                  if DIMENSION_FIELD in originals[q].metadata}
    return InfoSearchModes(queries=queries, qrels=qrels, dimensions=dimensions)


def search_modes(modes: InfoSearchModes, og_run: Run, retriever: Searcher, depth: int
                 ) -> dict[str, Run]:
    """The og run as given, plus the retriever's top ``depth`` for the other two modes."""
    return {"og": og_run, **{mode: retriever.search(modes.queries[mode], depth)
                             for mode in MODES[1:]}}


def per_query_metrics(runs: Mapping[str, RunDict], qrels: Mapping[str, QrelsDict]
                      ) -> dict[str, dict[str, float]]:
    """SICR, WISE (K = 20), p-MRR (reversed run, gold documents), Robustness@10 per query."""
    og, ins, rev = (runs[mode] for mode in MODES)
    pair = (og, ins, rev, qrels["og"], qrels["changed"])
    values = {
        "sicr": paper.sicr(*pair),
        "wise": paper.wise(*pair, k=WISE_K),
        "p-mrr": paper.p_mrr(og, rev, paper.gold_docs(qrels["changed"])),
        f"robustness@{ROBUSTNESS_K}": paper.robustness_at_k(
            [(qrels[mode], runs[mode]) for mode in MODES], k=ROBUSTNESS_K),
    }
    out: dict[str, dict[str, float]] = {}
    for name, table in values.items():
        for query_id, value in table.items():
            out.setdefault(query_id, {})[name] = value
    return out


def _average(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def infosearch_results(modes: InfoSearchModes, runs: Mapping[str, Run],
                       first_metric: str = "ndcg@10") -> dict[str, Any]:
    """Means, per-dimension means, per-query values and the first metric per mode."""
    scores = {mode: run.scores for mode, run in runs.items()}
    per_query = per_query_metrics(scores, modes.qrels)
    means = {name: _average([v[name] for v in per_query.values() if name in v])
             for name in METRIC_NAMES}
    by_mode = {mode: _average([v[first_metric] for v in evaluate_per_query(
        modes.qrels[mode], scores[mode], [first_metric], missing="zero").values()])
        for mode in MODES}
    return {"means": means, "queries": len(per_query),
            "per_dimension": group_means(per_query, dict(modes.dimensions)),
            f"{first_metric}_by_mode": by_mode, "per_query": per_query,
            "wise_k": WISE_K, "robustness_k": ROBUSTNESS_K}
