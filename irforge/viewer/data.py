"""What the explorer shows, gathered from one benchmark folder or every method folder of a run
folder into one JSON-ready dict (short keys: the page carries 10,000 queries)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.records import Judgment, Query
from irforge.viewer.extras import label_studio_projects, task_links, verdicts
from irforge.viewer.folders import bench_folders
from irforge.viewer.passages import SNIPPET, agreement, grade, roles, word_diff
from irforge.viewer.systems import read_systems
from irforge.viewer.verdict import (
    flagged,
    judges,
    label_distribution,
    pool_systems,
    pool_warning,
    rejected_text,
    rejections,
    shape,
    system_spread,
    validator_class,
    written_queries,
)

SHORT = 160  # characters of a passage that only appears in a system's top-k
MAX_REFERENCES = 5  # positives a hard negative is compared with (the closest one is shown)
# (metadata key that marks a method's queries, method name), first match wins
METHOD_MARKERS: tuple[tuple[str, str], ...] = (
    ("dimension", "instructions"), ("conditions", "multicon"), ("logical_type", "logical"),
    ("intent", "intents"), ("type", "logical"))
# metadata keys that give a query's type, first present wins
TYPE_KEYS = ("type", "logical_type", "dimension", "intent", "style")
INSTRUCTION_KEYS = ("instruction", "instructed", "condition_description")
SEED = "seed (hand-written)"
HARD_NEGATIVE_METHODS = ("multicon", "instructions")  # methods that make hard negatives
DIFF_METHODS = ("multicon",)  # hard negatives rewritten from the positive: words marked


def is_hand_written(query: Query) -> bool:
    """A query people wrote (the shipped seed set), not a generator."""
    meta = query.metadata
    return bool(meta.get("hand_written")) or meta.get("source") == "hand-written"


def method_of(query: Query) -> str:
    if is_hand_written(query):
        return SEED
    return next((method for key, method in METHOD_MARKERS if key in query.metadata), "other")


def type_of(query: Query) -> str:
    return next((str(query.metadata[k]) for k in TYPE_KEYS if query.metadata.get(k)), "-")


def rater_of(judgment: Judgment) -> str:
    """Who gave a label: ``human:<annotator>`` or the LLM strategy / prompt / model."""
    if judgment.source == "human":
        return f"human:{judgment.annotator or 'unknown'}"
    strategy = judgment.metadata.get("strategy")
    return f"llm:{strategy or judgment.prompt_id or judgment.model or 'llm'}"


def _yield_rows(label: str, manifest: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for name, entry in (manifest.get("steps") or {}).items():
        for row in (entry.get("yield") or []) if isinstance(entry, Mapping) else []:
            rows.append({"folder": label, "run": name, "step": str(row.get("step")),
                         "attempted": row.get("attempted"), "accepted": row.get("accepted"),
                         "rejected": dict(row.get("rejected") or {})})
    return rows


def _compact(metadata: Mapping[str, Any]) -> dict[str, str]:
    """Metadata values as short strings (the page shows them as a key/value list)."""
    out = {}
    for key, value in metadata.items():
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                                default=str)
        out[str(key)] = text if len(text) <= 300 else text[:299] + "…"
    return out


def _snippet(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + " …"


class _Folder:
    """One benchmark folder read for the page."""

    def __init__(self, index: int, label: str, path: Path) -> None:
        self.index, self.label, self.bench = index, label, Benchmark(path)
        bench = self.bench
        self.queries = list(bench.queries()) if bench.queries_path.is_file() else []
        splits = bench.splits()
        self.main = "test" if "test" in splits else (splits[0] if splits else "")
        self.splits = {split: bench.qrels_dict(split) for split in splits}
        self.labels: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
        self.labelled: dict[str, set[str]] = defaultdict(set)
        judgments = list(bench.judgments())
        for judgment in judgments:
            self.labels[(judgment.query_id, judgment.doc_id)][rater_of(judgment)] = \
                float(judgment.label)
            self.labelled[judgment.query_id].add(judgment.doc_id)
        self.systems = read_systems(path, self.splits.get(self.main, {}))
        self.verdicts = verdicts(path)
        manifest = bench.manifest()
        self.projects = label_studio_projects(manifest)
        self.links = task_links(judgments, self.projects)
        self.yield_rows = _yield_rows(label, manifest)
        failures = list(bench.failures())
        self.failures = [{"folder": label, "step": f.step, "item": f.item_id,
                          "validator": validator_class(f.reason), "reason": f.reason,
                          "text": rejected_text(f)} for f in failures]
        self.flagged = flagged(path)
        self.flagged_docs: dict[str, list[str]] = defaultdict(list)
        for row in self.flagged:
            self.flagged_docs[row["query"]].append(row["doc"])
        main_qrels = self.splits.get(self.main, {})
        pool = pool_systems(path, manifest)
        self.verdict = {
            "judges": judges(path), "rejections": rejections(failures),
            "labels": label_distribution(main_qrels),
            "shape": shape(self.queries, written_queries(failures)),
            "spread": system_spread(self.systems.scores, self.systems.names),
            "pool": pool, "warning": pool_warning(pool, self.systems.names),
            "flagged": self.flagged}

    def graded_relevance(self) -> bool:
        """Whether most queries' grades mean relevance (intents, logical, seeds), so the
        page may name them; a method with hard negatives grades on its own ladder."""
        methods = [method_of(query) for query in self.queries]
        return sum(m not in HARD_NEGATIVE_METHODS for m in methods) * 2 > len(methods)

    def empty_reason(self) -> str:
        """Why a folder shows no query (empty when it has some)."""
        if self.queries:
            return ""
        if not self.bench.queries_path.is_file():
            return "not built: no queries.jsonl (run its builder, or irforge run)"
        attempted = sum(int(row.get("attempted") or 0) for row in self.yield_rows)
        why = ", ".join(f"{row['validator']} x{row['n']}"
                        for row in self.verdict["rejections"][:4])
        return (f"kept no query ({attempted} attempted, {len(self.failures)} failures"
                + (f": {why}" if why else "") + "); see its failures.jsonl")

    def docs(self) -> dict[str, list[str]]:
        """``{"<folder index>:<doc id>": [title, text]}`` for every passage the page shows."""
        full = {d for qrels in self.splits.values() for docs in qrels.values() for d in docs}
        full |= {doc for _, doc in self.labels}
        short = {d for per in self.systems.top.values() for ids in per.values() for d in ids}
        out = {}
        if self.bench.corpus_path.exists():
            for doc in self.bench.corpus():
                if doc.doc_id in full or doc.doc_id in short:
                    limit = SNIPPET if doc.doc_id in full else SHORT
                    out[f"{self.index}:{doc.doc_id}"] = [doc.title, _snippet(doc.text, limit)]
        return out

    def rows(self, docs: Mapping[str, list[str]]) -> list[dict[str, Any]]:
        return [self._row(query, docs) for query in self.queries]

    def _row(self, query: Query, docs: Mapping[str, list[str]]) -> dict[str, Any]:
        qid = query.query_id
        main = self.splits.get(self.main, {}).get(qid, {})
        judged = set(self.labelled.get(qid, ()))
        for qrels in self.splits.values():
            judged |= set(qrels.get(qid, {}))
        method = method_of(query)
        by_role = roles(main, judged, method in HARD_NEGATIVE_METHODS)
        positives = [docs.get(f"{self.index}:{d}", ["", ""])[1]
                     for d, r in sorted(by_role.items()) if r == "positive"][:MAX_REFERENCES]
        passages = []
        order = {"positive": 0, "hard negative": 1, "graded": 1, "judged": 2}
        for doc_id in sorted(by_role, key=lambda d: (order[by_role[d]], -main.get(d, 0), d)):
            raw = self.labels.get((qid, doc_id), {})
            entry: dict[str, Any] = {
                "d": doc_id, "r": by_role[doc_id], "g": main.get(doc_id),
                "q": {s: q[qid][doc_id] for s, q in self.splits.items()
                      if s != self.main and doc_id in q.get(qid, {})},
                "l": {rater: grade(v) for rater, v in raw.items()},
                "raw": {rater: round(v, 2) for rater, v in raw.items()},
                "a": agreement(raw)}
            text = docs.get(f"{self.index}:{doc_id}", ["", ""])[1]
            references = [p for p in positives if p]
            if by_role[doc_id] == "hard negative" and method in DIFF_METHODS and references \
                    and text:
                # against the closest positive: the fewest marked words
                entry["diff"] = min((word_diff(ref, text) for ref in references),
                                    key=lambda segs: sum(len(t) for t, changed in segs
                                                         if changed))
            passages.append(entry)
        scores = self.systems.scores.get(qid, {})
        instruction = next((str(query.metadata[k]) for k in INSTRUCTION_KEYS
                            if query.metadata.get(k)), "")
        return {"f": self.index, "id": qid, "t": query.text, "m": method,
                "cat": str(query.metadata.get("category") or ""),
                "fl": sorted(self.flagged_docs.get(qid, [])),
                "ty": type_of(query), "seed": is_hand_written(query), "ins": instruction,
                "meta": _compact(query.metadata), "p": passages, "s": scores,
                "sp": round(max(scores.values()) - min(scores.values()), 4)
                if len(scores) > 1 else None,
                "top": self.systems.top.get(qid, {}), "v": self.verdicts.get(qid, []),
                "ls": self.links.get(qid, [])}


def natural_key(text: str) -> tuple:
    """Sort key that orders the numbers inside ids by value (``q2`` before ``q10``)."""
    return tuple((0, int(part), "") if part.isdigit() else (1, 0, part)
                 for part in re.split(r"(\d+)", text) if part)


def viewer_data(root: Path) -> dict[str, Any]:
    """Everything the page shows for ``root`` (a benchmark or a run folder)."""
    folders = [_Folder(i, label, path)
               for i, (label, path) in enumerate(bench_folders(Path(root)))]
    if not any(folder.queries for folder in folders):
        raise EmptyResultError(f"{root}: no queries to show in {len(folders)} folder(s) "
                               "(build the benchmark or pass the right folder)")
    docs: dict[str, list[str]] = {}
    queries: list[dict[str, Any]] = []
    for folder in folders:
        folder_docs = folder.docs()
        docs.update(folder_docs)
        queries += sorted(folder.rows(folder_docs), key=lambda row: natural_key(row["id"]))
    raters = sorted({r for f in folders for by in f.labels.values() for r in by})
    return {
        "bench": Path(root).resolve().name,
        "folders": [{"label": f.label, "main": f.main, "splits": sorted(f.splits),
                     "systems": f.systems.names, "means": f.systems.means,
                     "projects": f.projects, "queries": len(f.queries),
                     "verdict": f.verdict, "empty": f.empty_reason(),
                     "graded": f.graded_relevance()} for f in folders],
        "systems": sorted({name for f in folders for name in f.systems.names}),
        "metric": "ndcg@10", "raters": raters, "docs": docs, "queries": queries,
        "empty": [{"label": f.label, "why": f.empty_reason()} for f in folders if not f.queries],
        "failures": [row for f in folders for row in f.failures],
        "yield": [row for f in folders for row in f.yield_rows]}
