"""The conventions irforge writes agree with the published ComLQ benchmark (real data)."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import pytest

from irforge.core.beir import read_qrels
from irforge.generators.logical.labels import graded_qrels
from irforge.generators.logical.types import TYPE_NAMES, get_type


@pytest.fixture(scope="module")
def comlq(comlq_dir: Path):
    queries = [json.loads(line) for line in (comlq_dir / "queries.jsonl").open(encoding="utf-8")]
    qrels: dict[str, list[tuple[str, int]]] = defaultdict(list)
    for qrel in read_qrels(comlq_dir / "qrels" / "test.tsv"):
        qrels[qrel.query_id].append((qrel.doc_id, qrel.relevance))
    return queries, qrels


def test_every_published_type_is_in_the_registry(comlq):
    queries, _ = comlq
    names = {row["type"].split("_")[0] for row in queries}
    assert names == set(TYPE_NAMES)
    assert len(queries) == 2909


def test_graded_qrels_reproduce_the_published_qrels(comlq):
    queries, qrels = comlq
    for row in queries:
        published = sorted(qrels[row["_id"]])
        ours = sorted((q.doc_id, q.relevance) for q in graded_qrels(row["_id"],
                                                                      [d for d, _ in published]))
        assert ours == published, row


def test_published_passage_counts_fit_the_one_passage_per_triple_limit(comlq):
    queries, qrels = comlq
    for row in queries:
        name, _, suffix = row["type"].partition("_")
        count = len(qrels[row["_id"]])
        assert count <= get_type(name).max_passages, row
        if suffix:
            assert int(suffix) == count, row
