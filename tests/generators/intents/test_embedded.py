"""End to end with the real embedded model (SmolLM2-135M via llama.cpp), through the CLI.

The model is tiny: many items fail validation. What a user relies on is that the run
completes, every planned item becomes a query or a failure with a reason, and every labeled
pair gets, per strategy, a judgment on the intent's scale or a failure.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core import beir
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.core.records import Doc, Query
from irforge.data.sample import sample_docs

pytestmark = pytest.mark.slow


def _short(doc: Doc, words: int = 70) -> Doc:
    return Doc(doc.doc_id, " ".join(doc.text.split()[:words]), doc.title, doc.metadata)


def test_build_and_label_with_the_embedded_model(tmp_path: Path) -> None:
    docs = [_short(doc) for doc in sample_docs() if doc.doc_id[:3] in ("d01", "d04")]
    corpus = tmp_path / "corpus.jsonl"
    beir.write_corpus(corpus, docs)
    taxonomy = tmp_path / "tax.yaml"
    taxonomy.write_text("categories:\n  - {name: Weather, keywords: [flood, heat]}\n",
                        encoding="utf-8")
    bench_dir, cache = tmp_path / "bench", tmp_path / "cache.sqlite"
    runner = CliRunner()
    app = build_app()
    built = runner.invoke(app, ["build", "intents", str(bench_dir), "--corpus", str(corpus),
                                "--intents", "QA,FC", "--taxonomy", str(taxonomy),
                                "--per-task", "1", "--max-tokens", "120", "--cache", str(cache)])
    bench = Benchmark(bench_dir)
    step = bench.manifest()["steps"]["intents"]
    assert step["engine"]["demo_grade"] is True and step["counts"]["planned"] == 2
    # a build that keeps nothing leaves a fresh folder's queries and corpus unwritten
    # (core/generation.py); its failures, judgments and manifest stay
    kept = list(bench.queries()) if bench.queries_path.exists() else []
    made = [q for q in kept if q.metadata.get("generated_by") == "intents"]
    if made:  # never silently empty: no accepted query ends in EmptyResultError (exit 3)
        assert built.exit_code == 0, built.output
    else:
        assert isinstance(built.exception, EmptyResultError), built.output
    assert "intents.needs" in built.output  # the yield table is printed either way
    gen_failures = [f for f in bench.failures() if f.step.startswith("intents")]
    assert len(made) + len(gen_failures) == 2  # every planned item accounted for
    assert all(f.reason.strip() for f in gen_failures)
    if made:
        assert {doc.doc_id for doc in bench.corpus()} >= {doc.doc_id for doc in docs}
    else:
        assert not bench.corpus_path.exists()
        bench.write_corpus(docs)

    # a hand-written query makes sure labeling runs even if no generated query validated
    bench.write_queries([*kept, Query("hand", "When is a flood warning issued?",
                                                 {"intent": "QA"})])
    pool = tmp_path / "pool.jsonl"
    pool.write_text(json.dumps({"query_id": "hand", "doc_ids": [docs[0].doc_id]}) + "\n",
                    encoding="utf-8")
    labeled = runner.invoke(app, ["label", str(bench_dir), "--pool", str(pool),
                                  "--strategies", "zero_shot,cot", "--max-tokens", "40",
                                  "--cache", str(cache)])
    assert labeled.exit_code == 0, labeled.output
    assert "DEMO GRADE" in labeled.output
    pairs = [("hand", docs[0].doc_id)] + [(q.query_id, q.metadata["positive_doc_id"])
                                          for q in made]
    judgments = {(j.query_id, j.doc_id, j.metadata["strategy"]): j for j in bench.judgments()}
    failures = {(f.item_id, f.step) for f in bench.failures()}
    for query_id, doc_id in pairs:
        for strategy in ("zero_shot", "cot"):
            judged = (query_id, doc_id, strategy) in judgments
            failed = (f"{query_id}::{doc_id}", f"relevance.{strategy}") in failures
            assert judged != failed, (query_id, doc_id, strategy)
    for judgment in judgments.values():
        assert 0 <= judgment.label <= 3 and judgment.raw_output
        assert judgment.metadata["demo_grade"] is True
    qrels = bench.qrels_dict() if bench.qrels_path().exists() else {}
    labeled_pairs = {(q, d) for q, d, _ in judgments}
    assert {(q, d) for q, docs_ in qrels.items() for d in docs_} == labeled_pairs
    assert "relevance" in bench.manifest()["steps"]
