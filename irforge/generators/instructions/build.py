"""``irforge build instructions``: query-document pairs -> an InfoSearch-style benchmark folder.

Order of steps (paper 2.2, each declared in ``steps.py``): keyword conditions, document
rewriting, instructions, reversed instructions, query hard negatives, then deterministic
assembly of the og / changed / reversed qrels. Every LLM step runs through
:func:`irforge.steps.run_step`: every item that fails (engine status or a check) is appended to
``failures.jsonl`` with its reason and raw output, every accepted output is kept in
``judgments.jsonl``, and each step's yield goes to the manifest. A re-run merges with what the
folder already holds (``merge.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from irforge.check.generation import attach_validators
from irforge.core.records import Doc
from irforge.generators.instructions import steps
from irforge.generators.instructions.assemble import (
    assemble,
    assembled_records,
    manifest_counts,
)
from irforge.generators.instructions.dimensions import Dimension
from irforge.generators.instructions.merge import merge_previous
from irforge.generators.instructions.pairs import Pair
from irforge.generators.instructions.sequence import run_steps
from irforge.generators.instructions.settings import BuildSettings
from irforge.generators.instructions.units import Group, Unit
from irforge.llm.profile import profile_of
from irforge.steps.runner import BuildRunner, require_kept
from irforge.steps.yields import YieldTable

STEP = steps.STEP


@dataclass
class BuildReport:
    """What a build produced: counts per file and the yield of every step of this run."""

    root: Path
    counts: dict[str, int] = field(default_factory=dict)
    yields: YieldTable = field(default_factory=YieldTable)

    @property
    def failures_by_step(self) -> dict[str, int]:
        """Failures of this run per step (LLM steps and the plain-code ones)."""
        return {y.step: y.failed for y in self.yields.steps.values() if y.failed}

    def summary(self) -> str:
        made = ", ".join(f"{key}={value}" for key, value in self.counts.items())
        failed = ", ".join(f"{key}={value}" for key, value in sorted(self.failures_by_step.items()))
        return f"{made}; failures: {failed or 'none'}"

    def require_yield(self) -> None:
        """Raise :class:`~irforge.core.errors.EmptyResultError` when this run kept no unit."""
        require_kept(self.yields, self.counts.get("units", 0), "instruction units",
                     f" in {self.root}")


def _descriptions(dimensions: Mapping[str, Dimension], units: Iterable[Unit]
                  ) -> dict[tuple[str, str], str]:
    return {(u.dimension, u.condition): dimensions[u.dimension].value(u.condition).description
            for u in units}


def build_instructions(runner: BuildRunner, pairs: Sequence[Pair],
                       dimensions: Mapping[str, Dimension],
                       settings: BuildSettings | None = None,
                       distractors: Iterable[Doc] = (),
                       recipe: Mapping[str, Any] | None = None) -> BuildReport:
    """Run every step on ``pairs`` and write (or merge into) the runner's benchmark folder.

    ``distractors`` (for example the rest of an input corpus) join the corpus unjudged, except
    input positives that were dropped: they would be relevant documents without a label.
    Units of (query, dimension) pairs this run did not attempt stay in the folder. Callers
    show ``report.yields`` and call :meth:`BuildReport.require_yield`.
    """
    settings, run = settings or BuildSettings(), runner
    bench = run.bench
    bench.root.mkdir(parents=True, exist_ok=True)
    existing = list(bench.queries()) if bench.queries_path.exists() else []
    attempted_ids = {pair.query_id for pair in pairs}
    rewritten = {q.query_id for q in existing
                 if str(q.metadata.get("core_query_id", q.query_id)) in attempted_ids}
    run.use_gates((pair.doc.text for pair in pairs),
                  keep=lambda query_id: query_id not in rewritten)

    def validate_over(groups: Sequence[Group]) -> None:
        """Validators over the documents the queries will be ranked among: the inputs less
        the seeds, plus every rewrite (a seeded group's positives are all rewrites)."""
        seeds = {group.seed for group in groups if group.seed is not None}
        docs = {pair.doc.doc_id: pair.doc for pair in pairs if pair.doc.doc_id not in seeds}
        docs.update({m.doc.doc_id: m.doc for group in groups for m in group.members})
        attach_validators(run.gates, docs.values(), target_k=run.target_k,
                          profile=profile_of(run.engine))

    groups, units = run_steps(run, pairs, dimensions, settings, validate_over)
    kept_ids = {m.doc.doc_id for g in groups for m in g.members}
    dropped = {pair.doc.doc_id for pair in pairs} - kept_ids
    extra = [doc for doc in distractors if doc.doc_id not in dropped]
    report = BuildReport(root=bench.root, yields=run.yields)
    attempted = {(pair.query_id, pair.dimension) for pair in pairs}
    assembled = assemble(groups, units, _descriptions(dimensions, units), extra)
    # the gates checked each unit's instructed request (its core query ranked for its
    # positives): its target ranks go into the unit's metadata
    assembled = replace(assembled, queries=tuple(run.annotate(
        assembled.queries, lambda query: str(query.metadata["instructed"]))))
    merged = merge_previous(bench, assembled, attempted, dropped)
    if merged.queries:
        report.counts = manifest_counts(run.write(assembled_records(merged)))
    report.counts.update(units=len(units), pairs=len(pairs))
    run.write_logs()
    run.record("InfoSearch (Lin et al.), section 2.2 / appendix A", vars(settings),
               report.counts, {"failures_by_step": report.failures_by_step,
                               "dimensions": sorted({p.dimension for p in pairs}),
                               **dict(recipe or {})})
    return report
