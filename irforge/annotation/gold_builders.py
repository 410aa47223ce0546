"""Gold items for people: tasks whose right answer is known by construction, one builder per
labeling job (``GOLD_BUILDERS``, keyed by job name), made from the folder itself, no LLM.

A builder returns :class:`GoldCase` rows: a real item of the job with some shown fields
replaced, and whether the right answer is "yes" (at or above the job's ``cut``) or "no".
Every job gets a "yes" and a "no" case per source item, so always answering one way scores
one half. What each job's cases are is in docs/annotation.md ("Gold questions").
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from irforge.annotation.items import AnnotationItem, shown_data, strata_of
from irforge.annotation.labeling import LabelingJob
from irforge.annotation.locate import Folder, locate
from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.core.layouts.relevance import LAYOUT as RELEVANCE
from irforge.core.records import Doc, Judgment
from irforge.generators.controls import content_words, document_of, relevant_from

PROMPTS = {"zero_shot": "relevance.zero_shot", "cot": "relevance.cot_final",
           "multi_dim": "relevance.multi_dim_final"}  # control log names -> judgment prompts
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True)
class GoldCase:
    """One gold task: the item it is made from, the fields shown instead, the passage it
    shows (a corpus id), the expected answer (1 = yes) and the LLM labels it carries."""

    kind: str
    source: AnnotationItem
    fields: Mapping[str, Any]
    doc_id: str
    expected: int
    llm: Mapping[str, float] | None = None  # the judge's labels, where a judge labelled it


@dataclass(frozen=True)
class GoldContext:
    """What builders read: the job, its real items and the folder."""

    bench: Benchmark
    job: LabelingJob
    items: Sequence[AnnotationItem]
    folder: Folder
    judgments: Sequence[Judgment]


@dataclass(frozen=True)
class GoldBuilder:
    """How a job's gold cases are made and the lowest label that means "yes"."""

    build: Callable[[GoldContext], list[GoldCase]]
    cut: Callable[[LabelingJob], float]
    what: str  # one line for the docs and the manifest


def _passage(doc: Doc) -> str:
    return f"{doc.title}\n{doc.text}".strip() if doc.title else doc.text


def _generated(doc: Doc) -> bool:
    """A passage a generator wrote (a MultiConIR hard negative, an InfoSearch rewrite or
    hard negative, a logical hypothetical): never the "unrelated" passage of a gold item."""
    meta = doc.metadata or {}
    return bool(meta.get("generated") or meta.get("kind") == "hard_negative"
                or meta.get("rewritten_from") or meta.get("hard_negative_for")
                or meta.get("synthetic"))


def unrelated_doc(text: str, exclude: set[str], folder: Folder) -> Doc | None:
    """A real (not generated) passage of another document sharing the fewest content words
    with ``text``; ties go to the smallest id, so the choice is stable."""
    words = content_words(text)
    banned = {document_of(folder.docs[d]) for d in exclude if d in folder.docs} | exclude
    pool = [doc for doc in folder.docs.values() if doc.doc_id not in banned
            and document_of(doc) not in banned and not _generated(doc)]
    if not pool:
        return None
    return min(pool, key=lambda doc: (len(words & content_words(_passage(doc))), doc.doc_id))


def _sts(ctx: GoldContext) -> list[GoldCase]:
    """Sentence A against itself (5, equivalent) and against an unrelated passage (0-2)."""
    out = []
    for item in ctx.items:
        sentence = str(item.data["query"])
        other = unrelated_doc(sentence, {item.doc_id}, ctx.folder)
        if other is None:
            continue
        out += [GoldCase("identical", item, {"passage": sentence}, item.doc_id, 1),
                GoldCase("unrelated", item, {"passage": _passage(other)}, other.doc_id, 0)]
    return out


