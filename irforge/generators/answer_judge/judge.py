"""``irforge check --judge-model``: the answer judge over a folder's queries, with controls.

Every query with a relevant passage in the folder's qrels (its highest grade, as the lexical
validators read it) is one real item. Control items (``generators/controls.py``: positive,
other-document, near-miss) are made from the queries the lexical validators passed that name
a real source passage, mixed in unseen (the judge-control hook), and scored per kind
(``validators/control_stats.py``). Only a trusted judge's "no" becomes a problem
(``judge.answers``); an untrusted or untested judge flags nothing. The figures go to
``judge_controls.json`` (entry ``check.answers``, covering no qrels split), the control
answers and every verdict to ``check/`` (``core/layouts/check.py``).

Blind spot: a positive control is a query with its own source passage, checked by nobody
but the lexical validators; a judge that rightly says "no" to an invalid one loses accuracy
on it, so the controls err towards calling a judge untrusted.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.check.queries import positives_by_query
from irforge.core.bench import Benchmark
from irforge.core.errors import Problem
from irforge.core.generation import generation
from irforge.core.layouts.check import LAYOUT
from irforge.core.locks import FolderLock
from irforge.core.records import Doc, Query
from irforge.generators.answer_judge.steps import (
    STEP,
    AnswerVerdict,
    JudgeItem,
    answer_step,
    decision,
    limited,
)
from irforge.generators.control_hook import (
    ByStep,
    Checked,
    JudgeSpec,
    judge_with_controls,
    report_judge,
)
from irforge.generators.controls import make_controls, sources_from_queries
from irforge.prompts.context import doc_context
from irforge.steps.records import Records
from irforge.steps.runner import BuildRunner
from irforge.validators.control_stats import TRUSTED

JUDGE = "check.answers"
VALIDATOR = "judge.answers"
#: the judge decides no qrels: its verdict only decides which queries check flags
SPEC = JudgeSpec(JUDGE, STEP, (), LAYOUT.relative("controls"))
CONTROL_LIMIT = 50  # queries controls are made from (each gives up to three controls)


@dataclass
class JudgeOutcome:
    """What the judge did to one folder: its ``judge_controls.json`` entry, its verdicts by
    query id, the problems a trusted judge raises, and how many items got no verdict."""

    entry: dict[str, Any]
    verdicts: dict[str, AnswerVerdict] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    judged: int = 0
    controls: int = 0
    unanswered: int = 0

    @property
    def status(self) -> str:
        return str(self.entry.get("status", "untested"))


def real_items(queries: Sequence[Query], docs: Mapping[str, Doc],
               positives: Mapping[str, Sequence[str]]) -> list[JudgeItem]:
    """One item per query with a relevant passage in the corpus: the query and up to
    ``MAX_PASSAGES`` of its relevant passages."""
    items = []
    for query in queries:
        ids = limited([d for d in positives.get(query.query_id, ()) if d in docs])
        if ids:
            items.append(JudgeItem(query.query_id, query.query_id, query.text,
                                   tuple((doc_context(docs[d]), docs[d].text) for d in ids),
                                   ids))
    return items


def control_items(queries: Sequence[Query], docs: Mapping[str, Doc], skip: Collection[str],
                  seed: int = 0, limit: int = CONTROL_LIMIT) -> list[Checked]:
    """Controls from the queries not in ``skip`` (those the lexical validators flagged)."""
    sources = sources_from_queries([q for q in queries if q.query_id not in skip], docs)
    if not sources:
        return []
    out = []
    for control in make_controls(sources, list(docs.values()), seed=seed, limit=limit):
        doc = docs[control.doc_id]
        item = JudgeItem(control.control_id, control.query_id, control.query,
                         ((doc_context(doc), control.passage),), (control.doc_id,))
        out.append(Checked(item, control.kind, control.expected, control.to_json()))
    return out


def _read(_: str, __: int, value: Any) -> tuple[int | None, float | None]:
    decided = decision(value)
    return decided, None if decided is None else float(decided)


def judge_benchmark(engine: Any, root: Path, flagged: Collection[str] = (), seed: int = 0,
                    limit: int = CONTROL_LIMIT) -> JudgeOutcome:
    """Judge every query of the folder at ``root`` with controls mixed in (``flagged``: the
    queries the lexical validators flagged, kept out of the controls); write the judge's
    files and return what it found."""
    bench = Benchmark(Path(root))
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    queries = list(bench.queries())
    graded = {split: bench.qrels_dict(split) for split in bench.splits()}
    real = real_items(queries, docs, positives_by_query(graded))
    controls = control_items(queries, docs, set(flagged), seed, limit)
    step, runner = answer_step(), BuildRunner(engine, bench, JUDGE)

    def judge(mixed: list[JudgeItem]) -> ByStep:
        outcome = runner.ask(step, mixed)
        return {STEP: {pos: outcome.accepted.get(item.item_id)
                       for pos, item in enumerate(mixed)}}

    by_step, report = judge_with_controls(judge, real, controls, _read, engine, seed)
    entry = report.entry(SPEC, () if controls else [
        "no query the lexical validators passed names a real source passage (seed_doc_id, "
        "source_doc, gold_doc_id or a non-generated positive_doc_id) to make controls from"])
    answers = by_step.get(STEP, {})
    verdicts = {real[i].query_id: v for i, v in answers.items() if v is not None}
    outcome = JudgeOutcome(entry, verdicts, judged=len(real), controls=len(controls),
                           unanswered=len(real) - len(verdicts))
    if outcome.status == TRUSTED:
        outcome.problems = _problems(bench, queries, real, verdicts, entry.get("model", ""))
    with FolderLock(bench.root), generation(bench.root):  # the three files land together
        runner.write(Records(files={LAYOUT.relative("verdicts"): _rows(real, verdicts,
                                                                        outcome)}))
        report_judge(runner, SPEC, entry, report.rows)
    return outcome


def _problems(bench: Benchmark, queries: Sequence[Query], real: Sequence[JudgeItem],
              verdicts: Mapping[str, AnswerVerdict], model: str) -> list[Problem]:
    """A ``judge.answers`` problem per query the trusted judge says is not answered."""
    lines = {query.query_id: n for n, query in enumerate(queries, start=1)}
    out = []
    for item in real:
        verdict = verdicts.get(item.query_id)
        if verdict is None or verdict.answers == "yes":
            continue
        out.append(Problem(
            bench.queries_path, f"query {item.query_id!r}: [{VALIDATOR}] the judge ({model}) "
            f"says its relevant passage(s) {', '.join(item.doc_ids)} do not answer it as a "
            f"searcher would ask it: {verdict.reason}", line=lines.get(item.query_id),
            field="text", hint="rewrite the query so it stands on its own and its passage "
            "answers it, label the passage that does, or drop it", validator=VALIDATOR,
            query_id=item.query_id))
    return out


def _rows(real: Sequence[JudgeItem], verdicts: Mapping[str, AnswerVerdict],
          outcome: JudgeOutcome) -> list[dict[str, Any]]:
    flagged = {problem.query_id for problem in outcome.problems}
    return [{"query_id": item.query_id, "doc_ids": list(item.doc_ids),
             "answers": verdicts[item.query_id].answers if item.query_id in verdicts else None,
             "reason": verdicts[item.query_id].reason if item.query_id in verdicts else None,
             "judge_status": outcome.status, "flagged": item.query_id in flagged}
            for item in real]
