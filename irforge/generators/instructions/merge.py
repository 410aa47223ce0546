"""Re-runs merge with the folder: a build for some queries or dimensions keeps the others.

The units, groups, qrels rows and documents of every (core query, dimension) that a run did
not attempt are read back from the folder and written again beside the new ones; the pairs a
run attempted are replaced by what it produced.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.core.layouts.instructions import LAYOUT
from irforge.core.records import Doc
from irforge.generators.instructions.assemble import MODES, Assembled
from irforge.generators.instructions.units import Group, Member
from irforge.prompts.forms import CORE_FORM_KEYS


def _group(row: Mapping[str, Any], docs: Mapping[str, Doc]) -> Group | None:
    """A group row of ``groups.jsonl`` with its documents, or None when one is missing."""
    ids = [m["doc_id"] for m in row["members"]] + list(row["hard_negatives"])
    if any(doc_id not in docs for doc_id in ids):
        return None
    members = tuple(Member(docs[m["doc_id"]], m["condition"], m.get("origin", "given"))
                    for m in row["members"])
    return Group(row["query_id"], row["query"], row["dimension"], members,
                 tuple(docs[doc_id] for doc_id in row["hard_negatives"]),
                 {key: str(row[key]) for key in CORE_FORM_KEYS.values() if row.get(key)},
                 str(row["seed"]) if row.get("seed") else None)


def previous(bench: Benchmark) -> Assembled | None:
    """What an earlier build wrote to ``bench``, or None when the folder holds no build."""
    groups_path = LAYOUT.path(bench.root, "groups")
    if not groups_path.is_file() or not bench.queries_path.is_file():
        return None
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    groups = [g for _, row in iter_jsonl(groups_path) if (g := _group(row, docs)) is not None]
    qrels = {mode: tuple(bench.qrels(mode)) if bench.qrels_path(mode).is_file() else ()
             for mode in MODES}
    return Assembled(docs=tuple(docs.values()), queries=tuple(bench.queries()), qrels=qrels,
                     groups=tuple(groups))


def merge_previous(bench: Benchmark, new: Assembled, attempted: Collection[tuple[str, str]],
                   dropped: Collection[str] = ()) -> Assembled:
    """``new`` plus everything of ``bench`` whose (query, dimension) is not in ``attempted``.

    Documents of replaced groups and ``dropped`` input positives leave the corpus unless a kept
    group still uses them; documents the new build wrote win over old ones with the same id.
    """
    old = previous(bench)
    if old is None:
        return new
    kept_groups = [g for g in old.groups if (g.query_id, g.dimension) not in attempted]
    kept_queries = [q for q in old.queries
                    if (str(q.metadata.get("core_query_id")), str(q.metadata.get("dimension")))
                    not in attempted]
    kept_ids = {q.query_id for q in kept_queries}
    used = {doc.doc_id for g in kept_groups for doc in (*(m.doc for m in g.members),
                                                        *g.hard_negatives)}
    replaced = {doc.doc_id for g in old.groups if (g.query_id, g.dimension) in attempted
                for doc in (*(m.doc for m in g.members), *g.hard_negatives)}
    stale = (replaced | set(dropped)) - used
    new_ids = {doc.doc_id for doc in new.docs}
    docs = [doc for doc in old.docs if doc.doc_id not in stale and doc.doc_id not in new_ids]
    # a kept group's seed stays out of the corpus (as when it was built) unless a group uses it
    new_used = {doc.doc_id for g in new.groups for doc in (*(m.doc for m in g.members),
                                                           *g.hard_negatives)}
    seeds = {g.seed for g in kept_groups if g.seed} - used - new_used
    new_docs = [doc for doc in new.docs if doc.doc_id not in seeds]
    return Assembled(
        docs=(*docs, *new_docs), queries=(*kept_queries, *new.queries),
        qrels={mode: (*(r for r in old.qrels[mode] if r.query_id in kept_ids),
                      *new.qrels[mode]) for mode in MODES},
        groups=(*kept_groups, *new.groups))
