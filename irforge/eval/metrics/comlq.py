"""ComLQ (comlq.txt, section 4, eq. 2): Log-Scaled Negation Consistency, LSNC@K."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping

from irforge.core.trec import ranked_ids
from irforge.eval.metrics.ranking import RunDict


def lsnc_value(violations_in_top_k: int, k: int) -> float:
    """Eq. 2: ``-log((V + 1) / (K + 1)) / log(K + 1)``; 1 with no violation, 0 with K."""
    return -math.log((violations_in_top_k + 1) / (k + 1)) / math.log(k + 1)


def lsnc(run: RunDict, violations: Mapping[str, Collection[str]], k: int = 100
         ) -> dict[str, float]:
    """Per-query LSNC@K for the queries with negation-violation labels.

    ``violations[q]`` holds the documents that violate q's negation condition (V(d) = 1).
    K stays K when the run returns fewer documents, as in the paper's formula. A query whose
    run is empty is left out (an empty list would score a free 1.0); count them with
    :func:`empty_runs`.
    """
    if k < 1:
        raise ValueError(f"LSNC@K needs K >= 1, got {k}")
    out = {}
    for query_id, violating in violations.items():
        violating = set(violating)
        if not run.get(query_id):
            continue
        top = ranked_ids(run[query_id], k)
        out[query_id] = lsnc_value(sum(1 for doc_id in top if doc_id in violating), k)
    return out


def empty_runs(run: RunDict, violations: Mapping[str, Collection[str]]) -> int:
    """How many labelled negation queries have no retrieved document (left out of LSNC)."""
    return sum(1 for query_id in violations if not run.get(query_id))
