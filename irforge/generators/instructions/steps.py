"""The LLM steps of InfoSearch construction (paper 2.2 steps 1-6), one function each.

Each step renders one template per item through the engine, validates every parsed output with
plain code, and returns what passed plus a Failure for every item that did not (engine status
or validator reasons, with the raw output). Randomness (phrasing styles, forum user names,
hard-negative angles) comes from ``random.Random`` seeded with the run seed and the item id.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.generators.instructions.checks import (
    check_hard_negative,
    check_instruction,
    check_keyword,
    check_reversal,
    check_rewrite,
    clean_keyword,
)
from irforge.generators.instructions.dimensions import ConditionValue, Dimension
from irforge.generators.instructions.models import (
    HardNegativeDocument,
    InstructedQuery,
    KeywordCondition,
    ReversedQuery,
    RewrittenDocument,
)
from irforge.generators.instructions.pairs import PENDING
from irforge.generators.instructions.text import normalize
from irforge.generators.instructions.units import (
    Group,
    Member,
    Unit,
    hard_negative_doc_id,
    rewritten_doc_id,
    unit_id,
)
from irforge.llm.protocol import EngineLike
from irforge.records import Doc, Failure, Judgment
from irforge.steps.failures import accepted_judgment, rejection, result_failure

PHRASINGS = ("a polite request", "a direct instruction", "a question",
             "a plain statement of what you need", "a short casual remark")
ANGLES = ("the history of the subject", "a related but different question",
          "the people or organisations involved", "a neighbouring topic",
          "general background without specifics")
_NAME_PARTS = (("river", "amber", "quiet", "copper", "night", "salt", "maple", "north", "lucky",
                "slow", "paper", "iron", "wild", "blue", "frost"),
               ("fox", "heron", "otter", "pine", "stone", "lark", "moth", "wren", "comet",
                "fern", "badger", "reef", "kite", "cedar", "finch"))


@dataclass
class Outcome:
    """What a step kept, and the failures and provenance it produced."""

    failures: list[Failure] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)


def shown(condition: str) -> str:
    """A condition value as words for prompts (``forum_post`` -> ``forum post``)."""
    return condition.replace("_", " ")


def _rng(seed: int, *key: str) -> random.Random:
    return random.Random(":".join((str(seed), *key)))


def user_names(seed: int, key: str, count: int) -> list[str]:
    """``count`` distinct, real-looking forum user names, the same for the same seed and key."""
    rng = _rng(seed, "users", key)
    names: list[str] = []
    while len(names) < count:
        first, second = rng.choice(_NAME_PARTS[0]), rng.choice(_NAME_PARTS[1])
        name = rng.choice((f"{first}_{second}", f"{first.title()}{second.title()}",
                           f"{first}.{second}{rng.randint(2, 99)}"))
        if name not in names:
            names.append(name)
    return names


def _verdict(result: Any, step: str, item_id: str, check, meta: Mapping[str, Any],
             outcome: Outcome) -> bool:
    """Record a failure for a bad status or a rejected value; True when the item passed."""
    failure = result_failure(result, step, item_id, meta)
    if failure is None:
        reasons = check(result.value)
        if reasons:
            failure = rejection(step, item_id, reasons, result.raw, meta)
    if failure is not None:
        outcome.failures.append(failure)
        return False
    return True


def extract_keywords(engine: EngineLike, groups: Sequence[Group]
                     ) -> tuple[list[Group], Outcome]:
    """Keyword conditions for members still pending (A.1); failed members are dropped."""
    step, outcome = "instructions.keyword", Outcome()
    jobs = [(g, m) for g in groups for m in g.members if m.condition == PENDING]
    results = engine.run([{"query": g.query, "document": m.doc.text} for g, m in jobs],
                         "instructions.keyword", KeywordCondition, step=step)
    found: dict[tuple[str, str, str], str] = {}
    for (group, member), result in zip(jobs, results, strict=True):
        others = [m.doc.text for m in group.members if m.doc.doc_id != member.doc.doc_id]
        item = f"{group.query_id}/{member.doc.doc_id}"
        meta = {"dimension": group.dimension}
        if _verdict(result, step, item, lambda v, g=group, m=member, o=others: check_keyword(
                v.keyword, g.query, m.doc.text, o), meta, outcome):
            keyword = clean_keyword(result.value.keyword)
            found[(group.query_id, group.dimension, member.doc.doc_id)] = keyword
            outcome.judgments.append(accepted_judgment(result, step, group.query_id,
                                                       member.doc.doc_id, {"keyword": keyword}))
    out = []
    for group in groups:
        members = []
        for member in group.members:
            key = (group.query_id, group.dimension, member.doc.doc_id)
            if member.condition != PENDING:
                members.append(member)
            elif key in found:
                members.append(Member(member.doc, found[key], member.origin))
        out.append(group.with_members(tuple(members)))
    return out, outcome


def requirements(condition: ConditionValue, names: Sequence[str] = ()) -> str:
    """Plain-language requirements a rewrite must meet, from the condition's bounds/markers."""
    parts = []
    bounds, markers = dict(condition.bounds), dict(condition.markers)
    if "min_words" in bounds or "max_words" in bounds:
        low, high = bounds.get("min_words"), bounds.get("max_words")
        span = (f"between {low} and {high}" if low and high else
                f"at least {low}" if low else f"at most {high}")
        parts.append(f"Use {span} words.")
    if bounds.get("max_sentences") == 1:
        parts.append("Write exactly one sentence.")
    if bounds.get("min_paragraphs", 0) >= 2:
        parts.append(f"Write at least {bounds['min_paragraphs']} paragraphs separated by blank "
                     "lines.")
    if markers.get("min_users") and names:
        parts.append("Write it as a discussion among these users, each turn on its own line "
                     f"starting with the user name and a colon: {', '.join(names)}.")
    if markers.get("blog"):
        parts.append("Start with a title line, then a byline line with the author ('By ...'), "
                     "a publication date, the word 'Blog' and a section name.")
    if markers.get("code"):
        parts.append("Give only code, in a fenced code block.")
    if markers.get("manual"):
        parts.append("Structure it like official documentation, with headings or numbered "
                     "steps and a 'Note:' line.")
    return " ".join(parts)


