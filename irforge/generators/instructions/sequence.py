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
from irforge.generators.instructions.text import jaccard
from irforge.generators.instructions.units import SEED, Group, Member, Unit
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


#: two positives of a group sharing this much of their words (Jaccard) are one text, not
#: two conditions (the hard negatives' near-copy bound is 0.6)
MAX_MEMBER_OVERLAP = 0.8


def _near_copies(group: Group) -> str | None:
    """Why two positives of ``group`` are near copies of each other, or None."""
    members = group.members
    for index, first in enumerate(members):
        for second in members[index + 1:]:
            overlap = jaccard(first.doc.text, second.doc.text)
            if overlap >= MAX_MEMBER_OVERLAP:
                return (f"{group.dimension}: the {first.condition!r} and {second.condition!r} "
                        f"documents share {overlap:.2f} of their words (at most "
                        f"{MAX_MEMBER_OVERLAP}); near copies do not differ on the condition")
    return None


def _split_small(groups: Sequence[Group]) -> tuple[list[Group], list[Failure]]:
    """Groups need two positives with distinct conditions that are not near copies of each
    other, or the instructed and reversed modes test nothing."""
    kept, failures = [], []
    for group in groups:
        copies = _near_copies(group) if len(group.members) >= 2 else None
        if copies is not None:
            failures.append(Failure(step="instructions.group", item_id=group.query_id,
                                    reason=copies, metadata={"dimension": group.dimension}))
        elif len(group.members) >= 2:
            kept.append(group)
        else:
            seeded = (f" (seed {group.seed} stands for no value itself: only its accepted "
                      "rewrites count; with --no-rewrite, give each pair's condition)"
                      if group.seed is not None else "")
            failures.append(Failure(step="instructions.group", item_id=group.query_id,
                                    reason=f"{group.dimension}: {len(group.members)} positive "
                                           "document(s) left after extraction and rewriting; "
                                           f"needs 2 with different conditions{seeded}",
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


#: passage metadata that measures the source's own text (its span in the file, its tokens):
#: a rewrite does not inherit it
_SPAN_KEYS = frozenset({"char_start", "char_end", "tokens"})


def _rewrite_source(group: Group, spec: Dimension) -> Member | None:
    """The member rewritten into the missing values: the rule's ``from`` value; for a rule
    without one, the seed, else a given document whose condition its row stated."""
    if spec.rewrite is None:
        return None
    if not spec.rewrite.seeded:
        return group.member(str(spec.rewrite.source))
    return group.member(SEED) or next((m for m in group.members if m.origin == "given"), None)


def _rewrites(run: BuildRunner, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
              seed: int) -> list[Group]:
    """Step 4: each group's source document rewritten into every missing condition value."""
    by_template: dict[str, list[steps.RewriteItem]] = {}
    for group in groups:
        spec = dimensions[group.dimension]
        source = _rewrite_source(group, spec)
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
                # the rewrite stays a passage of the source's document (its file, section
                # and document id), so rules that read a passage's document still apply
                doc = Doc(doc_id=item.doc_id, text=written[key], title=source.title,
                          metadata={**{name: value for name, value in
                                       (source.metadata or {}).items()
                                       if name not in _SPAN_KEYS},
                                    "rewritten_from": source.doc_id,
                                    "dimension": item.group.dimension,
                                    "condition": item.target})
                added.setdefault((item.group.query_id, item.group.dimension), []).append(
                    Member(doc, item.target, origin="rewritten"))
    return [group.with_members(group.members + tuple(added.get((group.query_id,
                                                                 group.dimension), ())))
            for group in groups]


def _set_seeds_apart(groups: Sequence[Group]) -> list[Group]:
    """A seed document leaves its group's members (its rewrites stand for every value)."""
    out = []
    for group in groups:
        seed = group.member(SEED)
        out.append(group if seed is None else replace(
            group, members=tuple(m for m in group.members if m.condition != SEED),
            seed=seed.doc.doc_id))
    return out


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
              dimensions: Mapping[str, Dimension], settings: BuildSettings,
              before_queries: Callable[[Sequence[Group]], None] | None = None
              ) -> tuple[list[Group], list[Unit]]:
    """All LLM steps on ``run``; returns the groups and units that survived.
    ``before_queries(groups)`` runs once the positives are final (rewrites included), before
    the first query is written: the build points its validators at those documents."""
    groups, failures = group_pairs(pairs, dimensions)
    run.ledger.count("instructions.pairs", len(pairs), failures)
    groups = _keywords(run, groups)
    if settings.rewrite:
        groups = _rewrites(run, groups, dimensions, settings.seed)
    groups, small = _split_small(_set_seeds_apart(groups))
    run.ledger.count("instructions.group", len(groups) + len(small), small)
    if before_queries is not None:
        before_queries(groups)
    units = _instructions(run, groups, dimensions, settings.phrasings, settings.seed)
    units = _reversals(run, units, groups, dimensions)
    groups = _with_units(groups, units)
    if settings.hard_negatives and groups:
        groups = _hard_negatives(run, groups, settings.hard_negatives, settings.seed)
    return groups, units
