"""Gold items of every job besides relevance, on a folder written by the job's real build
command: what each builder makes is right by construction, and the offline round trip
(export-tasks, two people, import-tasks) scores each person on them, keeps them out of
judgments and qrels, and `audit agreement` prints each person's accuracy with the count."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.gold import gold_items, gold_path
from irforge.annotation.gold_builders import GOLD_BUILDERS, GoldCase
from irforge.annotation.items import bench_items
from irforge.annotation.labeling import LabelingJob, get_job, list_jobs
from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.jsonl import iter_jsonl
from irforge.generators.logical.structure import TripleGroups, check_structure
from irforge.generators.logical.types import get_type

from .built import build_for
from .helpers import full_result

JOBS = ("sts", "hard_negative", "instruction_compliance", "logical_structure",
        "evidence_distribution")


def _corpus(bench: Benchmark) -> dict:
    return {doc.doc_id: doc for doc in bench.corpus()}


def _queries(bench: Benchmark) -> dict:
    return {query.query_id: query for query in bench.queries()}


def test_every_job_has_a_gold_builder() -> None:
    assert set(GOLD_BUILDERS) == set(list_jobs())


def _sts(bench: Benchmark, case: GoldCase, shown: dict) -> None:
    if case.expected:  # sentence A with itself
        assert shown["passage"] == shown["query"] == case.source.data["query"]
    else:  # sentence A with a passage of another document
        assert case.doc_id != case.source.doc_id
        assert _corpus(bench)[case.doc_id].text in shown["passage"]


def _hard_negative(bench: Benchmark, case: GoldCase, shown: dict) -> None:
    corpus = _corpus(bench)
    positive = corpus[case.doc_id]
    assert positive.metadata["kind"] == "positive"
    assert shown["condition"] == case.source.data["condition"]
    replaced = corpus[case.source.doc_id].text  # the hard-negative passage of the real item
    # the real item's query is the smallest one asking for its condition: the last one listed
    own = _queries(bench)[case.source.query_id].metadata["conditions"][-1]
    assert shown["sentence"] in positive.text
    if case.expected:  # the positive's own condition sentence, which the hard negative lost
        assert shown["sentence"] == own and own not in replaced
    else:  # the source sentence of another condition of the same document
        others = {c for q in _queries(bench).values() for c in q.metadata["conditions"]}
        assert shown["sentence"] != own and shown["sentence"] in others


def _instruction_compliance(bench: Benchmark, case: GoldCase, shown: dict) -> None:
    query = case.source.query_id
    changed, reversed_ = bench.qrels_dict("changed")[query], bench.qrels_dict("reversed")[query]
    # a positive of the core query that the instruction excludes (InfoSearch's qrels say so)
    assert changed[case.doc_id] == 0 and reversed_[case.doc_id] == 1
    assert case.doc_id != case.source.doc_id
    if case.expected:
        assert shown["instruction"] != case.source.data["instruction"]
    else:
        assert shown["instruction"] == case.source.data["instruction"]


def _logical_structure(bench: Benchmark, case: GoldCase, shown: dict) -> None:
    meta = _queries(bench)[case.source.query_id].metadata
    groups: dict[str, list] = {}
    for line in shown["triples"].splitlines():
        group, triple = line.split(": ", 1)
        subject, relation, obj = triple.split(" | ")
        groups.setdefault(group, []).append(
            {"subject": subject, "relation": relation, "object": obj})
    verdict = check_structure(TripleGroups.model_validate(groups), get_type(meta["type"]),
                              meta.get("answer_variable"))
    assert verdict.ok == bool(case.expected)  # the generator's own check agrees


def _evidence_distribution(bench: Benchmark, case: GoldCase, shown: dict) -> None:
    own = _queries(bench)[case.source.query_id].metadata["source_doc_ids"]
    assert shown["evidence"] == case.source.data["evidence"]
    if case.expected:
        assert shown["passages"] == case.source.data["passages"]
    else:  # one more passage, from a document the query was not built from
        assert case.doc_id not in own
        assert shown["passages"].startswith(case.source.data["passages"])
        assert f"[{len(own) + 1}] " in shown["passages"]


CHECKS: dict[str, Callable[[Benchmark, GoldCase, dict], None]] = {
    "sts": _sts, "hard_negative": _hard_negative,
    "instruction_compliance": _instruction_compliance,
    "logical_structure": _logical_structure, "evidence_distribution": _evidence_distribution}


@pytest.mark.parametrize("name", JOBS)
def test_gold_items_are_right_by_construction(name: str, tmp_path: Path) -> None:
    bench = build_for(name, tmp_path)
    job = get_job(name)
    items = bench_items(bench, job)
    gold = gold_items(bench, job, items)
    assert len(gold) == 2 * len(items)  # a yes and a no per real item of this small folder
    assert sum(case.expected for _, case in gold) == len(items)
    real_keys = {item.key for item in items}
    for item, case in gold:
        # the real query id it was made from, a key of the same shape as a real one
        assert item.key not in real_keys and item.query_id == case.source.query_id
        assert item.key.split(":")[0] == items[0].key.split(":")[0]
        assert len(item.key) == len(items[0].key)
        assert set(item.data) == set(items[0].data)  # the fields of any task, nothing more
        assert item.data["strata"] == case.source.data["strata"]  # its source item's strata
        CHECKS[name](bench, case, {k: item.data[k] for k in job.config.variables})


def _person(job: LabelingJob, gold: dict[str, int], good: bool):
    """Answers: on gold tasks the right answer (``good``) or always the top label; on real
    tasks the LLM's claim for the first person, the top label for the second."""
    top, low = max(job.label_values.values()), min(job.label_values.values())

    def answer(task: dict) -> float:
        key = task["data"]["item_key"]
        if key in gold and good:
            return top if gold[key] else low
        return top if not good else low
    return answer