def _hard_negative(ctx: GoldContext) -> list[GoldCase]:
    """The condition with its own source sentence (satisfies: yes) and with a sentence of an
    unrelated document, else the source sentence of another condition (no)."""
    by_pair: dict[tuple[str, str], Judgment] = {}
    for judgment in ctx.judgments:
        if judgment.source != "llm" or judgment.task not in ctx.job.generator_tasks:
            continue
        placed = locate(judgment, ctx.folder)
        if placed is not None:
            by_pair[placed] = judgment
    originals = {pair: str(j.metadata.get("original") or "") for pair, j in by_pair.items()}
    out = []
    for item in ctx.items:
        judgment = by_pair.get((item.query_id, item.doc_id))
        original = originals.get((item.query_id, item.doc_id))
        if judgment is None or not original:
            continue
        source = str(judgment.metadata.get("source_doc") or judgment.doc_id)
        positive = next((d for d, doc in ctx.folder.docs.items()
                         if (doc.metadata or {}).get("source_doc") == source
                         and (doc.metadata or {}).get("kind") == "positive"), source)
        condition = str(item.data["condition"])
        other = unrelated_doc(condition, {positive, source, item.doc_id}, ctx.folder)
        if other is not None:
            sentences = _SENTENCE.split(other.text.strip())
            wrong = min(sentences, key=lambda s: (len(content_words(condition)
                                                      & content_words(s)), -len(s)))
            wrong_doc, kind = other.doc_id, "unrelated-sentence"
        else:  # one source document: another condition's own sentence breaks this one
            siblings = [text for pair, text in sorted(originals.items()) if text != original
                        and str(by_pair[pair].metadata.get("source_doc")) == source]
            if not siblings:
                continue
            wrong, wrong_doc, kind = siblings[0], positive, "other-condition"
        out += [GoldCase("own-sentence", item, {"sentence": original}, positive, 1),
                GoldCase(kind, item, {"sentence": wrong}, wrong_doc, 0)]
    return out


def _instruction_compliance(ctx: GoldContext) -> list[GoldCase]:
    """Another positive of the core query, written for another condition value of the same
    dimension (``instructions/groups.jsonl``): the instruction excludes it by construction
    (violates); under the description of its own condition value it complies."""
    from irforge.core.layouts.instructions import LAYOUT as INSTRUCTIONS
    from irforge.generators.instructions.dimensions import load_dimensions

    path = ctx.bench.root / INSTRUCTIONS.relative("groups")
    if not path.is_file():
        return []
    groups = {(str(row["query_id"]), str(row["dimension"])): row for _, row in iter_jsonl(path)}
    dimensions = load_dimensions()
    out = []
    for item in ctx.items:
        query = ctx.folder.queries.get(item.query_id)
        meta = query.metadata if query else {}
        group = groups.get((str(meta.get("core_query_id")), str(meta.get("dimension"))))
        dimension = dimensions.get(str(meta.get("dimension")))
        if group is None or dimension is None:
            continue
        for member in group["members"]:
            doc = ctx.folder.docs.get(str(member["doc_id"]))
            if doc is None or member["condition"] == meta.get("condition"):
                continue
            try:
                described = dimension.value(str(member["condition"])).description
            except KeyError:  # a value of a user's dimensions file: no description here
                continue
            out += [GoldCase("excluded", item, {"passage": _passage(doc)}, doc.doc_id, 0),
                    GoldCase("its-own-condition", item, {"passage": _passage(doc),
                                                         "instruction": described},
                             doc.doc_id, 1)]
            break
    return out


def _triple_groups(value: Any) -> dict[str, list[dict[str, str]]] | None:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            return None
    return value if isinstance(value, dict) else None


def _broken(groups: Mapping[str, list[dict[str, str]]], kind: str
            ) -> dict[str, list[dict[str, str]]] | None:
    """The triples with the negation flipped (``flip``) or the last triple dropped
    (``drop``); None when there is nothing to change."""
    out = {name: list(rows) for name, rows in groups.items()}
    if kind == "flip":
        if out.get("negation"):
            out["intersection"] = [*out.get("intersection", []), *out.pop("negation")]
            out["negation"] = []
        else:
            plain = next((name for name in ("intersection", "projection") if out.get(name)),
                         None)
            if plain is None:
                return None
            out["negation"] = [out[plain].pop()]
        return out
    largest = max(out, key=lambda name: (len(out[name]), name), default=None)
    if largest is None or not out[largest]:
        return None
    out[largest] = out[largest][:-1]
    return out


