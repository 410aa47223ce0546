"""MultiConIR (multiconir.txt, section 3.3): Win Rate, adjacent monotonicity, Flip Rate.

All three compare two scores ``S(q, a) > S(q, b)`` with a strict inequality, as the paper's
indicator does: a tie counts as a loss. ``tie_value=0.5`` gives the half-credit alternative.

Each metric is the mean of an indicator over its N items, as the paper's equations are; the
``*_items`` functions return those indicators by item, the one place they are computed (the
eval's task summary and the ``--metric`` registry both average them):

- WR_k: one item per query_k (its positive against its (k-1)-condition hard negative);
- WR_{k,k-1}: one item per query_10 ladder that has step k;
- FR: one item per adjacent ladder pair (d_k, d_{k-1}) of each task-3 query pair, so a query
  with a ten-step ladder weighs ten times a query with one step (pair-weighted).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from irforge.core.errors import IrforgeError
from irforge.eval.metrics.ranking import RunDict


class MissingScoreError(IrforgeError, KeyError):
    """A pairwise metric needs a score for a document the run did not score."""


def _score(run: RunDict, query_id: str, doc_id: str) -> float:
    try:
        return float(run[query_id][doc_id])
    except KeyError:
        raise MissingScoreError(
            f"run has no score for query {query_id!r}, document {doc_id!r}: pairwise win "
            "rates need every candidate scored (score the whole candidate set, not a top-k)"
        ) from None


def _win(better: float, worse: float, tie_value: float) -> float:
    if better > worse:
        return 1.0
    return tie_value if better == worse else 0.0


def pairwise_wins(run: RunDict, pairs: Mapping[str, tuple[str, str]],
                  tie_value: float = 0.0) -> dict[str, float]:
    """Per query 1 when ``S(q, first) > S(q, second)``, ``tie_value`` on a tie, else 0.

    WR_k (complexity robustness) is the mean of this over the query_k instances with
    ``pairs[q] = (positive, hard_negative_{k-1})``.
    """
    return {query_id: _win(_score(run, query_id, first), _score(run, query_id, second),
                           tie_value)
            for query_id, (first, second) in pairs.items()}


def win_rate(run: RunDict, pairs: Mapping[str, tuple[str, str]], tie_value: float = 0.0) -> float:
    """WR_k: the share of queries whose first document beats the second (paper eq. WR_k)."""
    wins = pairwise_wins(run, pairs, tie_value)
    return sum(wins.values()) / len(wins) if wins else 0.0


def adjacent_win_rates(run: RunDict, ladders: Mapping[str, Sequence[str]],
                       tie_value: float = 0.0) -> dict[int, float]:
    """WR_{k,k-1} for each k: ``ladders[q][j]`` is the document satisfying j conditions.

    A ladder ``[d_0, ..., d_9, d_plus]`` for query_10 gives WR_{1,0} ... WR_{10,9} (the last
    comparing the positive with d_9); ladders may have different lengths.
    """
    totals: dict[int, list[float]] = {}
    for query_id, ladder in ladders.items():
        for k in range(1, len(ladder)):
            win = _win(_score(run, query_id, ladder[k]), _score(run, query_id, ladder[k - 1]),
                       tie_value)
            totals.setdefault(k, []).append(win)
    return {k: sum(values) / len(values) for k, values in sorted(totals.items())}


def flip_rate(run_a: RunDict, run_b: RunDict, pairs: Mapping[str, tuple[str, str]]) -> float:
    """FR: share of pairs whose strict order differs between two query formats.

    ``run_a`` and ``run_b`` score the same query ids in two formats (instruction-style and
    descriptive-style); ``pairs[q] = (d_k, d_{k-1})`` as in the paper's FR formula.
    """
    if not pairs:
        return 0.0
    flips = 0
    for query_id, (first, second) in pairs.items():
        in_a = _score(run_a, query_id, first) > _score(run_a, query_id, second)
        in_b = _score(run_b, query_id, first) > _score(run_b, query_id, second)
        flips += in_a != in_b
    return flips / len(pairs)


def step_key(query_id: str, k: int) -> str:
    """The item id of ladder step ``k`` of a query: ``<query_id>#<k>``."""
    return f"{query_id}#{k}"


def win_items(run: RunDict, rows: Iterable[tuple[str, int, str, str]],
              tie_value: float = 0.0) -> dict[int, dict[str, float]]:
    """WR_k items by k: ``rows`` are ``(query_id, k, positive, hard_negative)``."""
    out: dict[int, dict[str, float]] = {}
    for query_id, k, positive, negative in rows:
        out.setdefault(k, {})[query_id] = _win(_score(run, query_id, positive),
                                               _score(run, query_id, negative), tie_value)
    return dict(sorted(out.items()))


def adjacent_items(run: RunDict, ladders: Mapping[str, Sequence[str]],
                   tie_value: float = 0.0) -> dict[int, dict[str, float]]:
    """WR_{k,k-1} items by k: one per query whose ladder has step k (``ladders[q][j]``
    satisfies j conditions)."""
    out: dict[int, dict[str, float]] = {}
    for query_id, ladder in ladders.items():
        for k in range(1, len(ladder)):
            out.setdefault(k, {})[query_id] = _win(_score(run, query_id, ladder[k]),
                                                   _score(run, query_id, ladder[k - 1]),
                                                   tie_value)
    return dict(sorted(out.items()))


def flip_items(run: RunDict, rows: Iterable[tuple[str, str, Sequence[str]]]
               ) -> dict[str, float]:
    """FR items: ``rows`` are ``(instruction_query, descriptive_query, ladder)``; one
    indicator per adjacent pair, 1 when the order of ``(d_k, d_{k-1})`` differs between the
    two query styles; keyed :func:`step_key` of the instruction-style query."""
    out: dict[str, float] = {}
    for inst, desc, ladder in rows:
        for k in range(1, len(ladder)):
            first, second = ladder[k], ladder[k - 1]
            in_inst = _score(run, inst, first) > _score(run, inst, second)
            in_desc = _score(run, desc, first) > _score(run, desc, second)
            out[step_key(inst, k)] = float(in_inst != in_desc)
    return out
