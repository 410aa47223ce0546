"""What the viewer shows, gathered from a benchmark folder into one JSON-ready dict."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.records import Judgment, Query

SNIPPET = 400
# (metadata key that marks a method's queries, method name), first match wins
METHOD_MARKERS: tuple[tuple[str, str], ...] = (
    ("dimension", "instructions"), ("conditions", "multicon"), ("logical_type", "logical"),
    ("type", "logical"), ("intent", "intents"))
# metadata keys that give a query's type, first present wins
TYPE_KEYS = ("type", "logical_type", "dimension", "intent", "style")
INSTRUCTION_KEYS = ("instruction", "instructed", "condition_description")


def method_of(query: Query) -> str:
    return next((method for key, method in METHOD_MARKERS if key in query.metadata), "other")


def type_of(query: Query) -> str:
    return next((str(query.metadata[k]) for k in TYPE_KEYS if query.metadata.get(k)), "-")


def rater_of(judgment: Judgment) -> str:
    """Who gave a label: ``human:<annotator>`` or the LLM strategy / prompt / model."""
    if judgment.source == "human":
        return f"human:{judgment.annotator or 'unknown'}"
    strategy = judgment.metadata.get("strategy")
    return f"llm:{strategy or judgment.prompt_id or judgment.model or 'llm'}"


def _yield_rows(manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, entry in (manifest.get("steps") or {}).items():
        for row in (entry.get("yield") or []) if isinstance(entry, Mapping) else []:
            rows.append({"run": name, "step": str(row.get("step")),
                         "attempted": row.get("attempted"), "accepted": row.get("accepted"),
                         "rejected": dict(row.get("rejected") or {})})
    return rows


def viewer_data(bench: Benchmark) -> dict[str, Any]:
    """Queries with metadata and judged passages, failures and the yield table."""
    queries = list(bench.queries()) if bench.queries_path.exists() else []
    if not queries:
        raise EmptyResultError(f"{bench.queries_path}: no queries to show (build the benchmark "
                               "or pass the right folder)")
    splits = {split: bench.qrels_dict(split) for split in bench.splits()}
    labels: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    judged_docs: dict[str, set[str]] = defaultdict(set)
    for judgment in bench.judgments():
        labels[(judgment.query_id, judgment.doc_id)][rater_of(judgment)] = judgment.label
        judged_docs[judgment.query_id].add(judgment.doc_id)
    wanted = {doc for qrels in splits.values() for docs in qrels.values() for doc in docs}
    wanted |= {doc for _, doc in labels}
    docs = {d.doc_id: {"title": d.title, "text": d.text[:SNIPPET] +
                       ("..." if len(d.text) > SNIPPET else "")}
            for d in bench.corpus() if d.doc_id in wanted} if bench.corpus_path.exists() else {}
    rows = []
    for query in queries:
        doc_ids = sorted({d for qrels in splits.values() for d in qrels.get(query.query_id, {})}
                         | judged_docs.get(query.query_id, set()))
        judged = []
        for doc_id in doc_ids:
            by_rater = labels.get((query.query_id, doc_id), {})
            judged.append({
                "doc_id": doc_id, **docs.get(doc_id, {"title": "", "text": "(not in corpus)"}),
                "qrels": {s: q[query.query_id][doc_id] for s, q in splits.items()
                          if doc_id in q.get(query.query_id, {})},
                "labels": by_rater, "disagree": len(set(by_rater.values())) > 1})
        instruction = next((str(query.metadata[k]) for k in INSTRUCTION_KEYS
                            if query.metadata.get(k)), "")
        rows.append({"id": query.query_id, "text": query.text, "method": method_of(query),
                     "type": type_of(query), "instruction": instruction,
                     "metadata": dict(query.metadata), "judged": judged})
    failures = [{"step": f.step, "item": f.item_id, "reason": f.reason,
                 "raw": (f.raw_output or "")[:SNIPPET]} for f in bench.failures()]
    raters = sorted({r for by in labels.values() for r in by})
    return {"bench": bench.root.resolve().name, "splits": sorted(splits), "raters": raters,
            "queries": rows, "failures": failures, "yield": _yield_rows(bench.manifest())}
