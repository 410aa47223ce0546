"""Existing corpora as input: BEIR JSONL, Parquet and Hugging Face dataset folders keep their
ids; a malformed corpus is skipped whole with the line and field to fix; a corpus read cut
short by a kill is read again whole, never twice."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.corpus.extract import extract
from irforge.corpus.state import CorpusWork

ROWS = [{"_id": "d1", "title": "Sirens", "text": "Sirens on the seafront sound for ten "
         "minutes before the tsunami wave arrives."},
        {"_id": "d2", "text": "Farmers keep livestock indoors while volcanic ash falls on "
         "the valley."}]
BUILD = ["--tokenizer", "words", "--max-tokens", "16", "--min-tokens", "2",
         "--skip-passage-dedup", "--workers", "1"]


def _jsonl(path: Path, rows: list) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def _build(source: Path, out: Path) -> list:
    result = CliRunner().invoke(build_app(), ["corpus", "build", str(out), "--input",
                                              str(source), *BUILD])
    assert result.exit_code == 0, result.output
    return list(Benchmark(out).corpus())


def test_ids_are_kept_and_a_long_row_is_cut_into_numbered_passages(tmp_path: Path) -> None:
    long = {"_id": "long-7", "text": " ".join(f"Word{n} of the long flood report." if n % 6 == 5
                                               else f"word{n}" for n in range(60))}
    _jsonl(tmp_path / "in" / "corpus.jsonl", [*ROWS, long])
    docs = {doc.doc_id: doc for doc in _build(tmp_path / "in", tmp_path / "bench")}
    assert {"d1", "d2"} <= set(docs) and docs["d1"].title == "Sirens"
    assert "long-7" not in docs and {"long-7_0", "long-7_1"} <= set(docs)
    assert docs["d1"].metadata["format"] == "jsonl-corpus"
    assert docs["d1"].metadata["file"] == "corpus.jsonl"


def test_a_hugging_face_dataset_folder_and_a_parquet_file(tmp_path: Path) -> None:
    import datasets

    datasets.Dataset.from_list([{"id": "hf-1", "text": ROWS[0]["text"]}]).save_to_disk(
        str(tmp_path / "in" / "hf_corpus"))
    datasets.Dataset.from_list([{"_id": "pq-1", "text": ROWS[1]["text"]}]).to_parquet(
        str(tmp_path / "in" / "more.parquet"))
    docs = {doc.doc_id: doc for doc in _build(tmp_path / "in", tmp_path / "bench")}
    assert set(docs) == {"hf-1", "pq-1"}
    assert docs["hf-1"].metadata["format"] == "hf-dataset"
    assert docs["pq-1"].metadata["format"] == "parquet-corpus"


def test_a_malformed_corpus_is_skipped_whole_with_line_and_field(tmp_path: Path) -> None:
    _jsonl(tmp_path / "in" / "missing.jsonl", [ROWS[0], {"text": "no id here at all, sorry"}])
    _jsonl(tmp_path / "in" / "repeated.jsonl", [ROWS[0], ROWS[0]])
    (tmp_path / "in" / "notjson.jsonl").write_text('{"_id": "x", "text": "fine"}\n{oops\n')
    _jsonl(tmp_path / "in" / "good.jsonl", [ROWS[1]])
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    summary = extract(work, tmp_path / "in", workers=1)
    rows = {row["file"]: row for row in work.log("extract", "documents.jsonl").rows()
            if row["status"] == "skipped"}
    assert rows["missing.jsonl"]["reason"].startswith("broken: line 2: field '_id' is missing")
    assert rows["repeated.jsonl"]["reason"].startswith("broken: line 2: _id 'd1' is repeated")
    assert rows["notjson.jsonl"]["reason"].startswith("broken: line 2: not JSON")
    assert summary["documents"] == 1  # only good.jsonl's row; no row of a bad file kept


def test_a_corpus_cut_short_by_a_kill_is_read_again_whole(tmp_path: Path) -> None:
    _jsonl(tmp_path / "in" / "corpus.jsonl", ROWS)
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    extract(work, tmp_path / "in", workers=1)
    log = work.log("extract", "documents.jsonl")
    lines = log.path.read_text().splitlines()
    log.path.write_text(lines[0] + "\n")  # the kill came after the first row
    again = extract(work, tmp_path / "in", workers=1)
    ids = [row["doc_id"] for row in log.rows() if row["status"] == "ok"]
    assert ids == ["d1", "d2"] and again["documents"] == 2
