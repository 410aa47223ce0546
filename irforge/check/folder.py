"""``irforge check``: validate a whole benchmark folder and report every problem at once."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from irforge.check.methods import check_multicon, check_negation_labels
from irforge.check.queries import QueryAudit, check_queries, positives_by_query
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.collection import benchmark_folders
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import iter_jsonl


@dataclass
class CheckReport:
    """Problems found in a folder, plus the counts of what loaded."""

    root: Path
    problems: list[Problem] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    audit: QueryAudit = field(default_factory=QueryAudit)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_folders(root: Path, target_k: int | None = None, prompts_dir: Path | None = None,
                  retrievers: tuple[str, ...] = ("bm25",)) -> list[tuple[str, CheckReport]]:
    """Check ``root``, or each benchmark folder of the collection under it, by name."""
    options = {"target_k": target_k, "prompts_dir": prompts_dir, "retrievers": retrievers}
    if not Path(root).is_dir():
        return [(Path(root).name, check_benchmark(root, **options))]
    found = benchmark_folders(root)
    return [(found.name(folder), check_benchmark(folder, **options)) for folder in found.folders]


def check_benchmark(root: Path, target_k: int | None = None, prompts_dir: Path | None = None,
                    retrievers: tuple[str, ...] = ("bm25",)) -> CheckReport:
    """Read every file of a benchmark folder, collecting problems instead of stopping.

    Every query goes through the validator registry (irforge/check/suite.py); ``target_k``
    relaxes the retrievability depth, ``prompts_dir`` adds a user prompt folder to the
    harvested demonstrations, ``retrievers`` are the first-stage retrievers tried.
    """
    from irforge.check.suite import Context

    bench = Benchmark(Path(root))
    report = CheckReport(root=bench.root)
    add = report.problems.append
    if not bench.root.is_dir():
        add(Problem(bench.root, "benchmark folder not found", hint="pass the folder to check"))
        return report

    docs = {doc.doc_id: doc for doc in bench.corpus(add)}
    queries = list(bench.queries(add))
    doc_ids, query_ids = set(docs), {query.query_id for query in queries}
    report.counts.update(docs=len(doc_ids), queries=len(query_ids))
    for path, ids, what in ((bench.corpus_path, doc_ids, "documents"),
                            (bench.queries_path, query_ids, "queries")):
        if path.is_file() and not ids:
            add(Problem(path, f"no {what} in this file (qrels cannot point anywhere)",
                        hint=f"write the {what} (or re-run the step that makes them)"))
    report.counts.update(multicon_task_rows=check_multicon(bench, doc_ids, query_ids, add),
                         negation_labels=check_negation_labels(bench, doc_ids, query_ids, add))
    report.counts += Counter()  # drop the zero counts of files this folder does not have

    splits = bench.splits()
    graded: dict[str, dict[str, dict[str, int]]] = {}
    if not splits:
        add(Problem(bench.root / "qrels", "no qrels split found",
                    hint="write qrels/test.tsv (query-id, corpus-id, score)"))
    for split in splits:
        path = bench.qrels_path(split)
        judged = 0
        for number, qrel in beir.read_qrels_numbered(path, add):
            judged += 1
            graded.setdefault(split, {}).setdefault(qrel.query_id, {})[qrel.doc_id] = \
                qrel.relevance
            if bench.corpus_path.is_file() and qrel.doc_id not in doc_ids:
                add(Problem(path, f"unknown document {qrel.doc_id!r} (not in corpus.jsonl)",
                            line=number, field="corpus-id",
                            hint="add the document or drop the qrel"))
            if bench.queries_path.is_file() and qrel.query_id not in query_ids:
                add(Problem(path, f"unknown query {qrel.query_id!r} (not in queries.jsonl)",
                            line=number, field="query-id",
                            hint="add the query or drop the qrel"))
        report.counts[f"qrels/{split}"] = judged
        if judged == 0:
            add(Problem(path, "no qrels in this split", hint="label some pairs or remove the file"))
        _untrusted(bench.root, split, path, add)

    context = Context(docs=docs, target_k=target_k, prompts_dir=prompts_dir,
                      retrievers=retrievers)
    report.audit = check_queries(bench, queries, docs, add, positives_by_query(graded),
                                 context)
    copies = sum(report.audit.by_validator[name] for name in ("duplicate", "copy", "title"))
    report.counts.update(duplicate_or_copied_queries=copies,
                         invalid_queries=len(report.audit.invalid))

    for path, reader in ((bench.judgments_path, beir.read_judgments),
                         (bench.failures_path, beir.read_failures)):
        if path.exists():
            report.counts[path.stem] = sum(1 for _ in reader(path, add))
    if bench.judgments_path.exists():
        _duplicate_rows(bench.judgments_path, add)
    try:
        bench.manifest()
    except FormatError as exc:
        add(exc.problem)
    if not (bench.queries_path.exists() or splits):
        _unbuilt(bench, report)
    return report


def _untrusted(root: Path, split: str, path: Path, add) -> None:
    """Qrels labelled by a judge that failed its control items: the validators that read a
    query's relevant passages (grounding, target, specificity) judge against labels nobody
    can vouch for, so the split itself is a problem."""
    from irforge.core.trust import untrusted_judges

    try:
        judges = untrusted_judges(root, split)
    except FormatError as exc:  # a broken judge_controls.json is one more problem
        add(exc.problem)
        return
    for name, entry in judges.items():
        figures = "; ".join(entry.get("lines", [])[:2])
        add(Problem(path, f"labelled by judge {name}, which failed its control items "
                          f"({figures or 'judge_controls.json'}): these labels are untrusted",
                    field="judge", hint="relabel with a stronger model (irforge label --model "
                    "...) or by people (irforge annotate push), then check again"))


def _unbuilt(bench: Benchmark, report: CheckReport) -> None:
    """A folder without queries or qrels: instead of "file not found", a recipe run's root
    checks each method's folder, a recipe not run yet or an empty folder says what to run."""
    root = bench.root
    missing = {bench.queries_path, root / "qrels"}
    if not bench.corpus_path.exists():
        missing.add(bench.corpus_path)
    report.problems[:] = [problem for problem in report.problems if problem.path not in missing]
    methods = sorted(path for path in root.iterdir()
                     if path.is_dir() and (path / "queries.jsonl").is_file())
    if methods:  # irforge run's layout: corpus here, one benchmark folder per method
        for folder in methods:
            inner = check_benchmark(folder)
            report.problems.extend(inner.problems)
            report.counts.update({f"{folder.name}/{key}": value
                                  for key, value in inner.counts.items()})
        return
    if (root / "recipe.yaml").is_file():
        report.problems.append(Problem(
            root, "nothing built yet: this folder has a recipe.yaml but no queries.jsonl or "
            "qrels/", hint=f"run `irforge run {root}` (it reads recipe.yaml and resumes), then "
            "check again"))
    else:
        report.problems.append(Problem(
            root, "no benchmark here: no queries.jsonl or qrels/",
            hint=f"build one with `irforge run {root} --recipe FILE` (`irforge recipe init "
            "FILE` writes a recipe) or an `irforge build ...` verb, then check again"))


def _duplicate_rows(path: Path, add) -> None:
    """Report rows identical to an earlier row (e.g. two runs appended the same judgments)."""
    first: dict[str, int] = {}
    for number, row in iter_jsonl(path, lambda problem: None):
        key = json.dumps(row, sort_keys=True, ensure_ascii=False)
        if key in first:
            add(Problem(path, f"duplicate of line {first[key]} (the same judgment twice; were "
                        "two runs writing this folder at once?)", line=number,
                        hint="remove the repeated lines"))
        else:
            first[key] = number


def problem_row(problem: Problem) -> dict[str, object]:
    """A problem as the JSON object ``irforge check --json`` prints."""
    detail = problem.message
    if problem.validator and "] " in detail:
        detail = detail.split("] ", 1)[1]  # drop the "query 'id': [validator]" prefix
    return {"file": str(problem.path), "line": problem.line, "field": problem.field,
            "query_id": problem.query_id, "validator": problem.validator or "format",
            "detail": detail, "fix": problem.hint}
