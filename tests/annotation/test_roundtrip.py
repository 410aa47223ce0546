"""Push to and pull from a real Label Studio: tasks with predictions, people's answers written
through the API, adjudicated human qrels, agreement report, idempotence and failure modes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.annotation.connection import LabelStudioSettings, connect
from irforge.annotation.errors import AuthenticationFailed, ProjectNotFound, ServerUnreachable
from irforge.annotation.gold import gold_keys
from irforge.annotation.labeling import get_job
from irforge.annotation.projects import iter_tasks, read_registry
from irforge.annotation.pull import pull
from irforge.annotation.push import push
from irforge.annotation.status import project_progress
from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.core.errors import FormatError
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Judgment, Query

from .helpers import MORE_CONTROLS, PROMPTS, choice, relevance_bench


@pytest.fixture(scope="module")
def connection(label_studio):
    return connect(LabelStudioSettings(label_studio.url, label_studio.token))


@pytest.fixture(scope="module")
def people(connection) -> dict[str, int]:
    """Two annotator accounts besides the admin."""
    client = connection.client
    known = {user.email: user.id for user in client.users.list()}
    for name in ("alice", "bob"):
        email = f"{name}@example.com"
        if email not in known:
            known[email] = client.users.create(email=email, username=name).id
    return {"alice": known["alice@example.com"], "bob": known["bob@example.com"]}


def _annotate(connection, task_id: int, user: int, value: str, control: str = "relevance",
              to_name: str = "passage") -> None:
    connection.client.annotations.create(id=task_id, result=[choice(control, to_name, value)],
                                         completed_by=user)


def test_push_pull_round_trip_with_adjudication_and_agreement(tmp_path: Path, connection,
                                                              people) -> None:
    bench = relevance_bench(tmp_path)
    job = get_job("relevance")
    first = push(bench, job, connection, n=8, strategy="stratified", by="intent", seed=3,
                 show_predictions=True)  # a review round: the LLM labels travel along
    assert first.created_project and first.sampled == 8 and first.imported == 8
    project = first.project_id
    assert read_registry(bench)["relevance"]["project_id"] == project
    assert "api_key" not in json.dumps(bench.manifest()).lower()

    tasks = list(iter_tasks(connection, project))
    assert len(tasks) == 8
    intents = [task["data"]["strata"]["intent"] for task in tasks]
    assert intents.count("QA") == intents.count("FC") == 4
    versions = {p["model_version"] for p in tasks[0]["predictions"]}
    assert versions == {f"smollm2/{prompt}" for prompt in PROMPTS} | {"ensemble"}
    llm = {(j.query_id, j.prompt_id): j.label for j in bench.judgments()}
    for task in tasks:
        for prediction in task["predictions"]:
            prompt = prediction["model_version"].split("/")[-1]
            if prompt in PROMPTS:
                shown = prediction["result"][0]["value"]["choices"][0]
                assert float(shown) == llm[(task["data"]["query_id"], prompt)]

    again = push(bench, job, connection, n=8, strategy="stratified", by="intent", seed=3)
    assert (again.project_id, again.imported, again.already_there) == (project, 0, 8)
    assert len(list(iter_tasks(connection, project))) == 8

    # people answer: alice says 0 on the first task, else 2; bob agrees except on tasks 1, 2
    human = {}
    for index, task in enumerate(sorted(tasks, key=lambda t: t["id"])):
        alice = "0" if index == 0 else "2"
        bob = "3" if index in (1, 2) else alice
        _annotate(connection, task["id"], people["alice"], alice)
        _annotate(connection, task["id"], people["bob"], bob)
        human[task["data"]["query_id"]] = (alice, bob)
    bad_task = sorted(tasks, key=lambda t: t["id"])[-1]
    _annotate(connection, bad_task["id"], people["bob"], "7")  # the server accepts it

    before = bench.judgments_path.read_text()
    result = pull(bench, job, connection, project, tie_break="lower")
    assert bench.judgments_path.read_text().startswith(before)
    assert result.tasks == 8 and result.new_labels == 16 and result.invalid == 1
    failures = [f for f in bench.failures() if f.step == "annotate.pull"]
    assert len(failures) == 1 and "'7'" in failures[0].reason
    people_labels = [j for j in bench.judgments() if j.source == "human"]
    assert {j.annotator for j in people_labels} == {"alice@example.com", "bob@example.com"}
    qrels = bench.qrels_dict("human")
    for query_id, (alice, bob) in human.items():
        expected = min(int(alice), int(bob))  # two people, tie-break "lower"
        assert qrels[query_id][f"d{query_id[1:]}"] == expected
    adjudicated = [json.loads(line) for line in
                   (bench.root / "annotation" / "relevance_adjudicated.jsonl").open()]
    assert sum(row["tie"] for row in adjudicated) == 2  # tasks 1 and 2: alice 2, bob 3

    repeat = pull(bench, job, connection, project, tie_break="lower")
    assert repeat.new_labels == 0 and repeat.unchanged == 16

    paged = pull(bench, job, connection, project, tie_break="lower", method="tasks",
                 page_size=3)
    assert paged.tasks == 8 and paged.new_labels == 0

    progress = {(row.stratum, row.value): row for row in project_progress(connection, project)}
    assert progress[("all", "all")].tasks == 8
    assert progress[("all", "all")].annotated == 8
    assert progress[("intent", "QA")].tasks == 4

    report = CliRunner().invoke(build_app(), ["audit", "agreement", str(tmp_path),
                                              "--resamples", "50", "--strata", "intent"])
    assert report.exit_code == 0, report.output
    rows = json.loads((tmp_path / "audits" / "agreement_relevance.json").read_text())["rows"]
    assert rows and {row["rater"] for row in rows} == {*PROMPTS, "ensemble"}
    assert all(row["n"] in (8, 4) for row in rows)


def test_cli_push_status_pull(tmp_path: Path, label_studio, connection, people,
                              monkeypatch) -> None:
    """Push, status and pull count the same tasks and name the gold ones; gold stays a
    minority (default share) and looks like any task in the server."""
    monkeypatch.setenv("LABEL_STUDIO_URL", label_studio.url)
    monkeypatch.setenv("LABEL_STUDIO_API_KEY", label_studio.token)
    bench = relevance_bench(tmp_path, queries=12, seed=1)
    write_jsonl(bench.root / "relevance" / "controls.jsonl", MORE_CONTROLS)
    runner = CliRunner()
    pushed = runner.invoke(build_app(), ["annotate", "push", str(tmp_path), "--n", "10",
                                         "--strategy", "disagreement", "--title", "cli test"])
    assert pushed.exit_code == 0, pushed.output
    said = " ".join(pushed.output.split())
    assert "12 tasks (10 real + 2 gold;" in said and "imported 12" in said
    project = read_registry(Benchmark(tmp_path))["relevance"]["project_id"]
    tasks = list(iter_tasks(connection, project))
    gold = gold_keys(Benchmark(tmp_path))
    assert len(tasks) == 12 and sum(t["data"]["item_key"] in gold for t in tasks) == 2
    fields = {tuple(sorted(t["data"])) for t in tasks}
    assert len(fields) == 1  # a gold task and a real task have the same field set
    for task in iter_tasks(connection, project):
        _annotate(connection, task["id"], people["alice"], "1")
    status = runner.invoke(build_app(), ["annotate", "status", str(tmp_path)])
    assert status.exit_code == 0, status.output
    assert "12 tasks (10 real + 2 gold)" in status.output and "100%" in status.output
    pulled = runner.invoke(build_app(), ["annotate", "pull", str(tmp_path)])
    assert pulled.exit_code == 0, pulled.output
    said = " ".join(pulled.output.split())
    assert "12 tasks (10 real + 2 gold), 10 new human labels" in said
    assert set(Benchmark(tmp_path).qrels_dict("human")) and all(
        rel == 1 for docs in Benchmark(tmp_path).qrels_dict("human").values()
        for rel in docs.values())


def test_logical_structure_job_keeps_verdicts(tmp_path: Path, connection, people) -> None:
    bench = Benchmark(tmp_path)
    bench.write_queries([Query("q1", "Which films did Spielberg direct but not produce?",
                               {"type": "2in", "triples": [["Spielberg", "directed", "?f"],
                                                           ["Spielberg", "produced", "?f"]]})])
    bench.add_judgments([Judgment("q1", "q1", 3, "llm", prompt_id="logical.conformity",
                                  task="logical_structure", model="m")])
    job = get_job("logical_structure")
    pushed = push(bench, job, connection, n=5)
    [task] = list(iter_tasks(connection, pushed.project_id))
    assert "2in:" in task["data"]["type_definition"]
    assert "Spielberg | directed | ?f" in task["data"]["triples"]
    connection.client.annotations.create(id=task["id"], completed_by=people["alice"], result=[
        choice("conformity", "query", "4"), choice("verdict", "query", "reject")])
    result = pull(bench, job, connection, pushed.project_id)
    assert result.new_labels == 1 and result.qrels_path is None
    [human] = [j for j in bench.judgments() if j.source == "human"]
    assert human.label == 4.0 and human.metadata["choices"] == {"verdict": ["reject"]}


def test_user_config_with_named_choices(tmp_path: Path, connection, people) -> None:
    config = tmp_path / "mine.xml"
    config.write_text('<View><Text name="query" value="$query"/><Text name="passage" '
                      'value="$passage"/><Choices name="useful" toName="passage">'
                      '<Choice value="bad"/><Choice value="good"/></Choices></View>')
    bench = relevance_bench(tmp_path / "bench", queries=2)
    job = get_job("relevance", config_file=config)
    assert job.label_values == {"bad": 0.0, "good": 1.0}
    pushed = push(bench, job, connection, n=2)
    for task in iter_tasks(connection, pushed.project_id):
        _annotate(connection, task["id"], people["bob"], "good", control="useful")
    pull(bench, job, connection, pushed.project_id)
    assert {j.label for j in bench.judgments() if j.source == "human"} == {1.0}


def test_server_down_wrong_token_and_missing_project(tmp_path: Path, label_studio,
                                                     connection) -> None:
    bench = relevance_bench(tmp_path, queries=2)
    before = bench.judgments_path.read_bytes()
    with pytest.raises(ServerUnreachable, match=r"no Label Studio answers at http://127\.0\.0\.1:9"):
        connect(LabelStudioSettings("http://127.0.0.1:9", label_studio.token))
    with pytest.raises(AuthenticationFailed, match="rejected the token"):
        connect(LabelStudioSettings(label_studio.url, "0" * 40))
    with pytest.raises(ProjectNotFound, match="project 987654 does not exist"):
        pull(bench, get_job("relevance"), connection, 987654)
    with pytest.raises(ProjectNotFound, match="987654"):
        push(bench, get_job("relevance"), connection, n=2, project_id=987654)
    assert bench.judgments_path.read_bytes() == before
    assert not bench.failures_path.exists()
    result = CliRunner().invoke(build_app(), ["annotate", "status", str(tmp_path)])
    assert result.exit_code != 0 and "annotate push" in str(result.exception)


def test_malformed_export_loses_nothing(tmp_path: Path, connection, people,
                                        monkeypatch) -> None:
    import irforge.annotation.pull as pull_module

    bench = relevance_bench(tmp_path, queries=2)
    job = get_job("relevance")
    pushed = push(bench, job, connection, n=2)
    before = bench.judgments_path.read_bytes()
    broken = tmp_path / "broken.json"
    broken.write_text('[{"id": 1, "data": {"item_key": "k"}, "annotations": "oops"}]')
    monkeypatch.setattr(pull_module, "export_snapshot", lambda *args, **kwargs: broken)
    with pytest.raises(FormatError, match=r"broken.json: field 'annotations'"):
        pull(bench, job, connection, pushed.project_id)
    truncated = tmp_path / "truncated.json"
    truncated.write_text('[{"id": 1, "data": {')
    monkeypatch.setattr(pull_module, "export_snapshot", lambda *args, **kwargs: truncated)
    with pytest.raises(FormatError, match="not valid JSON"):
        pull(bench, job, connection, pushed.project_id)
    assert bench.judgments_path.read_bytes() == before
    assert not bench.qrels_path("human").exists()


def test_large_push_is_batched_and_repush_pages_through_existing_keys(tmp_path: Path,
                                                                       connection) -> None:
    import irforge.annotation.projects as projects_module

    bench = relevance_bench(tmp_path, queries=620, seed=2)
    job = get_job("relevance")
    first = push(bench, job, connection, n=620, batch_size=250)
    assert first.imported == 620
    again = push(bench, job, connection, n=620)  # existing keys span two pages of 500
    assert (again.imported, again.already_there) == (0, 620)
    small_pages = list(projects_module.iter_tasks(connection, first.project_id,
                                                  fields="task_only", page_size=100))
    assert len({task["data"]["item_key"] for task in small_pages}) == 620


def test_a_push_that_lost_its_registry_finds_its_project_instead_of_making_another(
        tmp_path: Path, connection) -> None:
    """A push killed after Label Studio made the project, before the folder recorded it: the
    re-run finds the project by the mark the push kept, and its tasks (no duplicates)."""
    bench = relevance_bench(tmp_path, queries=6)
    job = get_job("relevance")
    first = push(bench, job, connection, n=4, seed=1, gold=False)
    projects = len(list(connection.client.projects.list()))
    (tmp_path / "annotation" / "projects.json").unlink()  # what a rolled-back push leaves
    again = push(bench, job, connection, n=4, seed=1, gold=False)
    assert (again.project_id, again.created_project) == (first.project_id, False)
    assert (again.imported, again.already_there) == (0, 4)
    assert len(list(connection.client.projects.list())) == projects
    assert read_registry(bench)["relevance"]["project_id"] == first.project_id
    (tmp_path / "annotation" / "projects.json").unlink()  # a new title asks for a new project
    other = push(bench, job, connection, n=4, seed=1, gold=False, title="another round")
    assert other.created_project and other.project_id != first.project_id


def test_two_people_per_task_with_guidelines_and_their_agreement(tmp_path: Path, connection,
                                                                   people) -> None:
    import krippendorff

    from irforge.validators.llm_agreement import human_reliability

    bench = relevance_bench(tmp_path, queries=10)
    job = get_job("relevance")
    result = push(bench, job, connection, n=10, seed=1, annotators=2)
    project = connection.client.projects.get(id=result.project_id)
    assert project.maximum_annotations == 2 and project.overlap_cohort_percentage == 100
    assert project.show_instruction and "Judge this passage alone" in project.expert_instruction
    assert "3 · fully answers" in project.label_config
    assert '<Header value="Guidelines"' in project.label_config
    tasks = sorted(iter_tasks(connection, result.project_id), key=lambda t: t["id"])
    assert len(tasks) == 10 and not any(task.get("predictions") for task in tasks)
    alice, bob = [], []
    for index, task in enumerate(tasks):  # they disagree on the first three tasks
        a = str(index % 4)
        b = a if index >= 3 else str((index + 1) % 4)
        _annotate(connection, task["id"], people["alice"], a)
        _annotate(connection, task["id"], people["bob"], b)
        alice.append(int(a))
        bob.append(int(b))
    pulled = pull(bench, job, connection, result.project_id, tie_break="lower")
    assert pulled.new_labels == 20 and pulled.invalid == 0
    agreement = human_reliability(bench.judgments(), "relevance")
    assert agreement["annotators"] == 2 and agreement["items_with_two_or_more"] == 10
    assert agreement["fleiss_items"] == 10
    expected = krippendorff.alpha(reliability_data=[alice, bob],
                                  level_of_measurement="nominal")
    assert agreement["alpha_nominal"] == pytest.approx(expected, abs=1e-9)
    assert 0 < agreement["fleiss_kappa"] < 1
    report = CliRunner().invoke(build_app(), ["audit", "agreement", str(tmp_path),
                                              "--resamples", "20"])
    assert report.exit_code == 0, report.output
    assert "people among themselves: annotators=2" in report.output
