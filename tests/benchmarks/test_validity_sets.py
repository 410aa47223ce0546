"""The labelled sets benchmarks/validity.py measures: every query labelled once, every label
on a query, every query with a relevant passage in the set's corpus, and the reader's sets
saying where their labels come from."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

import irforge

DATA = Path(irforge.__file__).resolve().parents[1] / "benchmarks" / "data" / "validity"
SETS = sorted(p.name for p in DATA.iterdir() if (p / "labels.tsv").is_file())
READER_SETS = ("relay_real", "relay_toolshed")  # a capable model's output, a reader's labels


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def _ids(path: Path) -> list[str]:
    return [json.loads(line)["_id"] for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def test_the_reader_labelled_sets_are_there() -> None:
    assert set(READER_SETS) <= set(SETS)


@pytest.mark.parametrize("name", SETS)
def test_every_query_has_one_label_and_a_relevant_passage(name: str) -> None:
    folder = DATA / name
    labels = _rows(folder / "labels.tsv")
    queries = _ids(folder / "queries.jsonl")
    docs = set(_ids(folder / "corpus.jsonl"))
    labelled = [row["query-id"] for row in labels]
    assert sorted(labelled) == sorted(queries) and len(set(queries)) == len(queries)
    kinds = {row["kind"] for row in labels}
    assert "valid" in kinds and kinds - {"valid"}, "a set holds valid and invalid queries"
    qrels = _rows(folder / "qrels" / "test.tsv")
    relevant = {row["query-id"] for row in qrels if int(row["score"]) > 0}
    assert relevant == set(queries)
    assert {row["corpus-id"] for row in qrels} <= docs


@pytest.mark.parametrize("name", READER_SETS)
def test_a_reader_set_gives_each_label_a_reason_and_its_provenance(name: str) -> None:
    folder = DATA / name
    for row in _rows(folder / "labels.tsv"):
        assert row["reason"].strip() and row["reader_item"].startswith("bench-"), row
        assert row["run_outcome"].strip(), row
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "reader" in readme and "main at" in readme
