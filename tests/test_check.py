from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.check import check_benchmark
from irforge.cli import build_app


def make_bad_bench(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        '{"_id": "d1", "text": "a"}\n{"_id": "d1", "text": "b"}\n{"text": "no id"}\n{broken\n',
        encoding="utf-8")
    (root / "queries.jsonl").write_text('{"_id": "q1", "text": "x"}\n', encoding="utf-8")
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\tdX\t1\nqZ\td1\t1\n", encoding="utf-8")
    (root / "judgments.jsonl").write_text('{"query_id": "q1", "doc_id": "d1", "label": 1, '
                                          '"source": "robot"}\n', encoding="utf-8")
    return root


def test_check_lists_every_problem_not_only_the_first(tmp_path: Path) -> None:
    report = check_benchmark(make_bad_bench(tmp_path / "bench"))
    text = [str(p) for p in report.problems]
    assert not report.ok
    assert len(text) == 6, text
    assert any("corpus.jsonl:2" in t and "duplicate id 'd1'" in t for t in text)
    assert any("corpus.jsonl:3" in t and "'_id'" in t for t in text)
    assert any("corpus.jsonl:4" in t and "malformed JSON" in t for t in text)
    assert any("test.tsv:3" in t and "unknown document 'dX'" in t for t in text)
    assert any("test.tsv:4" in t and "unknown query 'qZ'" in t for t in text)
    assert any("judgments.jsonl:1" in t and "unknown source" in t for t in text)


def test_check_passes_a_good_folder(tmp_path: Path) -> None:
    root = tmp_path / "ok"
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "text": "a"}) + "\n")
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "a"}) + "\n")
    (root / "qrels" / "test.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t1\n")
    report = check_benchmark(root)
    assert report.ok, report.problems
    assert report.counts["docs"] == 1 and report.counts["qrels/test"] == 1


def test_check_cli_exit_codes_and_output(tmp_path: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(build_app(), ["check", str(make_bad_bench(tmp_path / "b"))])
    assert result.exit_code == 1
    assert result.output.count("ERROR ") == 6
    assert "6 problem(s)" in result.output
    missing = runner.invoke(build_app(), ["check", str(tmp_path / "nope")])
    assert missing.exit_code == 1 and "benchmark folder not found" in missing.output
