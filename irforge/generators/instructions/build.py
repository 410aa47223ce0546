"""``irforge build instructions``: query-document pairs -> an InfoSearch-style benchmark folder.

Order of steps (paper 2.2): keyword conditions, document rewriting, instructions, reversed
instructions, query hard negatives, then deterministic assembly of the og / changed / reversed
qrels. Every item that fails (engine status or a validator) is appended to ``failures.jsonl``
with its reason and raw output; every accepted LLM output is kept in ``judgments.jsonl``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.bench import Benchmark
from irforge.generators.instructions import steps
from irforge.generators.instructions.assemble import assemble, write_assembled
from irforge.generators.instructions.dimensions import Dimension
from irforge.generators.instructions.pairs import Pair, group_pairs
from irforge.generators.instructions.units import Group, Unit
from irforge.llm.protocol import EngineLike
from irforge.records import Doc, Failure, Judgment

STEP = "instructions"


@dataclass(frozen=True)
class BuildSettings:
    """The recipe knobs recorded in the manifest."""

    phrasings: int = 1
    hard_negatives: int = 1
    rewrite: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if not 1 <= self.phrasings <= len(steps.PHRASINGS):
            raise ValueError(f"phrasings must be 1..{len(steps.PHRASINGS)}, got {self.phrasings}")
        if not 0 <= self.hard_negatives <= len(steps.ANGLES):
            raise ValueError(f"hard_negatives must be 0..{len(steps.ANGLES)}, "
                             f"got {self.hard_negatives}")


@dataclass
class BuildReport:
    """What a build produced: counts per file, failures per step."""

    root: Path
    counts: dict[str, int] = field(default_factory=dict)
    failures_by_step: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        made = ", ".join(f"{key}={value}" for key, value in self.counts.items())
        failed = ", ".join(f"{key}={value}" for key, value in sorted(self.failures_by_step.items()))
        return f"{made}; failures: {failed or 'none'}"


def _split_small(groups: Sequence[Group]) -> tuple[list[Group], list[Failure]]:
    """Groups need two positives with distinct conditions, or the reversed mode is empty."""
    kept, failures = [], []
    for group in groups:
        if len(group.members) >= 2:
            kept.append(group)
        else:
            failures.append(Failure(step="instructions.group", item_id=group.query_id,
                                    reason=f"{group.dimension}: {len(group.members)} positive "
                                           "document(s) left after extraction and rewriting; "
                                           "needs 2 with different conditions",
                                    metadata={"dimension": group.dimension}))
    return kept, failures


def _with_units(groups: Sequence[Group], units: Sequence[Unit]) -> list[Group]:
    used = {(u.query_id, u.dimension) for u in units}
    return [g for g in groups if (g.query_id, g.dimension) in used]


def _descriptions(dimensions: Mapping[str, Dimension], units: Iterable[Unit]
                  ) -> dict[tuple[str, str], str]:
    return {(u.dimension, u.condition): dimensions[u.dimension].value(u.condition).description
            for u in units}


def run_steps(engine: EngineLike, pairs: Sequence[Pair],
              dimensions: Mapping[str, Dimension], settings: BuildSettings
              ) -> tuple[list[Group], list[Unit], list[Failure], list[Judgment]]:
    """All LLM steps; returns the groups and units that survived, failures and judgments."""
    groups, failures = group_pairs(pairs, dimensions)
    judgments: list[Judgment] = []

    def keep(outcome: steps.Outcome) -> None:
        failures.extend(outcome.failures)
        judgments.extend(outcome.judgments)

    groups, outcome = steps.extract_keywords(engine, groups)
    keep(outcome)
    if settings.rewrite:
        groups, outcome = steps.rewrite_documents(engine, groups, dimensions, settings.seed)
        keep(outcome)
    groups, small = _split_small(groups)
    failures.extend(small)
    units, outcome = steps.instruct(engine, groups, dimensions, settings.phrasings,
                                    settings.seed)
    keep(outcome)
    units, outcome = steps.reverse(engine, units, {g.query_id: g.query for g in groups},
                                   dimensions)
    keep(outcome)
    groups = _with_units(groups, units)
    if settings.hard_negatives and groups:
        groups, outcome = steps.hard_negatives(engine, groups, settings.hard_negatives,
                                               settings.seed)
        keep(outcome)
    return groups, units, failures, judgments


def build_instructions(out: Path, pairs: Sequence[Pair], engine: EngineLike,
                       dimensions: Mapping[str, Dimension],
                       settings: BuildSettings | None = None,
                       distractors: Iterable[Doc] = (),
                       recipe: Mapping[str, Any] | None = None) -> BuildReport:
    """Run every step on ``pairs`` and write the benchmark folder at ``out``.

    ``distractors`` (for example the rest of an input corpus) join the corpus unjudged, except
    input positives that were dropped: they would be relevant documents without a label.
    """
    settings = settings or BuildSettings()
    bench = Benchmark(Path(out))
    bench.root.mkdir(parents=True, exist_ok=True)
    groups, units, failures, judgments = run_steps(engine, pairs, dimensions, settings)
    kept_ids = {m.doc.doc_id for g in groups for m in g.members}
    dropped = {pair.doc.doc_id for pair in pairs} - kept_ids
    extra = [doc for doc in distractors if doc.doc_id not in dropped]
    report = BuildReport(root=bench.root)
    if units:
        assembled = assemble(groups, units, _descriptions(dimensions, units), extra)
        report.counts = write_assembled(bench, assembled)
    report.counts.update(units=len(units), pairs=len(pairs))
    bench.add_failures(failures)
    bench.add_judgments(judgments)
    for failure in failures:
        report.failures_by_step[failure.step] = report.failures_by_step.get(failure.step, 0) + 1
    entry: dict[str, Any] = {"method": "InfoSearch (Lin et al.), section 2.2 / appendix A",
                             "settings": vars(settings), "counts": report.counts,
                             "failures": report.failures_by_step,
                             "dimensions": sorted({p.dimension for p in pairs}),
                             **dict(recipe or {})}
    manifest_entry = getattr(engine, "manifest_entry", None)
    if callable(manifest_entry):
        entry["llm"] = manifest_entry()
    bench.record_step(STEP, entry)
    return report
