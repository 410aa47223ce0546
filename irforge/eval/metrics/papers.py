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
from irforge.core.layouts.instructions import LAYOUT as INSTRUCTIONS
from irforge.core.layouts.logical import LAYOUT as LOGICAL
from irforge.core.layouts.multicon import LAYOUT as MULTICON
from irforge.eval.metrics import comlq, diagnostics, infosearch, multicon
from irforge.eval.metrics.ranking import QrelsDict, RunDict
from irforge.eval.metrics.registry import Measure, MetricSpec, register

INFOSEARCH_FILES = tuple(INSTRUCTIONS.relative(role) for role in (
    "qrels_og", "qrels_changed", "qrels_reversed", "queries_changed", "queries_reversed"))
NEGATION_LABELS = (LOGICAL.relative("negation_labels"),)
# which command writes a needed file: each method's Layout knows its own files
BUILDERS = {path: layout.builder for layout in (INSTRUCTIONS, LOGICAL, MULTICON)
            for path in layout.files.values()}


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


def _win_rate(ctx: PaperContext, k: int | None) -> dict[str, float]:
    """WR_k items: one per query_k (every k when no cutoff)."""
    from irforge.eval.task_metrics import win_inputs

    by_k = multicon.win_items(_task_run(ctx), win_inputs(ctx.bench_dir, k))
    if not by_k:
        raise NotComputable(f"{MULTICON.relative('task1')} has no row with k = {k}")
    return {query_id: win for items in by_k.values() for query_id, win in items.items()}


def _adjacent(ctx: PaperContext, k: int | None) -> dict[str, float]:
    """WR_{k,k-1} items: one per ladder with step k; with no cutoff, one per ladder step."""
    from irforge.eval.task_metrics import ladders

    by_k = multicon.adjacent_items(_task_run(ctx), ladders(ctx.bench_dir))
    if k is not None:
        by_k = {k: by_k[k]} if k in by_k else {}
    if not by_k:
        raise NotComputable(f"{MULTICON.relative('task2')} has no ladder step k = {k}")
    if k is not None:
        return by_k[k]
    return {multicon.step_key(query_id, step): win for step, items in by_k.items()
            for query_id, win in items.items()}


def _flip_rate(ctx: PaperContext, k: int | None) -> dict[str, float]:
    """FR items: one per adjacent ladder pair of each task-3 row (the paper's N)."""
    from irforge.eval.task_metrics import flip_inputs

    return multicon.flip_items(_task_run(ctx), flip_inputs(ctx.bench_dir))


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
_paper("wr", _win_rate, "optional", None, (MULTICON.relative("task1"),), "MultiConIR sec. 3.3",
       "win rate of the positive over the (k-1)-condition hard negative (k = cutoff)",
       "win-rate")
_paper("awr", _adjacent, "optional", None, (MULTICON.relative("task2"),), "MultiConIR sec. 3.3",
       "adjacent win rate WR_{k,k-1} along the condition ladder", "adjacent-wr")
_paper("flip-rate", _flip_rate, "none", None, (MULTICON.relative("task3"),),
       "MultiConIR sec. 3.3 (FR)", "share of adjacent ladder pairs whose order flips between "
       "query styles (the mean over every pair)",
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
            builder = BUILDERS.get(absent[0], "the method that defines it")
            lines.append(f"{measure} needs {', '.join(absent)} in {bench_dir} "
                         f"(written by {builder})")
    return lines


def compute(measure: Measure, ctx: PaperContext) -> dict[str, float]:
    """Per-query values of one paper measure for one system."""
    return measure.spec.function(ctx, measure.cutoff)  # type: ignore[arg-type,call-arg]
