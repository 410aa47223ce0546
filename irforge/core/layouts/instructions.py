"""The files of an InfoSearch instruction-following folder (docs/instructions.md)."""

from __future__ import annotations

from irforge.core.layout import Layout

MODES = ("og", "changed", "reversed")

LAYOUT = Layout("instructions", "irforge build instructions", {
    "qrels_og": "qrels/og.tsv",  # original mode: every positive of the core query
    "qrels_changed": "qrels/changed.tsv",  # instructed mode: the gold document only
    "qrels_reversed": "qrels/reversed.tsv",  # reversed mode: the other positives
    "queries_changed": "instructions/queries_changed.jsonl",  # same ids, instructed text
    "queries_reversed": "instructions/queries_reversed.jsonl",  # same ids, reversed text
    "groups": "instructions/groups.jsonl",  # core queries, members and hard negatives
    "review": "instructions/review.jsonl",  # positives flagged for a person to check
})


def mode_queries(mode: str) -> str:
    """The role of the query file of ``changed`` or ``reversed`` mode."""
    return f"queries_{mode}"


def mode_qrels(mode: str) -> str:
    """The role of the qrels split of a mode."""
    return f"qrels_{mode}"
