"""``irforge eval --device/--dtype/--batch-size/--batch-tokens``: clear errors, and batch
settings that change nothing in the rankings."""

from __future__ import annotations

import json

import pytest

from irforge.core.bench import Benchmark
from irforge.core.records import Qrel
from irforge.eval import evaluate
from irforge.retrievers.device import placement
from tests.eval.test_cli import irforge


@pytest.fixture(scope="module")
def bench(comlq_sample, tmp_path_factory):
    docs, queries, qrels = comlq_sample
    folder = tmp_path_factory.mktemp("bench")
    bench = Benchmark(folder)
    bench.write_corpus(docs)
    bench.write_queries(queries)
    bench.write_qrels([Qrel(q, d, g) for q, grades in qrels.items() for d, g in grades.items()])
    return folder


@pytest.mark.parametrize(("args", "message"), [
    (["--dtype", "float8"], "unknown dtype 'float8': use auto, float32"),
    (["--device", "tpu"], "unknown device 'tpu': use auto, cpu, cuda or cuda:N"),
    (["--batch-size", "0"], "--batch-size"),
    (["--batch-tokens", "-5"], "--batch-tokens"),
])
def test_bad_device_options_are_clear_errors(bench, args, message):
    done = irforge("eval", str(bench), "--retriever", "dense", *args)
    assert done.returncode == 2, done.stderr
    assert message in " ".join(done.stderr.split())
    assert "Traceback" not in done.stderr


def test_tiny_batches_on_cpu_rank_like_the_default_encoding(bench, comlq_sample,
                                                           comlq_dense_runs):
    _, _, qrels = comlq_sample
    done = irforge("eval", str(bench), "--retriever", "dense", "--device", "cpu", "--dtype",
                   "fp32", "--batch-size", "8", "--batch-tokens", "512", "--metric", "ndcg@10",
                   "--metric", "recall@100", "--no-plots", "--json")
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)["systems"]["dense-minilm"]
    expected = evaluate(qrels, comlq_dense_runs["dense"], ["ndcg@10", "recall@100"])
    # the fixture encoded with the defaults: fp32 on CPU, half precision on a GPU
    tolerance = 1e-3 if placement().dtype == "float32" else 1e-2
    assert got["ndcg@10"] == pytest.approx(expected["ndcg@10"], abs=tolerance)
    assert got["recall@100"] == pytest.approx(expected["recall@100"], abs=tolerance)
