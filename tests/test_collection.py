"""The folder ``irforge run`` writes is one benchmark collection: check, eval, view and export
on the top folder act on every method folder in it (one combined report), and on one method
folder when pointed there. Before, on the top folder check exited 1 ("queries.jsonl: file not
found"), eval 2, view 3 and export 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app, main
from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.core.layouts.multicon import LAYOUT as MULTICON
from irforge.data.sample import sample_docs, write_seed_benchmark
from irforge.generators.logical.labels import negation_labels, write_negation_labels

METHODS = ("intents", "logical", "multicon")


def make_run_folder(root: Path) -> Path:
    """What `irforge run` leaves: a corpus, recipe and manifest on top, one folder per method
    (here the shipped sample, plus each method's own files)."""
    Benchmark(root).write_corpus(sample_docs())
    (root / "recipe.yaml").write_text("methods: {intents: {}, logical: {}, multicon: {}}\n")
    Benchmark(root).record_step("recipe", {"stages": {"build-intents": {"status": "done"}}})
    for method in METHODS:
        write_seed_benchmark(root / method)
    write_negation_labels(root / "logical", negation_labels(
        "seed-d01", ["d01-flood-early-warning"], ["d02-wildfire-evacuation"], []))
    ladder = [{"doc_id": doc, "satisfied": j} for j, doc in enumerate(
        ["d04-heatwave-advisory", "d02-wildfire-evacuation", "d01-flood-early-warning"])]
    folder = root / "multicon"
    write_jsonl(MULTICON.path(folder, "task1"), [
        {"query_id": "seed-d01", "k": 1, "positive": "d01-flood-early-warning",
         "hard_negative": "d04-heatwave-advisory"}])
    write_jsonl(MULTICON.path(folder, "task2"), [
        {"query_id": "seed-d01", "k": 2, "candidates": ladder}])
    write_jsonl(MULTICON.path(folder, "task3"), [
        {"instruction_query": "seed-d01", "descriptive_query": "seed-d02", "k": 2,
         "candidates": ladder}])
    return root


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run_folder(tmp_path_factory.mktemp("collection") / "run")


def invoke(*args: str):
    return CliRunner().invoke(build_app(), [str(a) for a in args])


def exit_of(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """The exit status and output of the console entry point (errors shown as users see them)."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


def test_check_on_the_run_folder_checks_every_method_folder(run_folder: Path) -> None:
    done = invoke("check", run_folder)
    assert done.exit_code == 0, done.output
    for method in METHODS:
        assert f"OK {run_folder / method}:" in done.output
    assert "3 of 3 benchmark folders in" in done.output
    as_json = json.loads(invoke("check", run_folder, "--json").output)
    assert as_json["ok"] and sorted(as_json["benchmarks"]) == list(METHODS)
    assert as_json["benchmarks"]["multicon"]["counts"]["multicon_task_rows"] == 3


def test_check_on_the_run_folder_fails_naming_the_broken_folder(tmp_path: Path) -> None:
    root = make_run_folder(tmp_path / "run")
    (root / "logical" / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nseed-d01\tno-such-doc\t1\n", encoding="utf-8")
    done = invoke("check", root)
    assert done.exit_code == 1
    assert "unknown document 'no-such-doc'" in done.output
    assert "2 of 3 benchmark folders" in done.output and "with problems: logical" in done.output


def test_eval_view_export_on_the_run_folder_cover_every_method(run_folder: Path,
                                                               tmp_path: Path) -> None:
    done = invoke("eval", run_folder, "-r", "bm25", "-m", "ndcg@10", "-m", "lsnc@100",
                  "-m", "flip-rate", "--no-plots", "--bootstrap", "50", "--trials", "50")
    assert done.exit_code == 0, done.output
    for method in METHODS:
        results = json.loads((run_folder / method / "eval" / "results.json").read_text())
        assert results["run_files"] == ["runs/bm25-lucene.trec"]
    combined = json.loads((run_folder / "eval" / "collection.json").read_text())
    assert [row["benchmark"] for row in combined["rows"]] == list(METHODS)
    means = {row["benchmark"]: row["means"] for row in combined["rows"]}
    assert "lsnc@100" in means["logical"] and "lsnc@100" not in means["intents"]
    assert "flip-rate" in means["multicon"] and "flip-rate" not in means["logical"]
    assert any("negation_labels.jsonl" in line for line in combined["skipped"]["multicon"])
    report = (run_folder / "eval" / "collection.md").read_text()
    assert all(f"| {method} | bm25-lucene |" in report for method in METHODS)

    viewed = invoke("view", run_folder, "--json")
    assert viewed.exit_code == 0, viewed.output
    summary = json.loads(viewed.output)  # one explorer page for the whole run folder
    assert summary["html"] == str(run_folder / "view" / "index.html")
    assert sorted(summary["folders"]) == sorted(METHODS)
    assert summary["queries"] == 24 * len(METHODS)

    out = tmp_path / "trec"
    exported = invoke("export", run_folder, "--format", "trec", "--out", out)
    assert exported.exit_code == 0, exported.output
    for method in METHODS:
        assert (out / method / "qrels" / "test.qrels").is_file()
        assert (out / method / "runs" / "bm25-lucene.trec").is_file()
        assert (out / method / "topics.tsv").read_text().count("\n") == 24


def test_the_verbs_on_one_method_folder_act_on_that_folder_alone(run_folder: Path,
                                                                 tmp_path: Path) -> None:
    folder = run_folder / "logical"
    checked = invoke("check", folder)
    assert checked.exit_code == 0 and checked.output.startswith(f"OK {folder}:")
    done = invoke("eval", folder, "-r", "bm25", "-m", "ndcg@10", "--no-plots",
                  "--out", tmp_path / "eval-logical", "--bootstrap", "50", "--trials", "50")
    assert done.exit_code == 0, done.output
    assert (tmp_path / "eval-logical" / "results.json").is_file()
    assert not (tmp_path / "eval-logical" / "collection.json").exists()
    viewed = invoke("view", folder, "--out", tmp_path / "one.html", "--json")
    assert viewed.exit_code == 0 and json.loads(viewed.output)["queries"] == 24
    exported = invoke("export", folder, "--format", "trec", "--out", tmp_path / "t")
    assert exported.exit_code == 0, exported.output
    assert (tmp_path / "t" / "qrels" / "test.qrels").is_file()


def test_a_failed_method_folder_fails_the_collection_verbs_and_names_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_run_folder(tmp_path / "run")
    (root / "multicon" / "queries.jsonl").unlink()
    (root / "multicon" / "failures.jsonl").write_text("", encoding="utf-8")
    code, output = exit_of(capsys, "view", root)
    assert code == 0, output  # the page was written: the empty member is listed on it
    said = " ".join(output.split())
    assert "multicon is empty: not built: no queries.jsonl" in said
    page = (root / "view" / "index.html").read_text()  # the others are still shown
    assert "intents" in page and "logical" in page and "not built: no queries.jsonl" in page
    code, output = exit_of(capsys, "check", root)
    assert code == 1 and "queries.jsonl: file not found" in output


def test_a_run_file_is_scored_on_its_own_method_folder_only(
        run_folder: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "other.trec"
    run.write_text("seed-d01 Q0 d01-flood-early-warning 1 2.0 other\n")
    code, output = exit_of(capsys, "eval", run_folder, "--run", run)
    assert code == 2 and "pass its method folder" in " ".join(output.split())


def test_annotate_on_the_run_folder(run_folder: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Tasks per method folder; an export file belongs to one folder, so import names them."""
    for method in METHODS:
        Benchmark(run_folder / method).add_judgments(_llm_labels(run_folder / method))
    done = invoke("annotate", "export-tasks", run_folder, "--out", tmp_path / "tasks.json",
                  "--n", "2")
    assert done.exit_code == 0, done.output
    for method in METHODS:
        assert json.loads((tmp_path / f"tasks-{method}.json").read_text())
    code, output = exit_of(capsys, "annotate", "import-tasks", run_folder,
                           tmp_path / "tasks-logical.json")
    output = " ".join(output.split())  # the error is wrapped to the terminal's width
    assert code == 2
    assert "pass one of them" in output and "intents, logical, multicon" in output


def _llm_labels(folder: Path):
    from irforge.core.records import Judgment

    return [Judgment(query_id=q.query_id, doc_id=q.doc_id, label=float(q.relevance),
                     source="llm", model="scripted", prompt_id="relevance.direct",
                     task="relevance")
            for q in list(Benchmark(folder).qrels())[:4]]
