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

from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Judgment
from irforge.generators.instructions import steps
from irforge.generators.instructions.assemble import assemble, write_assembled
from irforge.generators.instructions.dimensions import Dimension
from irforge.generators.instructions.merge import merge_previous
from irforge.generators.instructions.pairs import PENDING, Pair, group_pairs
from irforge.generators.instructions.units import Group, Member, Unit
from irforge.generators.kept import require_kept
from irforge.llm.protocol import EngineLike
from irforge.steps import Step, StepYield, reason_key, run_step
from irforge.steps.gates import QueryGates
from irforge.steps.yields import YieldTable

STEP = steps.STEP


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


@dataclass
class _Run:
    """One build's engine and what its steps produced so far."""

    engine: EngineLike
    gates: QueryGates | None = None  # the run's query gates with the validator registry
    failures: list[Failure] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)
    yields: YieldTable = field(default_factory=YieldTable)

    def run(self, step: Step, items: Sequence[Any],
            judged: Callable[[Any, Any, Judgment], Judgment] | None = None) -> dict[str, Any]:
        """Run one step; keeps failures, yield and the provenance of each accepted output
        (with the item's metadata; ``judged`` may retarget a judgment)."""
        outcome = run_step(self.engine, step, items, self.gates)
        self.failures.extend(outcome.failures)
        self.yields.add(outcome.yield_)
        by_key = {step.item_id(item): item for item in items}
        for judgment in outcome.judgments:
            item = by_key[judgment.query_id]
            judgment = replace(judgment, metadata={**dict(step.metadata(item)),
                                                   **dict(judgment.metadata)})
            value = outcome.accepted[judgment.query_id]
            self.judgments.append(judged(item, value, judgment) if judged else judgment)
        return outcome.accepted

    def plain(self, name: str, attempted: int, failures: Sequence[Failure]) -> None:
        """Count a plain-code step (no LLM) in the yield table and keep its failures."""
        self.failures.extend(failures)
        self.yields.add(StepYield(name, attempted, attempted - len(failures),
                                  Counter(reason_key(f.reason) for f in failures)))


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


def _keywords(run: _Run, groups: Sequence[Group]) -> list[Group]:
    """Step 1 for members still pending; members without an accepted keyword are dropped."""
    items = [steps.KeywordItem(g, m) for g in groups for m in g.members
             if m.condition == PENDING]
    found = run.run(steps.keyword_step(), items, lambda item, keyword, j: replace(
        j, query_id=item.group.query_id, doc_id=item.member.doc.doc_id,
        metadata={**dict(j.metadata), "keyword": keyword}))
    out = []
    for group in groups:
        members = []
        for member in group.members:
            key = f"{group.query_id}/{member.doc.doc_id}"
            if member.condition != PENDING:
                members.append(member)
            elif key in found:
                members.append(Member(member.doc, found[key], member.origin))
        out.append(group.with_members(tuple(members)))
    return out


def _rewrites(run: _Run, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
              seed: int) -> list[Group]:
    """Step 4: each group's source document rewritten into every missing condition value."""
    by_template: dict[str, list[steps.RewriteItem]] = {}
    for group in groups:
        spec = dimensions[group.dimension]
        source = group.member(spec.rewrite.source) if spec.rewrite else None
        if spec.rewrite is None or source is None:
            continue
        for target in spec.rewrite.targets:
            if group.member(target) is None:
                wanted = int(spec.value(target).markers.get("min_users", 0))
                names = steps.user_names(seed, f"{group.query_id}/{source.doc.doc_id}/{target}",
                                         wanted + 1) if wanted else []
                by_template.setdefault(spec.rewrite.template, []).append(
                    steps.RewriteItem(group, spec, source, target, tuple(names)))
    added: dict[tuple[str, str], list[Member]] = {}
    for template, items in by_template.items():
        written = run.run(steps.rewrite_step(template), items, lambda item, text, j: replace(
            j, query_id=item.group.query_id, doc_id=item.doc_id))
        for item in items:
            key = f"{item.group.query_id}/{item.doc_id}"
            if key in written:
                source = item.source.doc
                doc = Doc(doc_id=item.doc_id, text=written[key], title=source.title,
                          metadata={"rewritten_from": source.doc_id,
                                    "dimension": item.group.dimension,
                                    "condition": item.target})
                added.setdefault((item.group.query_id, item.group.dimension), []).append(
                    Member(doc, item.target, origin="rewritten"))
    return [group.with_members(group.members + tuple(added.get((group.query_id,
                                                                 group.dimension), ())))
            for group in groups]


def _instructions(run: _Run, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
                  phrasings: int, seed: int) -> list[Unit]:
    """Step 3: ``phrasings`` instructed queries per condition; units lack reversed text yet."""
    items = [steps.InstructionItem(group, member, dimensions[group.dimension].value(
                 member.condition), index, style)
             for group in groups for member in group.members
             for index, style in enumerate(steps.phrasing_styles(seed, group, member,
                                                                 phrasings))]
    made = run.run(steps.instruction_step(), items, lambda item, unit, j: replace(
        j, metadata={**dict(j.metadata), "instructed": unit.instructed}))
    return [made[item.key] for item in items if item.key in made]


