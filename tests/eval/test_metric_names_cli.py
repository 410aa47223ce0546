"""``irforge eval BENCH --metric wise --metric lsnc@100 --metric ndcg_cut_10 --metric bpref``:
paper measures by name on a folder that has their files, a clear error on one that lacks them."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.jsonl import write_jsonl
from irforge.eval.metrics import comlq, infosearch
from irforge.eval.metrics.ranks import mean
from irforge.generators.instructions.assemble import assemble, assembled_records, read_modes
from irforge.retrievers import get_retriever
from irforge.steps.records import write_records
from tests.eval.test_cli import irforge
from tests.eval.test_infosearch_cli import DISTRACTORS, GROUPS, _units

ARGS = ["--metric", "wise", "--metric", "lsnc@100", "--metric", "ndcg_cut_10",
        "--metric", "bpref", "--bootstrap", "50", "--trials", "200"]
Q1, Q3 = "q1-keyword-progesterone", "q3-length-sentence"
LABELS = [{"query_id": Q1, "doc_id": "d2", "violates": 1},
          {"query_id": Q1, "doc_id": "d1", "violates": 0},
          {"query_id": Q3, "doc_id": "x1", "violates": 1}]


@pytest.fixture(scope="module")
def bench_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("papers") / "bench"
    write_records(Benchmark(folder),
                  assembled_records(assemble(GROUPS, _units(), distractors=DISTRACTORS)))
    write_jsonl(folder / "logical" / "negation_labels.jsonl", LABELS)
    return folder


def test_paper_and_trec_names_together_equal_the_python_api(bench_dir):
    done = irforge("eval", str(bench_dir), *ARGS)
    assert done.returncode == 0, done.stderr
    system = json.loads((bench_dir / "eval" / "results.json").read_text())["systems"][0]
    assert set(system["means"]) == {"wise@20", "lsnc@100", "ndcg@10", "bpref"}
    bench = Benchmark(bench_dir)
    retriever = get_retriever("bm25")
    retriever.index(list(bench.corpus()))
    modes = read_modes(bench)
    runs = {mode: retriever.search(queries, 100).scores for mode, (queries, _) in modes.items()}
    qrels = {mode: q for mode, (_, q) in modes.items()}
    wise = infosearch.wise(runs["og"], runs["changed"], runs["reversed"], qrels["og"],
                           qrels["changed"], k=20)
    assert system["means"]["wise@20"] == pytest.approx(mean(wise))
    assert system["paper_per_query"]["wise@20"] == pytest.approx(wise)
    lsnc = comlq.lsnc(runs["og"], {Q1: {"d2"}, Q3: {"x1"}}, 100)
    assert system["means"]["lsnc@100"] == pytest.approx(mean(lsnc))
    assert set(system["ci"]) == {"wise@20", "lsnc@100", "ndcg@10", "bpref"}
    assert "bm25-lucene" in done.stdout and "Traceback" not in done.stderr


def test_missing_files_are_named_with_the_command_that_writes_them(bench_dir, tmp_path):
    plain = tmp_path / "plain"
    bench = Benchmark(plain)
    source = Benchmark(bench_dir)
    bench.write_corpus(source.corpus())
    bench.write_queries(source.queries())
    bench.write_qrels(source.qrels("test"))
    done = irforge("eval", str(plain), *ARGS)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    message = " ".join(done.stderr.split())
    assert "wise@20 needs qrels/og.tsv" in message and "irforge build instructions" in message
    assert "lsnc@100 needs logical/negation_labels.jsonl" in message
    assert "irforge build logical" in message
    assert not (plain / "eval").exists()  # nothing was run before the check
