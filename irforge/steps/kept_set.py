"""What the kept set is: the queries a method's model wrote against those its checks kept.

Validators that reject one kind of query more than another tilt the benchmark (paraphrased,
long or keyword queries rejected, literal questions kept: BM25 then looks better than it is).
This reads a method's folder (``queries.jsonl`` kept, ``failures.jsonl`` rejected with the
model's raw answer) and says, per length, form and category, how many were written and how
many kept, and what each check removed. Queries a step rejected before any text existed
(transport errors, broken JSON) are counted apart: there is no query to describe.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.prompts.forms import is_claim, is_question

LENGTHS = ((1, 4, "1-4 words"), (5, 9, "5-9 words"), (10, 19, "10-19 words"),
           (20, 49, "20-49 words"), (50, 10**9, "50+ words"))
QUERY_KEYS = ("query", "instructed_query", "reversed_query", "claim", "question")
TEXT_FIELDS = ("form", "length", "category")


def query_form(text: str) -> str:
    """``question``, ``claim`` or ``keyword``: the rough form of one query text (the rules of
    the declared forms, prompts/forms.py)."""
    if is_question(text):
        return "question"
    if text.strip().endswith((".", "!")) and len(text.split()) >= 4 and is_claim(text):
        return "claim"
    return "keyword"


def length_bucket(text: str) -> str:
    """The length band of a query (``5-9 words``)."""
    count = len(text.split())
    return next(name for low, high, name in LENGTHS if low <= count <= high) \
        if count else LENGTHS[0][2]


def written_query(raw: str | None) -> str | None:
    """The query text inside a rejected answer (the first query-like field of its JSON)."""
    if not raw:
        return None
    try:
        value = json.loads(raw)
    except (json.JSONDecodeError, TypeError):
        return None
    if not isinstance(value, dict):
        return None
    for key in QUERY_KEYS:
        text = value.get(key)
        if isinstance(text, str) and text.strip():
            return text
    return None


@dataclass
class KeptSet:
    """Written and kept counts of one method, per length, form and category."""

    written: dict[str, Counter[str]] = field(default_factory=lambda: {
        name: Counter() for name in TEXT_FIELDS})
    kept: dict[str, Counter[str]] = field(default_factory=lambda: {
        name: Counter() for name in TEXT_FIELDS})
    removed_by: Counter[str] = field(default_factory=Counter)  # check -> queries removed
    no_text: int = 0  # rejections with no answer to read (engine errors, broken JSON)

    def add(self, text: str, category: str | None, kept: bool) -> None:
        described = {"form": query_form(text), "length": length_bucket(text),
                     "category": category or "unknown"}
        for name, value in described.items():
            self.written[name][value] += 1
            if kept:
                self.kept[name][value] += 1

    def to_json(self) -> dict[str, Any]:
        return {name: {value: {"written": count, "kept": self.kept[name][value]}
                       for value, count in sorted(self.written[name].items())}
                for name in TEXT_FIELDS} | {"removed_by": dict(self.removed_by.most_common()),
                                            "rejected_without_query": self.no_text}

    def markdown(self) -> str:
        """One table per field (value, written, kept, kept %), then the checks' removals."""
        lines = []
        for name in TEXT_FIELDS:
            if not self.written[name]:
                continue
            lines += ["", f"| {name} | written | kept | kept % |", "|---|---:|---:|---:|"]
            for value, count in sorted(self.written[name].items()):
                kept = self.kept[name][value]
                lines.append(f"| {value} | {count} | {kept} | {100 * kept / count:.0f}% |")
        if self.removed_by:
            lines += ["", "Removed by: " + ", ".join(
                f"{reason} {count}" for reason, count in self.removed_by.most_common())]
        if self.no_text:
            lines.append(f"Rejected with no answer to read (engine errors, broken JSON): "
                         f"{self.no_text}")
        return "\n".join(lines).strip()


def kept_set(kept: Iterable[Mapping[str, Any]], rejected: Iterable[Mapping[str, Any]]
             ) -> KeptSet:
    """The kept set of a method from its kept query rows and its failure rows."""
    from irforge.steps.step import reason_key

    out = KeptSet()
    for row in kept:
        meta = row.get("metadata") or {}
        out.add(str(row.get("text", "")), meta.get("category"), kept=True)
    for row in rejected:
        text = written_query(row.get("raw_output"))
        meta = row.get("metadata") or {}
        if text is None:  # a step that writes no query (needs, rewrites), or no answer
            out.no_text += int(str(row.get("reason", "")).startswith("llm "))
            continue
        out.add(text, meta.get("category"), kept=False)
        out.removed_by[reason_key(str(row.get("reason", "")))] += 1
    return out


def folder_kept_set(folder: Path) -> KeptSet:
    """The kept set of a method folder (``queries.jsonl`` and ``failures.jsonl``)."""
    from irforge.core.jsonl import iter_jsonl

    def rows(name: str) -> list[Mapping[str, Any]]:
        path = Path(folder) / name
        return [row for _, row in iter_jsonl(path)] if path.is_file() else []

    return kept_set(rows("queries.jsonl"), rows("failures.jsonl"))