def _logical_structure(ctx: GoldContext) -> list[GoldCase]:
    """The query's own triples, which code checked against its type (yes), and the triples
    with the negation flipped or a triple dropped, which the same check rejects (no)."""
    from irforge.annotation.items import as_lines
    from irforge.generators.logical.structure import TripleGroups, check_structure
    from irforge.generators.logical.types import get_type

    out = []
    for item in ctx.items:
        query = ctx.folder.queries.get(item.query_id)
        meta = query.metadata if query else {}
        groups = _triple_groups(meta.get("triples"))
        if not groups or not meta.get("type"):
            continue
        qtype = get_type(str(meta["type"]))
        for kind in ("flip", "drop"):
            broken = _broken(groups, kind)
            if broken and not check_structure(TripleGroups.model_validate(broken), qtype,
                                              meta.get("answer_variable")).ok:
                shown = {name: rows for name, rows in broken.items() if rows}
                out += [GoldCase("own-triples", item, {}, item.doc_id, 1),
                        GoldCase(f"{kind}-triples", item, {"triples": as_lines(shown)},
                                 item.doc_id, 0)]
                break
    return out


def _evidence_distribution(ctx: GoldContext) -> list[GoldCase]:
    """The query's own passages, whose spread code checked (yes), and the same passages with
    an unrelated document's passage added, which no evidence needs (no)."""
    out = []
    for item in ctx.items:
        query = ctx.folder.queries.get(item.query_id)
        meta = query.metadata if query else {}
        own = [str(d) for d in meta.get("source_doc_ids") or []]
        if not own:
            continue
        other = unrelated_doc(str(item.data["query"]), set(own), ctx.folder)
        if other is None:
            continue
        added = f"[{len(own) + 1}] {other.title}: {other.text}" if other.title else \
            f"[{len(own) + 1}] {other.text}"
        out += [GoldCase("own-passages", item, {}, item.doc_id, 1),
                GoldCase("extra-passage", item, {"passages": f"{item.data['passages']}\n\n"
                                                             f"{added}"}, other.doc_id, 0)]
    return out


def _relevance(ctx: GoldContext) -> list[GoldCase]:
    """The relevance judge's control items (``relevance/controls.jsonl``, written by
    ``irforge label``), with the judge's labels; a control it did not label is left out."""
    path = ctx.bench.root / RELEVANCE.relative("controls")
    if not path.is_file():
        return []
    strata = sorted({key for item in ctx.items for key in item.strata}) or ["intent", "type"]
    out = []
    for _, row in iter_jsonl(path):
        labels = {PROMPTS[name]: float(value) for name, value in row.get("labels", {}).items()
                  if name in PROMPTS and value is not None}
        if not labels:
            continue  # nothing to pre-fill in a review round, so it would stand out
        # rendered by the real tasks' renderer from the query and passage it names; only a
        # control of a query or passage not in the folder shows the control's own text
        query = ctx.folder.queries.get(str(row.get("query_id")))
        doc = ctx.folder.docs.get(str(row["doc_id"]))
        meta = {"intent": row["intent"]} if row.get("intent") and query is None else {}
        data = shown_data(ctx.job, query, doc, meta, ctx.folder.docs)
        fields = {name: value for name, value in
                  (("query", row.get("query") if query is None else None),
                   ("passage", row.get("passage") if doc is None else None)) if value}
        query_id = str(row.get("query_id") or row["control_id"])
        source = AnnotationItem(str(row["control_id"]), query_id, str(row["doc_id"]), {}, {},
                                None, strata_of(query, meta, strata), data)
        out.append(GoldCase(str(row.get("kind", "control")), source, fields,
                            str(row["doc_id"]), int(row["expected"]), labels))
    return out


def _scale_half(job: LabelingJob) -> float:
    return float(relevant_from(int(max(job.label_values.values()))))


def _yes(job: LabelingJob) -> float:
    return float(max(job.label_values.values()))


GOLD_BUILDERS: dict[str, GoldBuilder] = {
    "relevance": GoldBuilder(_relevance, _scale_half,
                             "the relevance judge's control pairs (positive, other-document, "
                             "near-miss)"),
    "sts": GoldBuilder(_sts, lambda job: 3.0,
                       "sentence A with itself; sentence A with an unrelated passage"),
    "hard_negative": GoldBuilder(_hard_negative, _yes,
                                 "the condition with its own source sentence; with a sentence "
                                 "that does not state it"),
    "instruction_compliance": GoldBuilder(_instruction_compliance, _yes,
                                          "a positive written for another condition value; the "
                                          "same passage under its own condition's description"),
    "logical_structure": GoldBuilder(_logical_structure, lambda job: 3.0,
                                     "the code-checked triples; triples with the negation "
                                     "flipped or a triple dropped"),
    "evidence_distribution": GoldBuilder(_evidence_distribution, _yes,
                                         "the query's own passages; plus an unrelated passage"),
}
