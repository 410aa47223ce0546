"""The trec_eval measures as pure numpy functions over sorted label matrices.

Conventions follow trec_eval (and so pytrec_eval): nDCG uses the graded relevance value as the
gain (not ``2**rel - 1``) and the discount ``log2(rank + 1)``; binary measures count a document
as relevant when its grade reaches ``relevance_level``; P@k divides by k even when fewer
documents were retrieved; queries with no relevant document score 0.
"""

from __future__ import annotations

import numpy as np

from irforge.eval.metrics.ranking import RankedLabels
from irforge.eval.metrics.registry import MetricSpec, register


def _depth(ranked: RankedLabels, cutoff: int | None) -> int:
    width = ranked.labels.shape[1]
    return width if cutoff is None else min(cutoff, width)


def _required(cutoff: int | None) -> int:
    if cutoff is None:
        raise ValueError("this measure needs a cutoff (NAME@K)")
    return cutoff


def _safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    out = np.zeros(numerator.shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _discount(depth: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def ndcg(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """nDCG with trec_eval gains (the grade itself), over the top ``cutoff`` or all."""
    depth = _depth(ranked, cutoff)
    gains = np.clip(ranked.labels[:, :depth], 0, None).astype(np.float64)
    dcg = gains @ _discount(depth)
    ideal_depth = ranked.ideal_gains.shape[1] if cutoff is None else cutoff
    ideal = ranked.ideal_gains[:, :ideal_depth]
    idcg = ideal @ _discount(ideal.shape[1])
    return _safe_divide(dcg, idcg)


def precision(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Relevant documents in the top k divided by k."""
    hits = ranked.relevant[:, : _depth(ranked, cutoff)].sum(axis=1)
    return hits / float(_required(cutoff))


def recall(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Relevant documents in the top k (or all retrieved) over all relevant documents."""
    hits = ranked.relevant[:, : _depth(ranked, cutoff)].sum(axis=1)
    return _safe_divide(hits.astype(np.float64), ranked.num_rel.astype(np.float64))


def average_precision(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Mean of the precision at each relevant rank (within the cutoff), over all relevant."""
    relevant = ranked.relevant[:, : _depth(ranked, cutoff)]
    precision_at = np.cumsum(relevant, axis=1) / np.arange(1, relevant.shape[1] + 1)
    total = np.where(relevant, precision_at, 0.0).sum(axis=1)
    return _safe_divide(total, ranked.num_rel.astype(np.float64))


def reciprocal_rank(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """1 / rank of the first relevant document (0 when none is retrieved within the cutoff)."""
    relevant = ranked.relevant[:, : _depth(ranked, cutoff)]
    found = relevant.any(axis=1)
    first = relevant.argmax(axis=1) + 1
    return np.where(found, 1.0 / first, 0.0)


def r_precision(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Precision at rank R, R = the query's number of relevant documents (trec_eval Rprec)."""
    relevant = ranked.relevant
    depth = np.minimum(ranked.num_rel, relevant.shape[1])
    hits = np.where(np.arange(relevant.shape[1])[None, :] < depth[:, None], relevant, False)
    return _safe_divide(hits.sum(axis=1).astype(np.float64),
                        ranked.num_rel.astype(np.float64))


def bpref(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Buckley and Voorhees 2004 as trec_eval computes it: per retrieved relevant document
    ``1 - min(n, R) / min(R, N)``, n = judged non-relevant ranked above it, averaged over R."""
    depth = _depth(ranked, cutoff)
    relevant = ranked.relevant[:, :depth]
    nonrel = ranked.judged[:, :depth] & ~relevant
    above = np.cumsum(nonrel, axis=1) - nonrel
    num_rel = ranked.num_rel[:, None].astype(np.float64)
    assert ranked.num_nonrel is not None
    denominator = np.minimum(num_rel, ranked.num_nonrel[:, None].astype(np.float64))
    penalty = _safe_divide(np.minimum(above, num_rel), np.broadcast_to(denominator, above.shape))
    total = np.where(relevant, 1.0 - penalty, 0.0).sum(axis=1)
    return _safe_divide(total, ranked.num_rel.astype(np.float64))


def success(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """1 when at least one relevant document is in the top k, else 0."""
    return ranked.relevant[:, : _depth(ranked, cutoff)].any(axis=1).astype(np.float64)


def judged(ranked: RankedLabels, cutoff: int | None) -> np.ndarray:
    """Share of the top k that has any relevance judgment: judged documents divided by k, or
    by the run's length when it lists fewer than k (as ir_measures' Judged@k)."""
    depth = np.minimum(ranked.retrieved, _required(cutoff)).astype(np.float64)
    return _safe_divide(ranked.judged[:, : _depth(ranked, cutoff)].sum(axis=1), depth)


register(MetricSpec("ndcg", ndcg, "optional", "normalized DCG with trec_eval gains",
                    "ndcg", "ndcg_cut_{k}"), "ndcg_cut")
register(MetricSpec("p", precision, "required", "precision at k", None, "P_{k}"),
         "precision", "prec")
register(MetricSpec("recall", recall, "optional", "recall at k", None, "recall_{k}"), "r",
         "recall_cut")
register(MetricSpec("map", average_precision, "optional",
                    "mean average precision (map@k: trec_eval map_cut)", "map", "map_cut_{k}"),
         "ap", "map_cut")
register(MetricSpec("mrr", reciprocal_rank, "optional", "reciprocal rank of the first relevant",
                    "recip_rank"), "rr", "recip_rank", "mrr_cut")
register(MetricSpec("judged", judged, "required", "share of the top k that has a judgment",
                    source="ir_measures Judged@k"))
register(MetricSpec("rprec", r_precision, "none", "precision at rank R (R relevant)",
                    "Rprec"), "r-precision", "r_prec")
register(MetricSpec("bpref", bpref, "optional", "binary preference (judged documents only)",
                    "bpref"))
register(MetricSpec("success", success, "required", "a relevant document in the top k",
                    None, "success_{k}"), "hit", "hits")
