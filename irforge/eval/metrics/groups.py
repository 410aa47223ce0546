"""Per-group means of per-query values (per ComLQ type, per InfoSearch dimension...)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from irforge.core.records import Query


def query_groups(queries: list[Query], field: str = "type", strip_suffix: bool = True
                 ) -> dict[str, str]:
    """Group of each query from its metadata ``field``; ComLQ's ``2in_2`` becomes ``2in``
    when ``strip_suffix`` (the suffix counts source passages, not a logical type)."""
    out = {}
    for query in queries:
        value = query.metadata.get(field)
        if value is None:
            continue
        text = str(value)
        out[query.query_id] = re.sub(r"_\d+$", "", text) if strip_suffix else text
    return out


def group_means(per_query: Mapping[str, Mapping[str, float]], groups: Mapping[str, str]
                ) -> dict[str, dict[str, float]]:
    """``{group: {metric: mean, "queries": n}}`` over the queries that have a group."""
    sums: dict[str, dict[str, float]] = {}
    counts: dict[str, int] = {}
    for query_id, values in per_query.items():
        group = groups.get(query_id)
        if group is None:
            continue
        bucket = sums.setdefault(group, {})
        for name, value in values.items():
            bucket[name] = bucket.get(name, 0.0) + value
        counts[group] = counts.get(group, 0) + 1
    return {group: {**{name: total / counts[group] for name, total in bucket.items()},
                    "queries": float(counts[group])}
            for group, bucket in sorted(sums.items())}