def _reversals(run: _Run, units: Sequence[Unit], groups: Sequence[Group],
               dimensions: Mapping[str, Dimension]) -> list[Unit]:
    """Step 5: each unit's condition negated; units without an accepted reversal are dropped."""
    by_key = {(g.query_id, g.dimension): g for g in groups}
    items = []
    for unit in units:
        group = by_key[(unit.query_id, unit.dimension)]
        gold = next(m.doc for m in group.members if m.doc.doc_id == unit.gold_doc_id)
        items.append(steps.ReverseItem(unit, group.query,
                                       dimensions[unit.dimension].value(unit.condition), gold,
                                       tuple(m.doc for m in group.members)))
    made = run.run(steps.reverse_step(), items, lambda item, unit, j: replace(
        j, metadata={**dict(j.metadata), "reversed": unit.reversed}))
    return [made[unit.unit_id] for unit in units if unit.unit_id in made]


def _hard_negatives(run: _Run, groups: Sequence[Group], count: int, seed: int) -> list[Group]:
    """Step 6: ``count`` hard negatives per core query, shared by its dimension groups; each
    is logged as judged irrelevant (0) to its query."""
    queries = {g.query_id: g.query for g in groups}
    positives: dict[str, list[str]] = {}
    for group in groups:
        positives.setdefault(group.query_id, []).extend(m.doc.text for m in group.members)
    items = [steps.HardNegativeItem(query_id, queries[query_id], index, angle,
                                    tuple(positives[query_id]))
             for query_id in queries
             for index, angle in enumerate(steps.angles(seed, query_id, count))]
    written = run.run(steps.hard_negative_step(), items, lambda item, text, j: replace(
        j, query_id=item.query_id, doc_id=item.doc_id, label=0.0))
    found: dict[str, list[Doc]] = {}
    for item in items:
        if item.doc_id in written:
            found.setdefault(item.query_id, []).append(Doc(
                doc_id=item.doc_id, text=written[item.doc_id],
                metadata={"hard_negative_for": item.query_id, "angle": item.angle}))
    return [g.with_hard_negatives(tuple(found.get(g.query_id, ()))) for g in groups]


def run_steps(engine: EngineLike, pairs: Sequence[Pair],
              dimensions: Mapping[str, Dimension], settings: BuildSettings
              ) -> tuple[list[Group], list[Unit], _Run]:
    """All LLM steps; returns the groups and units that survived and the run's records."""
    from irforge.check.generation import validating_gates
    from irforge.steps.gates import corpus_language

    docs = list({pair.doc.doc_id: pair.doc for pair in pairs}.values())
    run = _Run(engine, validating_gates(docs, corpus_language(doc.text for doc in docs)))
    groups, failures = group_pairs(pairs, dimensions)
    run.plain("instructions.pairs", len(pairs), failures)
    groups = _keywords(run, groups)
    if settings.rewrite:
        groups = _rewrites(run, groups, dimensions, settings.seed)
    groups, small = _split_small(groups)
    run.plain("instructions.group", len(groups) + len(small), small)
    units = _instructions(run, groups, dimensions, settings.phrasings, settings.seed)
    units = _reversals(run, units, groups, dimensions)
    groups = _with_units(groups, units)
    if settings.hard_negatives and groups:
        groups = _hard_negatives(run, groups, settings.hard_negatives, settings.seed)
    return groups, units, run


def build_instructions(out: Path, pairs: Sequence[Pair], engine: EngineLike,
                       dimensions: Mapping[str, Dimension],
                       settings: BuildSettings | None = None,
                       distractors: Iterable[Doc] = (),
                       recipe: Mapping[str, Any] | None = None) -> BuildReport:
    """Run every step on ``pairs`` and write (or merge into) the benchmark folder at ``out``.

    ``distractors`` (for example the rest of an input corpus) join the corpus unjudged, except
    input positives that were dropped: they would be relevant documents without a label.
    Units of (query, dimension) pairs this run did not attempt stay in the folder. Callers
    show ``report.yields`` and call :meth:`BuildReport.require_yield`.
    """
    settings = settings or BuildSettings()
    bench = Benchmark(Path(out))
    bench.root.mkdir(parents=True, exist_ok=True)
    groups, units, run = run_steps(engine, pairs, dimensions, settings)
    kept_ids = {m.doc.doc_id for g in groups for m in g.members}
    dropped = {pair.doc.doc_id for pair in pairs} - kept_ids
    extra = [doc for doc in distractors if doc.doc_id not in dropped]
    report = BuildReport(root=bench.root, yields=run.yields)
    attempted = {(pair.query_id, pair.dimension) for pair in pairs}
    assembled = assemble(groups, units, _descriptions(dimensions, units), extra)
    merged = merge_previous(bench, assembled, attempted, dropped)
    if merged.queries:
        report.counts = write_assembled(bench, merged)
    report.counts.update(units=len(units), pairs=len(pairs))
    bench.add_failures(run.failures)
    bench.add_judgments(run.judgments)
    entry: dict[str, Any] = {"method": "InfoSearch (Lin et al.), section 2.2 / appendix A",
                             "settings": vars(settings), "counts": report.counts,
                             "failures": report.failures_by_step,
                             "yield": report.yields.to_manifest(),
                             "dimensions": sorted({p.dimension for p in pairs}),
                             **dict(recipe or {})}
    manifest_entry = getattr(engine, "manifest_entry", None)
    if callable(manifest_entry):
        entry["llm"] = manifest_entry()
    bench.record_step(STEP, entry)
    return report
