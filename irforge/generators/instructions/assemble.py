"""Deterministic assembly of the benchmark folder from groups and units (no LLM).

Layout (FollowIR / MTEB InstructionRetrieval style: one query id, three qrels files)::

    bench/
      corpus.jsonl                 positives (given + rewritten), hard negatives, distractors
                                   (less the seeds: given documents only rewritten)
      queries.jsonl                one row per unit: text = core query; metadata holds
                                   instructed, reversed, dimension, condition, gold_doc_id ...
      qrels/og.tsv                 original mode: every positive of the core query -> 1
      qrels/changed.tsv            instructed mode: the gold document -> 1, other positives -> 0
      qrels/reversed.tsv           reversed mode: other positives -> 1, the gold document -> 0
      qrels/test.tsv               a copy of og.tsv, so BEIR loaders find the default split
      instructions/queries_changed.jsonl    same ids, text = the instructed query
      instructions/queries_reversed.jsonl   same ids, text = the reversed query
      instructions/groups.jsonl             core queries with their members and hard negatives

Hard negatives are judged 0 in all three modes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.layouts.instructions import LAYOUT, MODES, mode_queries
from irforge.core.records import Doc, Qrel, Query
from irforge.generators.instructions.units import Group, Unit
from irforge.steps.records import Records

# metadata key holding the text a retriever sees in each mode (None: the core query itself)
MODE_TEXT = {"og": None, "changed": "instructed", "reversed": "reversed"}


def queries_for_mode(queries: Iterable[Query], mode: str) -> tuple[Query, ...]:
    """Queries with the text a retriever sees in ``mode`` (og, changed or reversed)."""
    if mode not in MODE_TEXT:
        raise ValueError(f"unknown mode {mode!r}; use one of {', '.join(MODES)}")
    key = MODE_TEXT[mode]
    return tuple(q if key is None else replace(q, text=str(q.metadata[key])) for q in queries)


@dataclass(frozen=True)
class Assembled:
    """Everything the folder holds, as records."""

    docs: tuple[Doc, ...]
    queries: tuple[Query, ...]
    qrels: dict[str, tuple[Qrel, ...]]
    groups: tuple[Group, ...]

    def mode_queries(self, mode: str) -> tuple[Query, ...]:
        """Queries with the text a retriever sees in ``mode`` (og, changed, reversed)."""
        return queries_for_mode(self.queries, mode)


def _unit_qrels(group: Group, unit: Unit) -> dict[str, list[Qrel]]:
    positives = [member.doc.doc_id for member in group.members]
    negatives = [doc.doc_id for doc in group.hard_negatives]
    og = [Qrel(unit.unit_id, doc_id, 1) for doc_id in positives]
    changed = [Qrel(unit.unit_id, doc_id, int(doc_id == unit.gold_doc_id))
               for doc_id in positives]
    reversed_ = [Qrel(unit.unit_id, doc_id, int(doc_id != unit.gold_doc_id))
                 for doc_id in positives]
    zeros = [Qrel(unit.unit_id, doc_id, 0) for doc_id in negatives]
    return {"og": og + zeros, "changed": changed + zeros, "reversed": reversed_ + zeros}


def _unit_query(group: Group, unit: Unit, descriptions: Mapping[tuple[str, str], str]) -> Query:
    return Query(query_id=unit.unit_id, text=group.query, metadata={
        "core_query_id": group.query_id,
        "core_query": group.query,  # the core query the unit instructs (its own input)
        "query_form": "instructed",  # irforge/prompts/forms.yaml: grounded on its core query
        **group.core_form,  # by the core's own form (a refuted claim, a persona request)
        "dimension": unit.dimension,
        "condition": unit.condition,
        "condition_description": descriptions.get((unit.dimension, unit.condition), ""),
        "gold_doc_id": unit.gold_doc_id,
        "positive_doc_ids": [member.doc.doc_id for member in group.members],
        "instructed": unit.instructed,
        "reversed": unit.reversed,
        "phrasing": unit.phrasing,
    })


def _check_unit(group: Group, unit: Unit) -> None:
    ids = {member.doc.doc_id for member in group.members}
    if unit.gold_doc_id not in ids:
        raise ValueError(f"unit {unit.unit_id}: gold document {unit.gold_doc_id!r} is not a "
                         f"positive of query {group.query_id!r}")
    if len(ids) < 2:
        raise ValueError(f"unit {unit.unit_id}: query {group.query_id!r} has one positive, so "
                         "the reversed mode would have no relevant document")


def assemble(groups: Sequence[Group], units: Sequence[Unit],
             descriptions: Mapping[tuple[str, str], str] | None = None,
             distractors: Iterable[Doc] = ()) -> Assembled:
    """Corpus, one query per unit and the og / changed / reversed qrels.

    ``descriptions`` maps (dimension, condition) to the text stored with each query.
    """
    by_query = {(group.query_id, group.dimension): group for group in groups}
    descriptions = descriptions or {}
    queries, qrels = [], {mode: [] for mode in MODES}
    seen: set[str] = set()
    for unit in units:
        group = by_query[(unit.query_id, unit.dimension)]
        _check_unit(group, unit)
        if unit.unit_id in seen:
            raise ValueError(f"duplicate unit id {unit.unit_id!r}")
        seen.add(unit.unit_id)
        queries.append(_unit_query(group, unit, descriptions))
        for mode, rows in _unit_qrels(group, unit).items():
            qrels[mode].extend(rows)
    docs: dict[str, Doc] = {}
    for group in groups:
        for member in group.members:
            docs.setdefault(member.doc.doc_id, member.doc)
        for doc in group.hard_negatives:
            docs.setdefault(doc.doc_id, doc)
    # a seed's rewrites stand for it: left in, it would answer its core query unjudged
    seeds = {group.seed for group in groups if group.seed is not None}
    for doc in distractors:
        if doc.doc_id not in seeds:
            docs.setdefault(doc.doc_id, doc)
    return Assembled(docs=tuple(docs.values()), queries=tuple(queries),
                     qrels={mode: tuple(rows) for mode, rows in qrels.items()},
                     groups=tuple(groups))


def _group_row(group: Group) -> dict[str, Any]:
    return {"query_id": group.query_id, "query": group.query, "dimension": group.dimension,
            **group.core_form,  # core_form, core_stance: the core query's own form
            "members": [{"doc_id": m.doc.doc_id, "condition": m.condition, "origin": m.origin}
                        for m in group.members],
            "hard_negatives": [doc.doc_id for doc in group.hard_negatives],
            **({"seed": group.seed} if group.seed is not None else {})}


def assembled_records(assembled: Assembled) -> Records:
    """The folder's records: corpus, queries, qrels per mode (``og`` also as ``test``), the
    changed/reversed query files and the groups."""
    files: dict[str, Iterable[Mapping[str, Any]]] = {
        LAYOUT.relative(mode_queries(mode)): [{"_id": q.query_id, "text": q.text}
                                              for q in assembled.mode_queries(mode)]
        for mode in ("changed", "reversed")}
    files[LAYOUT.relative("groups")] = [_group_row(group) for group in assembled.groups]
    return Records(corpus=assembled.docs, queries=assembled.queries,
                   qrels={**{mode: assembled.qrels[mode] for mode in MODES},
                          "test": assembled.qrels["og"]}, files=files)


def manifest_counts(written: Mapping[str, int]) -> dict[str, int]:
    """The manifest's counts of a written folder (the runner's rows written by file)."""
    return {"docs": written["docs"], "queries": written["queries"],
            **{f"qrels/{mode}": written[f"qrels/{mode}"] for mode in MODES},
            "groups": written[LAYOUT.relative("groups")]}


def read_modes(bench: Benchmark) -> dict[str, tuple[tuple[Query, ...], dict[str, dict[str, int]]]]:
    """For each mode, the queries as a retriever sees them and the qrels dict (for eval)."""
    queries = tuple(bench.queries())
    return {mode: (queries_for_mode(queries, mode), bench.qrels_dict(mode)) for mode in MODES}
