"""The InfoSearch LLM steps in the paper's order (section 2.2): keyword conditions, document
rewriting, instructions, reversed instructions, query hard negatives; each on the shared
build runner, each provenance judgment carrying its item's metadata."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from irforge.core.records import Doc, Failure, Judgment
from irforge.generators.instructions import steps
from irforge.generators.instructions.dimensions import Dimension
from irforge.generators.instructions.pairs import PENDING, Pair, group_pairs
from irforge.generators.instructions.units import Group, Member, Unit
from irforge.steps import Step
from irforge.steps.ledger import merge_metadata
from irforge.steps.runner import BuildRunner

if TYPE_CHECKING:
    from irforge.generators.instructions.settings import BuildSettings

Judged = Callable[[Any, Any, Judgment], Judgment]


def _run(run: BuildRunner, step: Step, items: Sequence[Any],
         judged: Judged | None = None) -> dict[str, Any]:
    """Run one step; each provenance judgment carries the item's metadata (``judged`` may
    retarget it)."""
    def with_item(item: Any, value: Any, judgment: Judgment) -> Judgment:
        judgment = merge_metadata(judgment, step.metadata(item))
        return judged(item, value, judgment) if judged else judgment

    return run.run(step, items, with_item)


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


def _keywords(run: BuildRunner, groups: Sequence[Group]) -> list[Group]:
    """Step 1 for members still pending; members without an accepted keyword are dropped."""
    items = [steps.KeywordItem(g, m) for g in groups for m in g.members
             if m.condition == PENDING]
    found = _run(run, steps.keyword_step(), items, lambda item, keyword, j: replace(
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


def _rewrites(run: BuildRunner, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
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
        written = _run(run, steps.rewrite_step(template), items, lambda item, text, j: replace(
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


def _instructions(run: BuildRunner, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
                  phrasings: int, seed: int) -> list[Unit]:
    """Step 3: ``phrasings`` instructed queries per condition; units lack reversed text yet."""
    items = [steps.InstructionItem(group, member, dimensions[group.dimension].value(
                 member.condition), index, style)
             for group in groups for member in group.members
             for index, style in enumerate(steps.phrasing_styles(seed, group, member,
                                                                 phrasings))]
    made = _run(run, steps.instruction_step(), items, lambda item, unit, j: replace(
        j, metadata={**dict(j.metadata), "instructed": unit.instructed}))
    return [made[item.key] for item in items if item.key in made]


def _reversals(run: BuildRunner, units: Sequence[Unit], groups: Sequence[Group],
               dimensions: Mapping[str, Dimension]) -> list[Unit]:
    """Step 5: each unit's condition negated; units without an accepted reversal are dropped."""
    by_key = {(g.query_id, g.dimension): g for g in groups}
    items = []
    for unit in units:
        group = by_key[(unit.query_id, unit.dimension)]
        gold = next(m.doc for m in group.members if m.doc.doc_id == unit.gold_doc_id)
        dimension = dimensions[unit.dimension]
        others = tuple(value.description for name, value in dimension.values.items()
                       if name != unit.condition)
        items.append(steps.ReverseItem(unit, group.query, dimension.value(unit.condition), gold,
                                       tuple(m.doc for m in group.members), others,
                                       group.core_form))
    made = _run(run, steps.reverse_step(), items, lambda item, unit, j: replace(
        j, metadata={**dict(j.metadata), "reversed": unit.reversed}))
    return [made[unit.unit_id] for unit in units if unit.unit_id in made]


def _hard_negatives(run: BuildRunner, groups: Sequence[Group], count: int,
                    seed: int) -> list[Group]:
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
    written = _run(run, steps.hard_negative_step(), items, lambda item, text, j: replace(
        j, query_id=item.query_id, doc_id=item.doc_id, label=0.0))
    found: dict[str, list[Doc]] = {}
    for item in items:
        if item.doc_id in written:
            found.setdefault(item.query_id, []).append(Doc(
                doc_id=item.doc_id, text=written[item.doc_id],
                metadata={"hard_negative_for": item.query_id, "angle": item.angle}))
    return [g.with_hard_negatives(tuple(found.get(g.query_id, ()))) for g in groups]


def run_steps(run: BuildRunner, pairs: Sequence[Pair],
              dimensions: Mapping[str, Dimension], settings: BuildSettings
              ) -> tuple[list[Group], list[Unit]]:
    """All LLM steps on ``run``; returns the groups and units that survived."""
    groups, failures = group_pairs(pairs, dimensions)
    run.ledger.count("instructions.pairs", len(pairs), failures)
    groups = _keywords(run, groups)
    if settings.rewrite:
        groups = _rewrites(run, groups, dimensions, settings.seed)
    groups, small = _split_small(groups)
    run.ledger.count("instructions.group", len(groups) + len(small), small)
    units = _instructions(run, groups, dimensions, settings.phrasings, settings.seed)
    units = _reversals(run, units, groups, dimensions)
    groups = _with_units(groups, units)
    if settings.hard_negatives and groups:
        groups = _hard_negatives(run, groups, settings.hard_negatives, settings.seed)
    return groups, units
