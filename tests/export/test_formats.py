"""Each export loaded by the library that reads it: beir, datasets, mteb, ir_datasets,
pytrec_eval, ranx (and the Pyserini JsonCollection layout)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from irforge.core.bench import Benchmark
from irforge.eval.metrics import evaluate_per_query, mean_scores
from irforge.export import export_benchmark
from tests.export.conftest import INSTRUCTION, bm25_run

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "irforge", *args], capture_output=True,
                          text=True, cwd=ROOT)


def test_trec_qrels_give_irforge_scores_in_pytrec_eval_and_ranx(bench: Benchmark,
                                                                 tmp_path: Path) -> None:
    import pytrec_eval
    from ranx import Qrels, Run, evaluate

    result = export_benchmark(bench.root, "trec", tmp_path / "trec")
    qrels_path = tmp_path / "trec" / "qrels" / "test.qrels"
    assert all(len(line.split()) == 4 for line in qrels_path.read_text().splitlines())
    with qrels_path.open() as handle:
        parsed = pytrec_eval.parse_qrel(handle)
    assert parsed == bench.qrels_dict("test")
    run = bm25_run(bench)
    ours = mean_scores(evaluate_per_query(bench.qrels_dict(), run, ["ndcg@10", "map", "mrr"]))
    with (tmp_path / "trec" / "runs" / "bm25.trec").open() as handle:
        exported_run = pytrec_eval.parse_run(handle)
    per_query = pytrec_eval.RelevanceEvaluator(parsed, {"ndcg_cut_10", "map", "recip_rank"}
                                               ).evaluate(exported_run)
    theirs = {name: sum(q[name] for q in per_query.values()) / len(per_query)
              for name in ("ndcg_cut_10", "map", "recip_rank")}
    assert ours["ndcg@10"] == pytest.approx(theirs["ndcg_cut_10"], abs=1e-4)
    assert ours["map"] == pytest.approx(theirs["map"], abs=1e-4)
    assert ours["mrr"] == pytest.approx(theirs["recip_rank"], abs=1e-4)
    ranx_scores = evaluate(Qrels.from_file(str(qrels_path), kind="trec"),
                           Run.from_file(str(tmp_path / "trec" / "runs" / "bm25.trec"),
                                         kind="trec"), ["ndcg@10"])
    assert ranx_scores == pytest.approx(ours["ndcg@10"], abs=1e-4)
    assert result.counts["runs"] == 1 and (tmp_path / "trec" / "qrels" / "human.qrels").exists()


def test_hf_folder_loads_with_datasets_and_has_a_card(bench: Benchmark, tmp_path: Path) -> None:
    from datasets import get_dataset_config_names, load_dataset

    out = tmp_path / "hf"
    cli = _cli("export", str(bench.root), "--format", "hf", "--out", str(out), "--license",
               "cc-by-4.0", "--json")
    assert cli.returncode == 0, cli.stderr
    assert json.loads(cli.stdout)["counts"]["docs"] == 18
    assert not (out / "eval").exists() and not (out / "audits").exists()
    assert sorted(get_dataset_config_names(str(out))) == ["corpus", "default", "queries"]
    cache = str(tmp_path / "cache")
    corpus = load_dataset(str(out), "corpus", split="corpus", cache_dir=cache)
    queries = load_dataset(str(out), "queries", split="queries", cache_dir=cache)
    qrels = load_dataset(str(out), "default", cache_dir=cache)
    assert len(corpus) == 18 and set(corpus.column_names) >= {"_id", "title", "text"}
    assert sorted(qrels) == ["human", "test"]
    assert len(qrels["test"]) == len(list(bench.qrels()))
    first = queries[0]
    assert first["instruction"] == INSTRUCTION and json.loads(first["metadata"])["intent"]
    card = (out / "README.md").read_text(encoding="utf-8")
    for fact in ("license: cc-by-4.0", "irforge hand-written sample queries (CC0)",
                 "openai/test-model", "abc123", "| relevance.label | 50 | 41 | llm invalid x9 |",
                 "kappa 0.61", "$0.2500", "## Intended use"):
        assert fact in card, fact


def test_hf_push_without_network_fails_cleanly_after_writing(bench: Benchmark,
                                                             tmp_path: Path) -> None:
    cli = _cli("export", str(bench.root), "--format", "hf", "--out", str(tmp_path / "hf"),
               "--file-format", "jsonl", "--push", "someone/flood-bench")
    assert cli.returncode == 2 and "could not push" in cli.stderr
    assert "Traceback" not in cli.stderr
    assert (tmp_path / "hf" / "corpus" / "corpus.jsonl").is_file()


def test_mteb_task_loads_the_folder(bench: Benchmark, tmp_path: Path) -> None:
    out = tmp_path / "mteb"
    export_benchmark(bench.root, "mteb", out)
    sys.path.insert(0, str(out))
    try:
        import mteb_task

        task = mteb_task.task()
        task.load_data()
    finally:
        sys.path.remove(str(out))
        sys.modules.pop("mteb_task", None)
    assert task.metadata.type == "InstructionRetrieval"
    data = task.dataset["default"]["test"]
    assert len(data["corpus"]) == 18
    assert data["relevant_docs"] == bench.qrels_dict("test")
    by_id = {row["id"]: row for row in data["queries"]}
    assert by_id[next(iter(bench.queries())).query_id]["instruction"] == INSTRUCTION


def test_ir_datasets_registration_iterates_everything(bench: Benchmark, tmp_path: Path) -> None:
    import ir_datasets

    from irforge.export.irds import register

    export_benchmark(bench.root, "ir_datasets", tmp_path / "irds", name="irforge-test/flood")
    name = register(tmp_path / "irds")
    dataset = ir_datasets.load(name)
    docs = list(dataset.docs_iter())
    assert len(docs) == 18 and docs[0].title and docs[0].text
    queries = {q.query_id: q for q in dataset.queries_iter()}
    assert len(queries) == 24
    qrels = {(q.query_id, q.doc_id): q.relevance for q in dataset.qrels_iter()}
    assert qrels == {(q.query_id, q.doc_id): q.relevance for q in bench.qrels()}
    human = list(ir_datasets.load(f"{name}/human").qrels_iter())
    assert len(human) == len(list(bench.qrels("human")))


def test_beir_reads_the_source_folder_and_pyserini_layout(bench: Benchmark,
                                                          tmp_path: Path) -> None:
    from beir.datasets.data_loader import GenericDataLoader

    corpus, queries, qrels = GenericDataLoader(str(bench.root)).load(split="test")
    assert len(corpus) == 18 and qrels == bench.qrels_dict("test") and set(queries) == set(qrels)
    export_benchmark(bench.root, "pyserini", tmp_path / "pyserini")
    rows = [json.loads(line) for line in
            (tmp_path / "pyserini" / "corpus" / "docs.jsonl").read_text().splitlines()]
    assert len(rows) == 18 and all(set(row) == {"id", "contents"} for row in rows)
    doc = next(bench.corpus())
    assert rows[0]["contents"] == f"{doc.title}\n{doc.text}"


def test_export_errors_are_short(bench: Benchmark, tmp_path: Path) -> None:
    wrong = _cli("export", str(bench.root), "--format", "mtbe", "--out", str(tmp_path / "x"))
    assert wrong.returncode == 2 and "did you mean 'mteb'" in wrong.stderr
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "corpus.jsonl").write_text("", encoding="utf-8")
    (empty / "queries.jsonl").write_text("", encoding="utf-8")
    nothing = _cli("export", str(empty), "--format", "trec", "--out", str(tmp_path / "y"))
    assert nothing.returncode == 3 and "nothing to export" in nothing.stderr
    assert "Traceback" not in wrong.stderr + nothing.stderr
