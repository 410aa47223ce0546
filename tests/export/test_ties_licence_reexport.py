"""Exported runs rank alike in every tool (ties broken in the file), the card's licence comes
from the corpus, exporting again removes what the export no longer writes, and an
instructions folder ships the topics of its changed and reversed runs."""

from __future__ import annotations

import shutil
from itertools import pairwise
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.core.errors import IrforgeError
from irforge.core.jsonl import write_jsonl
from irforge.core.records import Run
from irforge.core.trec import read_trec_run, write_trec_run
from irforge.eval import evaluate
from irforge.export import export_benchmark
from irforge.export.agreement import tool_means
from irforge.export.licence import licence_from_text, resolve_licence

MEASURES = ("map", "ndcg@10", "p@5", "mrr", "recall@100")


def _copy(bench: Benchmark, tmp_path: Path) -> Benchmark:
    root = tmp_path / "bench"
    shutil.copytree(bench.root, root)
    return Benchmark(root)


def _tied_run(bench: Benchmark) -> Run:
    """A run whose lower half ties at 0.0 across relevant and non-relevant documents."""
    doc_ids = sorted(doc.doc_id for doc in bench.corpus())
    qrels = bench.qrels_dict()
    scores = {}
    for index, query_id in enumerate(sorted(qrels)):
        ranked = sorted(doc_ids, key=lambda d: (d not in qrels[query_id], d))
        docs = {doc_id: 0.0 for doc_id in ranked}
        for rank, doc_id in enumerate(ranked[index % 3: index % 3 + 2]):
            docs[doc_id] = 1.0 - rank / 10  # a few scored documents above the tie
        scores[query_id] = docs
    return Run("tied", scores)


def test_exported_runs_with_ties_score_alike_in_ranx_pytrec_eval_and_ir_measures(
        bench: Benchmark, tmp_path: Path) -> None:
    folder = _copy(bench, tmp_path)
    run = _tied_run(folder)
    raw = folder.root / "eval" / "runs" / "tied.trec"
    with raw.open("w", encoding="utf-8") as handle:  # as another tool writes it: ties kept
        for query_id, docs in run.scores.items():
            for rank, (doc_id, score) in enumerate(sorted(docs.items(), key=lambda kv: -kv[1])):
                handle.write(f"{query_id} Q0 {doc_id} {rank + 1} {score} other\n")
    out = tmp_path / "trec"
    export_benchmark(folder.root, "trec", out)
    qrels_path = out / "qrels" / "test.qrels"
    ours = evaluate(folder.qrels_dict(), run, list(MEASURES), missing="skip")
    # the precondition: on the raw file with ties ranx and trec_eval rank differently
    raw_means = tool_means(qrels_path, raw, MEASURES)
    assert abs(raw_means["ranx"]["map"] - raw_means["pytrec_eval"]["map"]) > 1e-6
    for path in sorted((out / "runs").glob("*.trec")):
        tools = tool_means(qrels_path, path, MEASURES)
        assert set(tools) == {"irforge", "ranx", "pytrec_eval", "ir_measures"}
        expected = ours if path.stem == "tied" else tools["pytrec_eval"]
        for tool, values in tools.items():
            for name in MEASURES:
                assert values[name] == pytest.approx(expected[name], abs=1e-9), (
                    path.name, tool, name)


def test_written_run_keeps_order_and_scores_strictly_decrease(tmp_path: Path) -> None:
    run = Run("r", {"q": {"a": 0.0, "b": 0.0, "c": 0.5, "d": 0.0, "e": 0.5}})
    path = tmp_path / "r.trec"
    write_trec_run(path, run)
    lines = [line.split() for line in path.read_text().splitlines()]
    assert [cells[2] for cells in lines] == ["e", "c", "d", "b", "a"]  # doc id descending
    scores = [float(cells[4]) for cells in lines]
    assert all(a > b for a, b in pairwise(scores))
    assert scores == pytest.approx([0.5, 0.5, 0.0, 0.0, 0.0], rel=1e-15, abs=1e-300)
    again = read_trec_run(path)
    assert evaluate({"q": {"a": 1}}, again, ["mrr"]) == evaluate({"q": {"a": 1}}, run, ["mrr"])


@pytest.mark.parametrize(("text", "spdx"), [
    ("Creative Commons CC0 1.0 Universal Public Domain Dedication", "cc0-1.0"),
    ("Licensed under CC BY-SA 4.0", "cc-by-sa-4.0"),
    ("Attribution 4.0 International (CC BY 4.0)", "cc-by-4.0"),
    ("Apache License, Version 2.0", "apache-2.0"),
    ("All rights reserved.", None)])
def test_licence_wording_is_recognised(text: str, spdx: str | None) -> None:
    assert licence_from_text(text) == spdx


def test_card_licence_comes_from_the_corpus(bench: Benchmark, tmp_path: Path) -> None:
    result = export_benchmark(bench.root, "hf", tmp_path / "hf", file_format="jsonl")
    card = (tmp_path / "hf" / "README.md").read_text(encoding="utf-8")
    assert "license: cc0-1.0" in card and "- licence: cc0-1.0" in card
    assert "license: unknown" not in card and "licence cc0-1.0" in " ".join(result.notes)
    # a corpus built from a folder with a LICENSE file: the file names the licence
    sources = tmp_path / "pdfs"
    sources.mkdir()
    (sources / "LICENSE.txt").write_text("Distributed under CC BY 4.0.", encoding="utf-8")
    manifest = {"steps": {"corpus.extract": {"input": str(sources), "documents": 3}}}
    assert resolve_licence(None, tmp_path, manifest) == ("cc-by-4.0",
                                                         str(sources / "LICENSE.txt"))
    assert resolve_licence("mit", tmp_path, manifest) == ("mit", "--license")
    assert resolve_licence(None, tmp_path / "none", {})[0] == "unknown"


def test_exporting_again_removes_only_the_files_the_export_owned(
        bench: Benchmark, tmp_path: Path) -> None:
    out = tmp_path / "trec"
    export_benchmark(bench.root, "trec", out)
    assert (out / "qrels" / "human.qrels").is_file()
    result = export_benchmark(bench.root, "trec", out, split="test")
    assert not (out / "qrels" / "human.qrels").exists()
    assert (out / "qrels" / "test.qrels").is_file()
    assert any("human.qrels" in note for note in result.notes)
    (out / "notes.txt").write_text("mine", encoding="utf-8")  # not the export's: never shipped
    with pytest.raises(IrforgeError, match=r"already holds notes\.txt"):
        export_benchmark(bench.root, "trec", out, split="test")
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine"


def test_instructions_topics_hold_the_changed_and_reversed_texts(
        bench: Benchmark, tmp_path: Path) -> None:
    folder = _copy(bench, tmp_path)
    queries = list(folder.queries())
    for mode in ("changed", "reversed"):
        write_jsonl(folder.root / "instructions" / f"queries_{mode}.jsonl",
                    [{"_id": q.query_id, "text": f"{q.text} ({mode} instruction)"}
                     for q in queries])
    out = tmp_path / "trec"
    export_benchmark(folder.root, "trec", out)
    for mode in ("changed", "reversed"):
        rows = (out / f"topics.{mode}.tsv").read_text(encoding="utf-8").splitlines()
        assert len(rows) == len(queries)
        first_id, first_text = rows[0].split("\t")
        assert first_id == queries[0].query_id and first_text.endswith(f"({mode} instruction)")
    assert (out / "topics.tsv").read_text(encoding="utf-8").count("instruction)") == 0
