"""The papers' measures in the one registry, each with the bench-folder files it reads.

``irforge eval BENCH --metric wise --metric lsnc@100`` parses them like ``ndcg@10``; the
runner checks :func:`missing_files` before any retrieval and calls each spec's function with a
:class:`PaperContext` (the system's runs and the folder). Every function returns per-query
values, so means, confidence intervals and significance tests treat them like trec measures.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from irforge.core.errors import IrforgeError
from irforge.eval.metrics import comlq, diagnostics, infosearch, multicon
from irforge.eval.metrics.ranking import QrelsDict, RunDict
from irforge.eval.metrics.registry import Measure, MetricSpec, register

INFOSEARCH_FILES = ("qrels/og.tsv", "qrels/changed.tsv", "qrels/reversed.tsv",
                    "instructions/queries_changed.jsonl", "instructions/queries_reversed.jsonl")
NEGATION_LABELS = ("logical/negation_labels.jsonl",)
BUILDERS = {"instructions/": "irforge build instructions", "qrels/og": "irforge build instructions",
            "qrels/changed": "irforge build instructions",
            "qrels/reversed": "irforge build instructions",
            "logical/": "irforge build logical", "multicon/": "irforge build multicon"}


class NotComputable(IrforgeError):
    """This system lacks what the measure needs (e.g. full candidate scores after a reranker)."""


@dataclass
class PaperContext:
    """What a paper measure may read for one system."""

    bench_dir: Path
    qrels: QrelsDict
    run: RunDict
    task_run: RunDict | None = None  # MultiConIR task queries scored over the whole corpus
    mode_runs: Mapping[str, RunDict] | None = None  # InfoSearch og / changed / reversed
    mode_qrels: Mapping[str, QrelsDict] = field(default_factory=dict)


def _modes(ctx: PaperContext) -> tuple[RunDict, RunDict, RunDict]:
    if ctx.mode_runs is None:
        raise NotComputable("no instructed / reversed runs for this system (run files hold "
                            "one mode only)")
    return ctx.mode_runs["og"], ctx.mode_runs["changed"], ctx.mode_runs["reversed"]


def _wise(ctx: PaperContext, k: int | None) -> dict[str, float]:
    og, ins, rev = _modes(ctx)
    return infosearch.wise(og, ins, rev, ctx.mode_qrels["og"], ctx.mode_qrels["changed"],
                           k=k or 20)


def _sicr(ctx: PaperContext, k: int | None) -> dict[str, float]:
    og, ins, rev = _modes(ctx)
    return infosearch.sicr(og, ins, rev, ctx.mode_qrels["og"], ctx.mode_qrels["changed"])


def _p_mrr(ctx: PaperContext, k: int | None) -> dict[str, float]:
    og, _, rev = _modes(ctx)
    return infosearch.p_mrr(og, rev, infosearch.gold_docs(ctx.mode_qrels["changed"]))


def _robustness(ctx: PaperContext, k: int | None) -> dict[str, float]:
    runs = dict(zip(("og", "changed", "reversed"), _modes(ctx), strict=True))
    return infosearch.robustness_at_k([(ctx.mode_qrels[m], runs[m]) for m in runs], k=k or 10)


def _lsnc(ctx: PaperContext, k: int | None) -> dict[str, float]:
    from irforge.eval.task_metrics import negation_violations

    return comlq.lsnc(ctx.run, negation_violations(ctx.bench_dir), k or 100)


def _task_run(ctx: PaperContext) -> RunDict:
    if ctx.task_run is None:
        raise NotComputable("pairwise task metrics need every candidate scored; only "
                            "first-stage retrievers score the whole candidate set")
    return ctx.task_run


def _rows(ctx: PaperContext, name: str) -> list[dict]:
    from irforge.eval.task_metrics import task_rows

    return task_rows(ctx.bench_dir / "multicon" / f"{name}.jsonl")


def _ladder(row: Mapping) -> list[str]:
    return [c["doc_id"] for c in sorted(row["candidates"], key=lambda c: c["satisfied"])]


def _win_rate(ctx: PaperContext, k: int | None) -> dict[str, float]:
    pairs = {row["query_id"]: (row["positive"], row["hard_negative"])
             for row in _rows(ctx, "task1") if k is None or int(row["k"]) == k}
    if not pairs:
        raise NotComputable(f"multicon/task1.jsonl has no row with k = {k}")
    return multicon.pairwise_wins(_task_run(ctx), pairs)


def _adjacent(ctx: PaperContext, k: int | None) -> dict[str, float]:
    run, out = _task_run(ctx), {}
    for row in _rows(ctx, "task2"):
        ladder = _ladder(row)
        steps = [k] if k is not None else list(range(1, len(ladder)))
        wins = [multicon.pairwise_wins(run, {row["query_id"]: (ladder[j], ladder[j - 1])})
                [row["query_id"]] for j in steps if 1 <= j < len(ladder)]
        if wins:
            out[row["query_id"]] = sum(wins) / len(wins)
    if not out:
        raise NotComputable(f"multicon/task2.jsonl has no ladder step k = {k}")
    return out


def _flip_rate(ctx: PaperContext, k: int | None) -> dict[str, float]:
    run, out = _task_run(ctx), {}
    for row in _rows(ctx, "task3"):
        ladder = _ladder(row)
        inst, desc = row["instruction_query"], row["descriptive_query"]
        flips = [multicon.flip_rate({"q": run[inst]}, {"q": run[desc]},
                                    {"q": (ladder[j], ladder[j - 1])})
                 for j in range(1, len(ladder))]
        if flips:
            out[inst] = sum(flips) / len(flips)
    return out


def _recall_failure(ctx: PaperContext, k: int | None) -> dict[str, float]:
    return diagnostics.recall_failure(ctx.qrels, ctx.run, k or 50)


def _easy_negative(ctx: PaperContext, k: int | None) -> dict[str, float]:
    return diagnostics.easy_negative_rate(ctx.qrels, ctx.run, k or 50, mode="share")


def _first_positive(ctx: PaperContext, k: int | None) -> dict[str, float]:
    return diagnostics.first_positive_rank(ctx.qrels, ctx.run)


def _paper(name: str, function, cutoff: str, default: int | None, needs: Sequence[str],
           source: str, description: str, *aliases: str) -> None:
    register(MetricSpec(name, function, cutoff, description, kind="paper", needs=tuple(needs),
                        default_cutoff=default, source=source), *aliases)


_paper("wise", _wise, "optional", 20, INFOSEARCH_FILES, "InfoSearch eq. 3-6",
       "instruction-following score of the gold document (K = cutoff)")
_paper("sicr", _sicr, "none", None, INFOSEARCH_FILES, "InfoSearch eq. 1-2",
       "strict instruction compliance ratio")
_paper("p-mrr", _p_mrr, "none", None, INFOSEARCH_FILES, "FollowIR / InfoSearch eq. 9",
       "pairwise MRR shift of the gold documents, original vs reversed", "pmrr", "p_mrr")
_paper("robustness", _robustness, "optional", 10, INFOSEARCH_FILES, "InfoSearch eq. 7-8",
       "minimum nDCG@k over original / instructed / reversed")
_paper("lsnc", _lsnc, "optional", 100, NEGATION_LABELS, "ComLQ eq. 2",
       "log-scaled negation consistency over the top K")
_paper("wr", _win_rate, "optional", None, ("multicon/task1.jsonl",), "MultiConIR sec. 3.3",
       "win rate of the positive over the (k-1)-condition hard negative (k = cutoff)",
       "win-rate")
_paper("awr", _adjacent, "optional", None, ("multicon/task2.jsonl",), "MultiConIR sec. 3.3",
       "adjacent win rate WR_{k,k-1} along the condition ladder", "adjacent-wr")
_paper("flip-rate", _flip_rate, "none", None, ("multicon/task3.jsonl",),
       "MultiConIR sec. 3.3", "share of ladder pairs whose order flips between query styles",
       "fr", "flip_rate", "fliprate")
_paper("recall-failure", _recall_failure, "optional", 50, (), "stage-aware decomposition "
       "sec. 5", "no relevant document in the top k (queries with a positive)",
       "recall_failure")
_paper("easy-negative", _easy_negative, "optional", 50, (), "stage-aware decomposition sec. 5",
       "share of the top k outside the query's judged family", "easy_negative")
_paper("first-positive-rank", _first_positive, "none", None, (),
       "stage-aware decomposition sec. 5", "rank of the best-ranked relevant document",
       "first_positive_rank", "fpr")


def missing_files(bench_dir: Path, measures: Sequence[Measure]) -> list[str]:
    """One line per paper measure whose files are absent: the measure, files and the fix."""
    lines = []
    for measure in measures:
        absent = [name for name in measure.spec.needs if not (Path(bench_dir) / name).is_file()]
        if absent:
            builder = next((b for prefix, b in BUILDERS.items() if absent[0].startswith(prefix)),
                           "the method that defines it")
            lines.append(f"{measure} needs {', '.join(absent)} in {bench_dir} "
                         f"(written by {builder})")
    return lines


def compute(measure: Measure, ctx: PaperContext) -> dict[str, float]:
    """Per-query values of one paper measure for one system."""
    return measure.spec.function(ctx, measure.cutoff)  # type: ignore[arg-type,call-arg]
