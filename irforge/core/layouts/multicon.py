"""The files of a MultiConIR folder (docs/multicon.md) besides the BEIR ones."""

from __future__ import annotations

from irforge.core.layout import Layout

TASKS = ("task1", "task2", "task3")

LAYOUT = Layout("multicon", "irforge build multicon", {
    "sources": "multicon/sources.jsonl",  # each source's conditions, spans, hard negatives
    "task1": "multicon/task1.jsonl",  # WR_k: query_k, positive, hard negative with k-1
    "task2": "multicon/task2.jsonl",  # WR_{k,k-1}: query_10 and its ladder of candidates
    "task3": "multicon/task3.jsonl",  # FR: instruction- and descriptive-style query, ladder
})
