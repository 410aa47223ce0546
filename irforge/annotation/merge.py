"""Adjudicated qrels: the LLM qrels with people's labels applied by a named policy.

Policies (:data:`POLICIES`): ``human-wins`` keeps every LLM qrel and replaces it where people
labeled the pair (pairs only people labeled are added); ``human-only`` keeps only pairs people
labeled. Each written qrel gets a provenance row (source, LLM grade, people's labels and
names) in ``annotation/<out split>_provenance.jsonl``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from irforge.annotation.pull import Adjudicated, adjudicate
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError, IrforgeError
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Qrel

Pair = tuple[str, str]


def _human_wins(llm: Mapping[Pair, int], human: Mapping[Pair, Adjudicated]) -> list[Pair]:
    return sorted(set(llm) | set(human))


def _human_only(llm: Mapping[Pair, int], human: Mapping[Pair, Adjudicated]) -> list[Pair]:
    return sorted(human)


POLICIES: dict[str, Callable[[Mapping[Pair, int], Mapping[Pair, Adjudicated]], list[Pair]]] = {
    "human-wins": _human_wins, "human-only": _human_only}


@dataclass(frozen=True)
class MergeResult:
    """What a merge wrote."""

    qrels: Path
    provenance: Path
    total: int
    from_human: int
    changed: int
    from_llm: int


def merge_qrels(bench: Benchmark, base: str = "test", out: str = "adjudicated",
                policy: str = "human-wins", task: str = "relevance",
                tie_break: str = "median") -> MergeResult:
    """Write ``qrels/<out>.tsv`` from ``qrels/<base>.tsv`` and the human judgments."""
    if policy not in POLICIES:
        raise IrforgeError(f"unknown --policy {policy!r}; use one of {', '.join(POLICIES)}")
    if out == base:
        raise IrforgeError(f"--out {out!r} would overwrite the LLM qrels; pick another split")
    if base not in bench.splits():
        raise IrforgeError(f"{bench.qrels_path(base)} not found (splits: "
                           f"{', '.join(bench.splits()) or 'none'}); pass --base")
    llm = {(q.query_id, q.doc_id): q.relevance for q in bench.qrels(base)}
    human = {(a.query_id, a.doc_id): a for a in adjudicate(bench.judgments(), task, tie_break)}
    if not human:
        raise EmptyResultError(f"{bench.judgments_path}: no human '{task}' labels to merge; run "
                               f"`irforge annotate pull` or `irforge annotate import-tasks`")
    qrels, provenance = [], []
    changed = 0
    for pair in POLICIES[policy](llm, human):
        person = human.get(pair)
        grade = round(person.label) if person else llm[pair]
        qrels.append(Qrel(pair[0], pair[1], grade))
        row: dict[str, Any] = {"query_id": pair[0], "doc_id": pair[1], "score": grade,
                               "source": "human" if person else "llm",
                               "llm_score": llm.get(pair), "policy": policy}
        if person:
            row.update(annotators=person.annotators, human_labels=person.labels, tie=person.tie,
                       tie_break=tie_break)
            changed += pair in llm and llm[pair] != grade
        provenance.append(row)
    bench.write_qrels(qrels, out)
    prov_path = bench.root / "annotation" / f"{out}_provenance.jsonl"
    write_jsonl(prov_path, provenance)
    from_human = sum(1 for row in provenance if row["source"] == "human")
    bench.record_step(f"qrels.merge.{out}", {
        "base": base, "policy": policy, "task": task, "tie_break": tie_break,
        "qrels": len(qrels), "from_human": from_human, "changed": changed})
    return MergeResult(bench.qrels_path(out), prov_path, len(qrels), from_human, changed,
                       len(qrels) - from_human)