def _export(tasks: list[dict], job: LabelingJob, people) -> list[dict]:
    return [{"id": number, "data": task["data"], "predictions": [], "annotations": [
        {"id": number * 10 + k, "completed_by": k + 1, "updated_at": "2026-01-01T00:00:00Z",
         "was_cancelled": False, "result": full_result(job, person(task))}
        for k, person in enumerate(people)]} for number, task in enumerate(tasks, start=1)]


@pytest.mark.parametrize("name", JOBS)
def test_gold_round_trip_through_files_scores_each_person(name: str, tmp_path: Path) -> None:
    bench = build_for(name, tmp_path / "built")
    job = get_job(name)
    real = len(bench_items(bench, job))
    files = export_tasks(bench, job, tmp_path / "round1.json", n=4, seed=3, gold_share=0.5)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    gold = {row["item_key"]: row["expected"] for _, row in iter_jsonl(gold_path(bench))}
    # a 50% share: as many gold tasks as real ones, never more; "yes" and "no" alternate
    assert len(gold) == real and len(tasks) == 2 * real
    # "yes" and "no" alternate, except that a case showing exactly what a real task of the
    # round shows (logical_structure's "yes": the query with its own triples) stays out
    shown = [tuple(str(t["data"][name]) for name in sorted(job.config.variables))
             for t in tasks]
    assert len(set(shown)) == len(shown)
    assert sum(gold.values()) in ((real + 1) // 2, 0)
    keys = [task["data"]["item_key"] for task in tasks]
    assert set(gold) <= set(keys)
    assert [k in gold for k in keys] != sorted(k in gold for k in keys)  # shuffled in
    assert len({tuple(sorted(task["data"])) for task in tasks}) == 1  # nothing marks gold
    assert not any(word in json.dumps(task["data"]) for task in tasks
                   for word in ("gold", "expected", "control", "made_from"))
    assert not any("predictions" in task for task in tasks)  # nothing preselected

    export = tmp_path / "export.json"
    export.write_text(json.dumps(_export(tasks, job, [_person(job, gold, True),
                                                       _person(job, gold, False)])))
    result = import_tasks(bench, job, export)
    assert (result.tasks, result.new_labels, result.invalid) == (real, 2 * real, 0)
    gold_tasks = {number for number, task in enumerate(tasks, start=1)
                  if task["data"]["item_key"] in gold}
    gold_pairs = {(task["data"]["query_id"], task["data"]["doc_id"]) for task in tasks
                  if task["data"]["item_key"] in gold}
    real_pairs = {(task["data"]["query_id"], task["data"]["doc_id"]) for task in tasks
                  if task["data"]["item_key"] not in gold}
    human = [j for j in bench.judgments() if j.source == "human"]
    assert len(human) == 2 * real and not {j.metadata["ls_task_id"] for j in human} & gold_tasks
    folder_queries, corpus = set(_queries(bench)), set(_corpus(bench))
    assert all(j.query_id in folder_queries and j.doc_id in corpus for j in human)
    if job.writes_qrels:
        human_pairs = {(q, d) for q, docs in bench.qrels_dict("human").items() for d in docs}
        assert not human_pairs & (gold_pairs - real_pairs)

    done = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root), "--task",
                                            job.task, "--resamples", "20"])
    assert done.exit_code == 0, done.output
    assert "Annotators on gold questions" in done.output
    saved = json.loads((bench.root / "audits" / f"agreement_{job.task}.json").read_text())
    assert [(g["annotator"], g["gold"], g["correct"]) for g in saved["gold_accuracy"]] == [
        ("1", real, real), ("2", real, sum(gold.values()))]


def test_no_gold_and_review_rounds_leave_gold_items_out(tmp_path: Path) -> None:
    bench = build_for("hard_negative", tmp_path / "built")
    real = len(bench_items(bench, get_job("hard_negative")))
    runner, out = CliRunner(), tmp_path / "round.json"
    base = ["annotate", "export-tasks", str(bench.root), "--job", "hard_negative", "--out",
            str(out), "--gold-share", "0.5"]
    done = runner.invoke(build_app(), base)
    assert done.exit_code == 0, done.output
    assert f"{2 * real} tasks ({real} real + {real} gold)" in " ".join(done.output.split())
    assert len(json.loads(out.read_text())) == 2 * real
    done = runner.invoke(build_app(), [*base, "--no-gold"])
    assert done.exit_code == 0, done.output
    assert len(json.loads(out.read_text())) == real
    # a review round: every task shows the LLM's claim; gold items have none, so they stay out
    done = runner.invoke(build_app(), [*base, "--show-predictions"])
    assert done.exit_code == 0, done.output
    tasks = json.loads(out.read_text())
    assert len(tasks) == real and all(task["predictions"] for task in tasks)


def test_a_user_config_hiding_the_changed_field_gets_no_gold(tmp_path: Path) -> None:
    bench = build_for("hard_negative", tmp_path / "built")
    mine = tmp_path / "mine.xml"  # shows the condition but not the sentence gold cases change
    mine.write_text('<View><Text name="condition" value="$condition"/><Choices '
                    'name="still_satisfies" toName="condition" choice="single-radio">'
                    '<Choice value="yes"/><Choice value="no"/></Choices></View>')
    job = get_job("hard_negative", config_file=mine)
    assert bench_items(bench, job) and not gold_items(bench, job, bench_items(bench, job))
    assert gold_items(bench, get_job("hard_negative"), bench_items(bench, job))