def rewrite_documents(engine: EngineLike, groups: Sequence[Group],
                      dimensions: Mapping[str, Dimension], seed: int
                      ) -> tuple[list[Group], Outcome]:
    """Rewrite a group's source document into each missing condition value (A.4)."""
    outcome = Outcome()
    jobs: list[tuple[Group, Dimension, Member, str, list[str]]] = []
    for group in groups:
        spec = dimensions[group.dimension]
        source = group.member(spec.rewrite.source) if spec.rewrite else None
        if spec.rewrite is None or source is None:
            continue
        for target in spec.rewrite.targets:
            if group.member(target) is None:
                wanted = int(spec.value(target).markers.get("min_users", 0))
                names = user_names(seed, f"{group.query_id}/{source.doc.doc_id}/{target}",
                                   wanted + 1) if wanted else []
                jobs.append((group, spec, source, target, names))
    added: dict[tuple[str, str], list[Member]] = {}
    by_template: dict[str, list[int]] = {}
    for index, (_, spec, _, _, _) in enumerate(jobs):
        by_template.setdefault(spec.rewrite.template, []).append(index)
    results: list[Any] = [None] * len(jobs)
    for template, indexes in by_template.items():
        items = []
        for index in indexes:
            group, spec, source, target, names = jobs[index]
            value = spec.value(target)
            items.append({"query": group.query, "document": source.doc.text,
                          "source_description": spec.value(source.condition).description,
                          "target": shown(target), "target_description": value.description,
                          "requirements": requirements(value, names)})
        for index, result in zip(indexes, engine.run(items, template, RewrittenDocument,
                                                     step="instructions.rewrite"), strict=True):
            results[index] = result
    for (group, spec, source, target, names), result in zip(jobs, results, strict=True):
        doc_id = rewritten_doc_id(source.doc.doc_id, group.dimension, target)
        meta = {"dimension": group.dimension, "condition": target,
                "source_doc_id": source.doc.doc_id}
        if _verdict(result, "instructions.rewrite", f"{group.query_id}/{doc_id}",
                    lambda v, s=source, t=target, n=names, d=spec: check_rewrite(
                        v.document, s.doc.text, d.value(t), n), meta, outcome):
            doc = Doc(doc_id=doc_id, text=result.value.document.strip(), title=source.doc.title,
                      metadata={"rewritten_from": source.doc.doc_id, "dimension": group.dimension,
                                "condition": target})
            added.setdefault((group.query_id, group.dimension), []).append(
                Member(doc, target, origin="rewritten"))
            outcome.judgments.append(accepted_judgment(result, "instructions.rewrite",
                                                       group.query_id, doc_id, meta))
    return [group.with_members(group.members + tuple(added.get((group.query_id,
                                                                 group.dimension), ())))
            for group in groups], outcome


