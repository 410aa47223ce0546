"""Every Label Studio job besides relevance, end to end on a real server and a real browser:
a folder freshly built by its generator (scripted OpenAI-compatible server), pushed with
``--annotators 2``; two people who joined by the invite link each answer every task in
Chromium's label stream; the page shows the guidelines, labelled choices and nothing
preselected; ``pull`` brings back both people's labels and ``audit agreement`` reports
Krippendorff's alpha equal to the ``krippendorff`` package on the same labels.

The ``GOLD`` jobs also push their gold items (the other jobs' gold round trip is offline,
tests/annotation/test_gold_jobs.py, which keeps this file's run time down): they look like
any task on the page, the first person answers them right and the second always picks the
first choice, and ``audit agreement`` prints each person's accuracy on them."""

from __future__ import annotations

import json
import re
import secrets
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from irforge.annotation.connection import LabelStudioSettings, connect
from irforge.annotation.gold import gold_path
from irforge.annotation.guidelines import guidelines_for
from irforge.annotation.items import bench_items
from irforge.annotation.labeling import LabelingJob, get_job
from irforge.annotation.projects import iter_tasks
from irforge.annotation.pull import pull
from irforge.annotation.push import push
from irforge.cli.app import build_app
from irforge.core.jsonl import iter_jsonl

from .browser import Person, chromium, invite_link, label_stream, sign_up
from .built import build_for

JOBS = ("sts", "logical_structure", "evidence_distribution", "hard_negative",
        "instruction_compliance")
# the fields that tell one task from another (a gold hard negative repeats a sentence or a
# condition of another task, never both)
MARKERS = {"hard_negative": ("condition", "sentence")}
GOLD = ("hard_negative",)  # jobs pushed with their gold items mixed in


@pytest.fixture(scope="module")
def people(label_studio) -> Iterator[list[tuple[Person, Any]]]:
    """Two annotators who joined the organization by its invite link, logged in."""
    with chromium() as browser:
        link = invite_link(label_studio.url, label_studio.token)
        persons = [Person(f"annotator{n}@example.com", secrets.token_hex(10)) for n in (1, 2)]
        joined = [(person, sign_up(browser, link, person)) for person in persons]
        client = connect(LabelStudioSettings(label_studio.url, label_studio.token)).client
        members = {user.email for user in client.users.list()}  # the organization's people
        assert {person.email for person in persons} <= members
        yield joined


def picks(job: LabelingJob, index: int, person: int) -> list[str]:
    """What a person clicks on the ``index``-th task: one choice per control, walking the
    scale; the second person differs on the first task only."""
    out = []
    for control in job.config.controls.values():
        step = index + 1 if person == 1 and index == 0 else index
        out.append(control.shown[step % len(control.shown)])
    return out


def gold_picks(job: LabelingJob, expected: int, person: int) -> list[str]:
    """What a person clicks on a gold task: the first person the right answer (the top or
    the bottom of the scale), the second always the first choice of each control."""
    out = []
    for control in job.config.controls.values():
        if person == 0 and control.name == job.label_control:
            labels = [job.label_of(value) for value in control.values]
            wanted = max(labels) if expected else min(labels)
            out.append(control.shown[labels.index(wanted)])
        else:
            out.append(control.shown[0])
    return out


def label_for(job: LabelingJob, clicked: Sequence[str]) -> float:
    control = job.config.controls[job.label_control]
    [shown] = [text for text in clicked if text in control.shown]
    return job.label_of(control.values[control.shown.index(shown)])


def _alphas(matrix: Sequence[Sequence[float]]) -> dict[str, float]:
    import krippendorff

    return {level: float(krippendorff.alpha(reliability_data=matrix,
                                            level_of_measurement=level))
            for level in ("nominal", "interval")}


