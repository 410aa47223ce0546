"""File-based Label Studio round trip (no server) and adjudicated qrels reaching `irforge eval`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.annotation.files import export_tasks, import_tasks
from irforge.annotation.labeling import choice_result, get_job, parse_config
from irforge.annotation.merge import merge_qrels
from irforge.core.beir import read_qrels
from irforge.core.bench import Benchmark
from irforge.core.records import Qrel
from tests.annotation.helpers import relevance_bench

ROOT = Path(__file__).resolve().parents[2]


def _annotate(tasks: list[dict], job, people: dict[str, str]) -> list[dict]:
    """What Label Studio's Export > JSON holds after people answered every task."""
    out = []
    for number, task in enumerate(tasks, start=1):
        annotations = [{"id": number * 10 + k, "completed_by": k + 1,
                        "updated_at": "2026-01-01T00:00:00Z", "was_cancelled": False,
                        "result": choice_result(job, choice)}
                       for k, choice in enumerate(people.values())]
        out.append({"id": number, "data": task["data"], "annotations": annotations,
                    "predictions": task["predictions"]})
    return out


def test_export_annotate_import_merge_and_eval(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=6)
    bench.write_qrels([Qrel(f"q{i}", f"d{i}", 1) for i in range(6)])
    job = get_job("relevance")
    files = export_tasks(bench, job, tmp_path / "round1.json", n=4, seed=1,
                         show_predictions=True)
    tasks = json.loads(files.tasks.read_text(encoding="utf-8"))
    assert len(tasks) == files.sampled == 4 and files.candidates == 6
    xml = files.config.read_text(encoding="utf-8")
    assert parse_config(xml, str(files.config)).controls == job.config.controls
    assert all(task["predictions"] and "item_key" in task["data"] for task in tasks)

    lowest = job.choice_for(0)  # both people say "not relevant"
    export = tmp_path / "project-export.json"
    export.write_text(json.dumps(_annotate(tasks, job, {"ann": lowest, "bob": lowest})),
                      encoding="utf-8")
    result = import_tasks(bench, job, export)
    assert (result.tasks, result.new_labels, result.invalid) == (4, 8, 0)
    human = list(read_qrels(bench.qrels_path("human")))
    assert len(human) == 4 and {q.relevance for q in human} == {0}
    assert import_tasks(bench, job, export).new_labels == 0  # re-import adds nothing

    merged = merge_qrels(bench, base="test", out="adjudicated")
    assert (merged.total, merged.from_human, merged.changed) == (6, 4, 4)
    grades = {(q.query_id, q.doc_id): q.relevance for q in read_qrels(merged.qrels)}
    reviewed = {(t["data"]["query_id"], t["data"]["doc_id"]) for t in tasks}
    assert all(grades[pair] == 0 for pair in reviewed)
    assert sum(grades.values()) == 2  # the two unreviewed LLM qrels stay relevant
    rows = [json.loads(line) for line in merged.provenance.read_text().splitlines()]
    assert {r["source"] for r in rows} == {"human", "llm"}
    assert all(r["annotators"] == ["1", "2"] for r in rows if r["source"] == "human")

    cli = subprocess.run([sys.executable, "-m", "irforge", "eval", str(bench.root), "--qrels",
                          "adjudicated", "--no-plots", "--json"], capture_output=True,
                         text=True, cwd=ROOT)
    assert cli.returncode == 0, cli.stderr
    summary = json.loads(cli.stdout)
    assert summary["split"] == "adjudicated" and summary["queries"] == 6
    (means,) = summary["systems"].values()
    # the people's zeros reached the scores: only the 2 unreviewed queries can score
    assert 0.0 < means["ndcg@10"] <= 2 / 6 + 1e-9


def test_merge_without_human_labels_is_an_error(tmp_path: Path) -> None:
    bench = relevance_bench(tmp_path / "bench", queries=2)
    bench.write_qrels([Qrel("q0", "d0", 1)])
    cli = subprocess.run([sys.executable, "-m", "irforge", "qrels", "merge", str(bench.root)],
                         capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 3 and "annotate pull" in cli.stderr
    assert "Traceback" not in cli.stderr
    assert not Benchmark(bench.root).qrels_path("adjudicated").exists()


def test_missing_url_error_names_the_config_file(tmp_path: Path, monkeypatch) -> None:
    from irforge.annotation.connection import load_settings
    from irforge.annotation.errors import AnnotationError

    monkeypatch.delenv("LABEL_STUDIO_URL", raising=False)
    monkeypatch.delenv("IRFORGE_LABEL_STUDIO_CONFIG", raising=False)
    settings = tmp_path / "ls.yaml"
    settings.write_text("api_key: abc\n", encoding="utf-8")
    with pytest.raises(AnnotationError, match=f"in the config file {settings}"):
        load_settings(config_file=settings)