def instruct(engine: EngineLike, groups: Sequence[Group], dimensions: Mapping[str, Dimension],
             phrasings: int, seed: int) -> tuple[list[Unit], Outcome]:
    """Instructed queries, ``phrasings`` per condition (A.3); units lack reversed text yet."""
    step, outcome = "instructions.instruction", Outcome()
    jobs: list[tuple[Group, Member, int, str]] = []
    for group in groups:
        for member in group.members:
            styles = _rng(seed, "phrasing", group.query_id, member.doc.doc_id).sample(
                PHRASINGS, k=min(phrasings, len(PHRASINGS)))
            jobs.extend((group, member, index, style) for index, style in enumerate(styles))
    items = []
    for group, member, _, style in jobs:
        value = dimensions[group.dimension].value(member.condition)
        items.append({"query": group.query, "dimension": group.dimension,
                      "condition": shown(member.condition),
                      "condition_description": value.description, "phrasing": style})
    results = engine.run(items, "instructions.instruction", InstructedQuery, step=step)
    units: list[Unit] = []
    seen: dict[str, str] = {}
    for (group, member, index, style), result in zip(jobs, results, strict=True):
        uid = unit_id(group.query_id, group.dimension, member.condition, index)
        value = dimensions[group.dimension].value(member.condition)
        meta = {"dimension": group.dimension, "condition": member.condition}

        def check(v: Any, g: Group = group, c: ConditionValue = value) -> list[str]:
            reasons = check_instruction(v.instructed_query, g.query, c)
            twin = seen.get(normalize(v.instructed_query))
            return reasons + ([f"same text as {twin}"] if twin else [])

        if _verdict(result, step, uid, check, meta, outcome):
            text = " ".join(result.value.instructed_query.split())
            seen[normalize(text)] = uid
            units.append(Unit(uid, group.query_id, group.dimension, member.condition,
                              member.doc.doc_id, text, "", style))
            outcome.judgments.append(accepted_judgment(result, step, uid, member.doc.doc_id,
                                                       {"instructed": text, **meta}))
    return units, outcome


def reverse(engine: EngineLike, units: Sequence[Unit], queries: Mapping[str, str],
            dimensions: Mapping[str, Dimension]) -> tuple[list[Unit], Outcome]:
    """Reversed instructions negating each unit's condition (A.5); failed units are dropped."""
    step, outcome = "instructions.reverse", Outcome()
    items = [{"query": queries[u.query_id], "instructed": u.instructed,
              "dimension": u.dimension, "condition": shown(u.condition)} for u in units]
    results = engine.run(items, "instructions.reverse", ReversedQuery, step=step)
    out = []
    for unit, result in zip(units, results, strict=True):
        value = dimensions[unit.dimension].value(unit.condition)
        meta = {"dimension": unit.dimension, "condition": unit.condition}
        if _verdict(result, step, unit.unit_id, lambda v, u=unit, c=value: check_reversal(
                v.reversed_query, u.instructed, queries[u.query_id], c), meta, outcome):
            text = " ".join(result.value.reversed_query.split())
            out.append(Unit(unit.unit_id, unit.query_id, unit.dimension, unit.condition,
                            unit.gold_doc_id, unit.instructed, text, unit.phrasing))
            outcome.judgments.append(accepted_judgment(result, step, unit.unit_id,
                                                       unit.gold_doc_id, {"reversed": text,
                                                                          **meta}))
    return out, outcome


def hard_negatives(engine: EngineLike, groups: Sequence[Group], count: int, seed: int
                   ) -> tuple[list[Group], Outcome]:
    """``count`` query hard negatives per core query (A.6), shared by its dimension groups."""
    step, outcome = "instructions.hard_negative", Outcome()
    queries = {g.query_id: g.query for g in groups}
    positives: dict[str, list[str]] = {}
    for group in groups:
        positives.setdefault(group.query_id, []).extend(m.doc.text for m in group.members)
    jobs = []
    for query_id in queries:
        angles = _rng(seed, "angles", query_id).sample(ANGLES, k=min(count, len(ANGLES)))
        jobs.extend((query_id, index, angle) for index, angle in enumerate(angles))
    results = engine.run([{"query": queries[q], "angle": a} for q, _, a in jobs],
                         "instructions.hard_negative", HardNegativeDocument, step=step)
    found: dict[str, list[Doc]] = {}
    for (query_id, index, angle), result in zip(jobs, results, strict=True):
        doc_id = hard_negative_doc_id(query_id, index)
        if _verdict(result, step, doc_id, lambda v, q=query_id: check_hard_negative(
                v.document, queries[q], positives[q]), {"angle": angle}, outcome):
            doc = Doc(doc_id=doc_id, text=result.value.document.strip(),
                      metadata={"hard_negative_for": query_id, "angle": angle})
            found.setdefault(query_id, []).append(doc)
            outcome.judgments.append(Judgment(query_id, doc_id, 0.0, "llm",
                                              prompt_id=result.prompt_id or step,
                                              model=result.model or None, raw_output=result.raw,
                                              task=step, metadata={"angle": angle}))
    return [g.with_hard_negatives(tuple(found.get(g.query_id, ()))) for g in groups], outcome
