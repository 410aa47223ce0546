from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.check.folder import check_benchmark
from irforge.cli.app import build_app


def make_bad_bench(root: Path) -> Path:
    (root / "qrels").mkdir(parents=True)
    (root / "corpus.jsonl").write_text(
        '{"_id": "d1", "text": "Bees store honey in wax combs."}\n{"_id": "d1", "text": "b"}\n'
        '{"text": "no id"}\n{broken\n',
        encoding="utf-8")
    (root / "queries.jsonl").write_text('{"_id": "q1", "text": "where do bees store honey"}\n',
                                        encoding="utf-8")
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
    (root / "corpus.jsonl").write_text(json.dumps({"_id": "d1", "text": "Wax moths lay eggs in "
                                                   "stored honey frames."}) + "\n")
    (root / "queries.jsonl").write_text(json.dumps({"_id": "q1", "text": "wax moth eggs in "
                                                    "honey frames"}) + "\n")
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
    # a missing folder is a usage error (exit 2) that names the folder and what belongs there
    assert missing.exception.exit_code == 2 and "does not exist" in str(missing.exception)


def _bench(root: Path, queries: list[dict], docs: list[dict] | None = None) -> Path:
    (root / "qrels").mkdir(parents=True)
    docs = docs or [{"_id": "d1", "title": "Sourdough Starter Care",
                     "text": "Feed the starter twice a day with equal weights of rye flour and "
                             "water, and keep it warm."}]
    (root / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (root / "queries.jsonl").write_text("".join(json.dumps(q) + "\n" for q in queries))
    (root / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "".join(f"{q['_id']}\td1\t1\n" for q in queries))
    return root


def test_check_reports_duplicate_and_copied_queries(tmp_path: Path) -> None:
    root = _bench(tmp_path / "b", [
        {"_id": "q1", "text": "how often to feed a rye starter"},
        {"_id": "q2", "text": "How often to feed a rye starter?"},
        {"_id": "q3", "text": "feed the starter twice a day with equal weights of rye flour",
         "metadata": {"source_doc": "d1"}},
        {"_id": "q4", "text": "Sourdough Starter Care", "metadata": {"source_doc": "d1"}},
        {"_id": "q5", "text": "how warm should a rye starter be kept"}])
    report = check_benchmark(root)
    text = [str(p) for p in report.problems]
    assert len(text) == 3, text
    assert any("queries.jsonl:2" in t and "gate duplicate" in t and "'q1'" in t for t in text)
    assert any("queries.jsonl:3" in t and "gate copy" in t for t in text)
    assert any("queries.jsonl:4" in t and "gate title" in t for t in text)
    assert report.counts["duplicate_or_copied_queries"] == 3


def test_check_validates_multicon_tasks_negation_labels_and_instruction_qrels(
        tmp_path: Path) -> None:
    root = _bench(tmp_path / "b", [{"_id": "q1", "text": "how often to feed a rye starter"}])
    (root / "multicon").mkdir()
    (root / "multicon" / "task1.jsonl").write_text(
        json.dumps({"query_id": "q1", "positive": "d1", "hard_negative": "d1"}) + "\n"
        + json.dumps({"query_id": "qX", "positive": "d1", "hard_negative": "dX"}) + "\n")
    (root / "multicon" / "task2.jsonl").write_text(
        json.dumps({"query_id": "q1", "candidates": []}) + "\n")
    (root / "multicon" / "task3.jsonl").write_text(
        json.dumps({"instruction_query": "q1", "descriptive_query": "q1",
                    "candidates": [{"doc_id": "d1"}, {"doc_id": "d9"}]}) + "\n")
    (root / "logical").mkdir()
    (root / "logical" / "negation_labels.jsonl").write_text(
        json.dumps({"query_id": "q1", "doc_id": "d1", "violates": 0}) + "\n"
        + json.dumps({"query_id": "q1", "doc_id": "d1", "violates": 2}) + "\n"
        + json.dumps({"doc_id": "d1", "violates": 1}) + "\n")
    (root / "qrels" / "reversed.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td7\t1\n")
    text = [str(p) for p in check_benchmark(root).problems]
    expected = [("task1.jsonl:2", "unknown query 'qX'"),
                ("task1.jsonl:2", "unknown document 'dX'"),
                ("task2.jsonl:1", "empty candidate list"),
                ("task3.jsonl:1", "unknown document 'd9'"),
                ("negation_labels.jsonl:2", "violates must be 0 or 1"),
                ("negation_labels.jsonl:3", "'query_id'"),
                ("reversed.tsv:2", "unknown document 'd7'")]
    for where, what in expected:
        assert any(where in t and what in t for t in text), (where, what, text)
    assert len(text) == len(expected), text
