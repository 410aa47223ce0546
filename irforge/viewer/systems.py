"""Each evaluated system of a folder (its ``eval/runs/*.trec``): top-k per query and the
per-query score, so the page can show where systems disagree most."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from irforge.core.trec import ranked_ids, read_trec_run
from irforge.eval.metrics import evaluate_per_query

TOP_K = 10
METRIC = "ndcg@10"


@dataclass(frozen=True)
class SystemRuns:
    """Per system: the top ``TOP_K`` documents and ``METRIC`` of each query."""

    names: list[str]
    top: dict[str, dict[str, list[str]]]  # query id -> system -> doc ids
    scores: dict[str, dict[str, float]]  # query id -> system -> METRIC
    means: dict[str, float]


def read_systems(folder: Path, qrels: Mapping[str, Mapping[str, int]]) -> SystemRuns:
    """Read every run in ``folder/eval/runs`` (none: empty); unreadable runs are errors."""
    names: list[str] = []
    top: dict[str, dict[str, list[str]]] = {}
    scores: dict[str, dict[str, float]] = {}
    means: dict[str, float] = {}
    judged = {q: g for q, g in qrels.items() if g}
    for path in sorted((Path(folder) / "eval" / "runs").glob("*.trec")):
        run = read_trec_run(path, name=path.stem)
        names.append(run.name)
        for query_id, docs in run.scores.items():
            top.setdefault(query_id, {})[run.name] = ranked_ids(docs, TOP_K)
        if judged:
            table = evaluate_per_query(judged, run, [METRIC], missing="zero")
            for query_id, values in table.items():
                scores.setdefault(query_id, {})[run.name] = round(values[METRIC], 4)
            means[run.name] = round(sum(v[METRIC] for v in table.values()) / len(table), 4)
    return SystemRuns(names, top, scores, means)
