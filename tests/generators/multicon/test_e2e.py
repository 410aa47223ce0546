"""End to end through the real embedded model (SmolLM2-135M via llama.cpp); no mocks.

The model is demo grade, so many items are rejected (choices by construction, best-of-n and
the gates are all on). What must hold: every produced item passes its validator and the query
gates when re-checked from the written files; a run that keeps no source is an
EmptyResultError naming the reasons that failures.jsonl holds, never a silent success; and
every source or query that is missing is explained in failures.jsonl with a reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc
from irforge.generators.multicon import MulticonConfig, get_domain
from irforge.generators.multicon.folder import build_multicon
from irforge.generators.multicon.sentences import normalize
from irforge.generators.multicon.steps import (
    chosen_conditions,
    duplicate_phrases,
    substituted,
    validate_conditions,
    validate_descriptive,
    validate_hard_negative,
    validate_phrase,
)
from irforge.llm import Engine
from irforge.steps import reason_key
from irforge.steps.gates import QueryGates
from irforge.steps.runner import BuildRunner
from tests.generators.multicon.docs import NOVEL, NOVEL_CONDITIONS

N = 3
SECOND = Doc("ferry", "The Quiet Ferry is a 2003 comedy film directed by Lotte Brand. "
                      "It was shot on a ferry crossing between two small islands. "
                      "The lead role is played by the actor Tomas Reyes. "
                      "The film premiered at a festival in Rotterdam.", title="The Quiet Ferry")


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("multicon-e2e")
    docs = [Doc("salt", NOVEL, title="The Salt Orchard"), SECOND]
    config = MulticonConfig(domain=get_domain("books"), n=N, pad_to=120, seed=1,
                            strategy="substitute")
    with Engine(cache_path=root / "cache.sqlite", max_tokens=256, progress=False) as engine:
        # "salt" gets hand-picked conditions so the real model also runs steps 2 and 3.
        try:
            runner = BuildRunner.open(engine, root / "bench", "multicon")
            _, kept = build_multicon(runner, docs, config, "test", {"salt": NOVEL_CONDITIONS})
            runner.finish(kept, "MultiConIR source documents")
        except EmptyResultError as exc:  # nothing kept: written, then reported (checked below)
            (root / "bench" / "empty.txt").write_text(str(exc), encoding="utf-8")
    return root / "bench"


def _rows(path: Path) -> list[dict]:
    return [row for _, row in iter_jsonl(path)] if path.exists() else []


@pytest.mark.slow
def test_run_completes_and_records_the_embedded_model(built):
    manifest = Benchmark(built).manifest()["steps"]["multicon"]
    assert manifest["demo_grade"] is True
    assert manifest["config"]["n"] == N
    assert set(manifest["engine"]["prompts"]) >= {
        "multicon.conditions", "multicon.condition_phrase", "multicon.descriptive_query",
        "multicon.hard_negative_substitute"}
    for name in ("corpus.jsonl", "queries.jsonl", "qrels/test.tsv", "multicon/task1.jsonl",
                 "multicon/task2.jsonl", "multicon/task3.jsonl", "multicon/sources.jsonl"):
        assert (built / name).exists(), name


@pytest.mark.slow
def test_every_produced_item_passes_its_validator(built):
    bench = Benchmark(built)
    sources = {row["source_doc"]: row for row in _rows(built / "multicon" / "sources.jsonl")}
    texts = {"salt": NOVEL, "ferry": SECOND.text}
    docs = {doc.doc_id: doc for doc in bench.corpus()}
    for source, row in sources.items():
        conditions = [c["text"] for c in row["conditions"]]
        located = validate_conditions(conditions, texts[source], N)
        assert [(c.span.start, c.span.end) for c in located] == [
            (c["start"], c["end"]) for c in row["conditions"]]
        for c in row["conditions"]:
            validate_hard_negative(c["text"], c["hard_negative"], row["strategy"])
        for j in range(N + 1):
            doc = docs[row["positive"] if j == N else row["hard_negatives"][str(j)]]
            assert doc.metadata["satisfied"] == j
            for index, c in enumerate(row["conditions"], start=1):
                kept = index <= j
                assert (c["text"] in doc.text) is kept
                assert (c["hard_negative"] in doc.text) is not kept
            assert len(doc.text.split()) >= 100  # padded towards 120 words
    for query in bench.queries():
        meta = query.metadata
        assert meta["source_doc"] in sources
        if meta["style"] == "instruction":
            phrases = meta["condition_phrases"]
            assert len(phrases) == meta["k"] and not duplicate_phrases(phrases)
            assert [validate_phrase(phrase) for phrase in phrases] == phrases
            assert query.text.count(". ") >= meta["k"]
        else:
            assert validate_descriptive(query.text, meta["k"]) == query.text
    qrels = bench.qrels_dict() if (built / "qrels" / "test.tsv").exists() else {}
    for query_id, grades in qrels.items():
        k = int(query_id.split("-q")[1].split("-")[0])
        assert max(grades.values()) == k


@pytest.mark.slow
def test_every_accepted_llm_output_passes_its_validator_again(built):
    originals = {f"salt:c{i}": c for i, c in enumerate(NOVEL_CONDITIONS, start=1)}
    for row in _rows(built / "judgments.jsonl"):
        raw = row["raw_output"]
        value = json.loads(raw[raw.index("{"):raw.rindex("}") + 1])
        item, task = row["query_id"], row["task"]
        if task == "multicon.condition_phrase":
            validate_phrase(value["phrase"])
        elif task == "multicon.descriptive_query":
            validate_descriptive(value["query"], int(item.split("-q")[1].split("-")[0]))
        elif task == "multicon.hard_negative" and item in originals:
            new = substituted(originals[item], value["term"], value["replacement"])
            validate_hard_negative(originals[item], new, "modify")
        elif task == "multicon.conditions":
            chosen = chosen_conditions(SECOND.text, value["ids"], N)
            assert all(c.span.text in SECOND.text for c in chosen)
        assert row["source"] == "llm" and row["model"].startswith("embedded:")


@pytest.mark.slow
def test_kept_queries_pass_the_gates_and_an_empty_run_says_why(built):
    bench = Benchmark(built)
    sources = _rows(built / "multicon" / "sources.jsonl")
    empty = built / "empty.txt"
    assert bool(sources) is not empty.exists()
    if empty.exists():  # the error names the commonest reasons of failures.jsonl
        message = empty.read_text(encoding="utf-8")
        assert message.startswith("0 MultiConIR source documents accepted")
        reasons = {reason_key(f["reason"]) for f in _rows(built / "failures.jsonl")}
        assert any(f"  - {reason} (x" in message for reason in reasons)
    queries = list(bench.queries())
    assert {q.metadata["source_doc"] for q in queries} <= {r["source_doc"] for r in sources}
    gates = QueryGates(language="en")
    docs = {"salt": Doc("salt", NOVEL, title="The Salt Orchard"), "ferry": SECOND}
    for query in queries:
        source = docs[query.metadata["source_doc"]]
        assert gates.check([query.text], (source.title, source.text)) == [], query.text
        gates.admit([query.text], query.query_id)
    manifest = bench.manifest()["steps"]["multicon"]
    table = {row["step"]: row for row in manifest["yield"]}
    assert table["multicon.hard_negative"]["accepted"] >= N * len(sources)
    assembled = table.pop("multicon.instruction_query", None)  # built by code: no LLM sample
    assert assembled is None or assembled["samples"] == 0
    assert all(row["samples"] >= row["attempted"] for row in table.values())


@pytest.mark.slow
def test_every_rejected_item_is_in_failures_with_a_reason(built):
    failures = _rows(built / "failures.jsonl")
    assert all(f["reason"].strip() and f["step"].startswith("multicon.") for f in failures)
    failed_ids = {f["item_id"] for f in failures}
    sources = {row["source_doc"] for row in _rows(built / "multicon" / "sources.jsonl")}
    for source in ("salt", "ferry"):
        assert source in sources or source in failed_ids or any(
            i.startswith(f"{source}:c") for i in failed_ids), source
    queries = {q.query_id for q in Benchmark(built).queries()}
    for source in sources:
        for k in range(1, N + 1):
            for style in ("inst", "desc"):
                qid = f"{source}-q{k}-{style}"
                assert qid in queries or qid in failed_ids, qid
    for failure in failures:
        if failure["reason"].startswith("rejected:"):
            assert failure["raw_output"] or failure["metadata"].get("given")
    judged = {row["query_id"] for row in _rows(built / "judgments.jsonl")}
    assert not judged & {f["item_id"] for f in failures if f["step"] != "multicon.documents"}
    assert all(normalize(j) for j in judged)
    json.dumps(failures)  # the log is plain JSON
