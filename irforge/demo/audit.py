"""Demo stage: audit whatever the earlier demo stages generated (queries, qrels, judgments)."""

from __future__ import annotations

from typing import Any

from irforge.core.jsonl import write_json


def stage_audit(ctx: Any) -> str:
    """Near-duplicate queries and query-source overlap; LLM-vs-human kappa when people labeled."""
    from irforge.audits.data import (
        near_duplicate_queries,
        query_sources,
        source_overlap,
    )
    from irforge.validators.llm_agreement import agreement_table, pair_judgments

    bench = ctx.bench
    if not bench.queries_path.exists():
        return "no queries in the demo folder yet: nothing to audit"
    queries = list(bench.queries())
    docs = {doc.doc_id: doc for doc in bench.corpus()} if bench.corpus_path.exists() else {}
    qrels = bench.qrels_dict() if bench.qrels_path().exists() else {}
    duplicates = near_duplicate_queries(queries)
    overlap = source_overlap(queries, docs, query_sources(queries, qrels))
    summary: dict[str, Any] = {"queries": len(queries), "near_duplicate_pairs": len(duplicates),
                               "mean_query_source_overlap": overlap.mean}
    pairs = pair_judgments(bench.judgments(), queries)
    if pairs:
        rows = agreement_table(pairs, (), n_resamples=200)
        summary["kappa"] = {row.rater: row.kappa for row in rows}
    write_json(bench.root / "audits" / "demo_audit.json", summary)
    text = (f"{len(queries)} queries, {len(duplicates)} near-duplicate pairs, mean "
            f"query-source overlap {overlap.mean:.2f}")
    return text + (f", LLM-vs-human kappa on {len(pairs)} pairs" if pairs else "")