@pytest.mark.parametrize("name", JOBS)
def test_two_people_label_every_task_of_a_built_folder_in_chromium(
        name: str, tmp_path: Path, label_studio, people) -> None:
    bench = build_for(name, tmp_path / "built")
    job = get_job(name)
    keys = sorted(item.key for item in bench_items(bench, job))
    assert 2 <= len(keys) <= 4
    connection = connect(LabelStudioSettings(label_studio.url, label_studio.token))
    pushed = push(bench, job, connection, n=4, annotators=2, gold=name in GOLD,
                  gold_share=0.5)  # as many gold tasks as real ones: never more
    gold = {row["item_key"]: int(row["expected"]) for _, row in iter_jsonl(gold_path(bench))} \
        if name in GOLD else {}
    assert pushed.imported == len(keys) + len(gold) and pushed.gold == len(gold)
    assert len(gold) == len(keys) if name in GOLD else not gold
    project = connection.client.projects.get(id=pushed.project_id)
    assert project.maximum_annotations == 2 and project.show_instruction

    controls = list(job.config.controls.values())
    shown = [text for control in controls for text in control.shown]
    assert all(re.search(r"[a-z]{3}", text) for text in shown)  # a meaning, not a bare value
    seen: dict[str, list] = {}
    for number, (person, context) in enumerate(people):
        seen[person.email] = label_stream(
            context, label_studio.url, pushed.project_id, MARKERS.get(name, "query"), shown,
            lambda task, n=number: gold_picks(job, gold[task["data"]["item_key"]], n)
            if task["data"]["item_key"] in gold else
            picks(job, keys.index(task["data"]["item_key"]), n),
            shot=tmp_path / f"job_{name}.png" if number == 0 else None)
    assert (tmp_path / f"job_{name}.png").stat().st_size > 10_000

    rules = guidelines_for(name)
    assert rules
    for views in seen.values():
        assert sorted(view.data["item_key"] for view in views) == sorted([*keys, *gold])
        for view in views:  # gold tasks look like any other: same fields, nothing preselected
            assert set(view.data) == set(views[0].data)  # a gold and a real task: same fields
            assert view.data["query_id"] in {q.query_id for q in bench.queries()}
            assert not any(word in view.text.lower() for word in ("gold", "control", "expected"))
            assert view.checked == 0  # nothing preselected: no prediction was imported
            assert view.labelled == view.radios == len(shown)  # every choice says its meaning
            assert "Guidelines" in view.text
            assert all(f"{n}. {rule}" in view.text for n, rule in enumerate(rules, 1))
            assert all(text in view.text for text in shown)
        assert all(rule in views[0].instructions for rule in rules)  # the project's dialog
        views[:] = [view for view in views if view.data["item_key"] not in gold]

    pulled = pull(bench, job, connection, pushed.project_id)
    assert (pulled.tasks, pulled.new_labels, pulled.invalid) == (len(keys), 2 * len(keys), 0)
    human = [j for j in bench.judgments() if j.source == "human" and j.task == job.task]
    got = {(j.annotator, j.query_id, j.doc_id): j for j in human}
    assert len(got) == 2 * len(keys)
    matrix = []
    for email, views in seen.items():
        row = {view.data["item_key"]: view for view in views}
        labels = []
        for key in keys:
            view = row[key]
            judgment = got[(email, view.data["query_id"], view.data["doc_id"])]
            assert judgment.label == label_for(job, view.answered)
            extra = [c for c in controls if c.name != job.label_control]
            for control in extra:  # logical_structure's accept/reject verdict
                [clicked] = [t for t in view.answered if t in control.shown]
                assert judgment.metadata["choices"][control.name] == [
                    control.values[control.shown.index(clicked)]]
            labels.append(judgment.label)
        matrix.append(labels)
    assert matrix[0] != matrix[1]  # they disagree on the first task
    if job.writes_qrels:  # people's qrels name the folder's own queries and passages
        qrels = bench.qrels_dict("human")
        assert set(qrels) == {view.data["query_id"] for view in views}
        assert set(qrels) <= {query.query_id for query in bench.queries()}

    done = CliRunner().invoke(build_app(), ["audit", "agreement", str(bench.root), "--task",
                                            job.task, "--resamples", "20"])
    assert done.exit_code == 0, done.output
    assert "people among themselves: annotators=2" in done.output
    report: Mapping[str, Any] = json.loads(
        (bench.root / "audits" / f"agreement_{job.task}.json").read_text())
    among = report["human_reliability"]
    assert among["annotators"] == 2 and among["items_with_two_or_more"] == len(keys)
    for level, expected in _alphas(matrix).items():
        assert among[f"alpha_{level}"] == pytest.approx(expected, abs=1e-9), level
    if gold:  # each person's accuracy on the gold items, with the count, never in judgments
        assert "Annotators on gold questions" in done.output
        scored = {g["annotator"]: (g["gold"], g["correct"]) for g in report["gold_accuracy"]}
        assert scored == {"annotator1@example.com": (len(gold), len(gold)),  # all right
                          "annotator2@example.com": (len(gold), sum(gold.values()))}  # "yes"
        gold_tasks = {t["id"] for t in iter_tasks(connection, pushed.project_id)
                      if t["data"]["item_key"] in gold}
        assert not {j.metadata["ls_task_id"] for j in human} & gold_tasks
    if name == "hard_negative":  # people's labels name the hard-negative passages the build wrote
        corpus = {doc.doc_id: doc for doc in bench.corpus()}
        assert all(corpus[j.doc_id].metadata["kind"] == "hard_negative" for j in human)
