"""Query decomposers (stage_aware_decomposition.txt section 3.1): naive, fixed-size, adaptive.

A query's conditions come from ``metadata["conditions"]`` (a list of strings, as MultiConIR
builds them); without it they are split from the text at ``;`` / new lines / sentence ends.
Sub-queries are :class:`Query` records with ids ``"<query_id>::<n>"``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Protocol

from irforge.core.errors import IrforgeError
from irforge.core.records import Failure, Query

ADAPTIVE_STEP = "eval.decompose"


class Decomposer(Protocol):
    name: str

    def decompose(self, queries: Sequence[Query]) -> dict[str, list[Query]]: ...


def conditions_of(query: Query) -> list[str]:
    """The query's conditions: metadata first, else clauses split from the text."""
    listed = query.metadata.get("conditions")
    if isinstance(listed, list) and all(isinstance(c, str) for c in listed) and listed:
        return [c.strip() for c in listed if c.strip()]
    parts = re.split(r"\s*(?:;|\n|(?<=[.!?])\s+)\s*", query.text)
    return [p.strip() for p in parts if p and p.strip()]


def group_sizes(n: int, smallest: int, largest: int) -> list[int]:
    """Sizes of contiguous groups, each within [smallest, largest], as even as possible;
    ``[n]`` (no decomposition) when ``n <= largest``, as in the paper's Q1-Q3."""
    if not 1 <= smallest <= largest:
        raise ValueError(f"need 1 <= k <= j, got k={smallest}, j={largest}")
    if n <= largest:
        return [n]
    groups = math.ceil(n / largest)
    base, extra = divmod(n, groups)
    sizes = [base + 1] * extra + [base] * (groups - extra)
    if min(sizes) < smallest:
        raise ValueError(f"{n} conditions cannot be cut into groups of {smallest}..{largest}")
    return sizes


def _sub(query: Query, index: int, text: str, conditions: list[str]) -> Query:
    return Query(f"{query.query_id}::{index}", text,
                 {"parent": query.query_id, "conditions": conditions})


def _join(stem: str, conditions: list[str]) -> str:
    return (f"{stem} " if stem else "") + "; ".join(conditions)


class FixedSizeDecomposer:
    """Contiguous groups of ``smallest..largest`` conditions (paper default 2..3)."""

    def __init__(self, smallest: int = 2, largest: int = 3, stem_field: str = "stem") -> None:
        group_sizes(largest, smallest, largest)  # validates the bounds
        self.smallest, self.largest, self.stem_field = smallest, largest, stem_field
        self.name = f"fixed{smallest}-{largest}"

    def decompose(self, queries: Sequence[Query]) -> dict[str, list[Query]]:
        out = {}
        for query in queries:
            conditions = conditions_of(query)
            sizes = group_sizes(len(conditions), self.smallest, self.largest)
            if len(sizes) == 1:
                out[query.query_id] = [_sub(query, 0, query.text, conditions)]
                continue
            stem = str(query.metadata.get(self.stem_field, ""))
            subs, start = [], 0
            for index, size in enumerate(sizes):
                group = conditions[start:start + size]
                subs.append(_sub(query, index, _join(stem, group), group))
                start += size
            out[query.query_id] = subs
        return out


class NaiveDecomposer(FixedSizeDecomposer):
    """One condition per sub-query."""

    def __init__(self, stem_field: str = "stem") -> None:
        super().__init__(1, 1, stem_field)
        self.name = "naive"


class AdaptiveDecomposer:
    """The LLM groups each query's conditions into sub-queries (the shared step of
    ``irforge.steps.decomposition``, validated for covering every condition exactly once). A
    query whose answer is unusable stays whole and is listed in :attr:`failures`."""

    def __init__(self, engine=None, max_subqueries: int = 10) -> None:
        if engine is None:
            from irforge.llm import Engine

            engine = Engine()
        self.engine, self.max_subqueries = engine, max_subqueries
        self.name = "adaptive"
        self.failures: list[Failure] = []

    def decompose(self, queries: Sequence[Query]) -> dict[str, list[Query]]:
        from irforge.steps import run_step
        from irforge.steps.decomposition import DecompositionItem, adaptive_step

        items = [DecompositionItem(q.query_id, q.text, tuple(conditions_of(q))) for q in queries]
        outcome = run_step(self.engine, adaptive_step(ADAPTIVE_STEP, self.max_subqueries), items)
        self.failures.extend(outcome.failures)
        out = {}
        for query, item in zip(queries, items, strict=True):
            subs = outcome.accepted.get(query.query_id)
            if subs is None:
                out[query.query_id] = [_sub(query, 0, query.text, list(item.conditions))]
                continue
            out[query.query_id] = [
                _sub(query, i, sub.text, [item.conditions[c - 1] for c in sub.conditions])
                for i, sub in enumerate(subs)]
        return out


def get_decomposer(spec: str, engine=None) -> Decomposer:
    """``"naive"``, ``"fixed"`` (2..3), ``"fixed:K-J"``, ``"adaptive"`` (LLM engine)."""
    kind, _, argument = spec.partition(":")
    if kind == "naive":
        return NaiveDecomposer()
    if kind == "fixed":
        low, _, high = (argument or "2-3").partition("-")
        try:
            return FixedSizeDecomposer(int(low), int(high or low))
        except ValueError as exc:
            raise IrforgeError(f"bad fixed-size decomposer {spec!r}: {exc} "
                               "(write fixed:K-J, e.g. fixed:2-3)") from None
    if kind == "adaptive":
        return AdaptiveDecomposer(engine)
    raise IrforgeError(f"unknown decomposer {spec!r}: use naive, fixed[:K-J] or adaptive")
