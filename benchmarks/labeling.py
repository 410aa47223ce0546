"""Ensemble labeling throughput against the scripted OpenAI-compatible server (not part of CI).

Builds a benchmark folder with N (query, passage) pairs, starts ``irforge.testing.scripted`` as a
separate process with a fixed latency and per-phase scripted answers, then:
1. peer: bare ``litellm.acompletion`` with a semaphore on a sample of the same prompts;
2. ``label_benchmark`` with all three strategies, fresh cache -> achieved request rate / ideal
   (ideal = concurrency / latency); criterion calls shared by cot and multi_dim hit the cache;
3. the same labeling again on the same cache -> cached re-run time (and requests made: 0).

    python benchmarks/labeling.py --pairs 20000 --concurrency 64 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench_smoke import parse

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from irforge.core.bench import Benchmark  # noqa: E402
from irforge.core.records import Doc, Query  # noqa: E402
from irforge.generators.intents import load_intents  # noqa: E402
from irforge.generators.relevance import LabelSettings, label_benchmark  # noqa: E402
from irforge.llm import Engine  # noqa: E402
from irforge.steps.runner import BuildRunner  # noqa: E402

DOCS_PER_QUERY = 10


def script(latency: float) -> dict:
    """Answers per phase: ALPHA passages are 'Yes' in phase one, BETA passages 'No'."""
    def rule(match: str, answer: dict) -> dict:
        return {"match": match, "actions": [{"kind": "answer", "content": json.dumps(answer)}]}

    return {"latency": latency, "default": {"kind": "answer", "content": "{}"}, "rules": [
        rule('ALPHA\n\nAnswer as {"has_answer"', {"has_answer": "Yes"}),
        rule('BETA\n\nAnswer as {"has_answer"', {"has_answer": "No"}),
        rule('ALPHA\n\nAnswer as {"relevance_score"', {"relevance_score": 3}),
        rule('BETA\n\nAnswer as {"relevance_score"', {"relevance_score": 1}),
        rule('Answer as {"criterion_score"', {"criterion_score": 2}),
        rule('Answer as {"final_score"', {"final_score": 2}),
        rule('Answer as {"final_relevance_score"', {"final_relevance_score": 2}),
    ]}


def start_server(folder: Path, latency: float) -> tuple[subprocess.Popen, str]:
    path = folder / "script.json"
    path.write_text(json.dumps(script(latency)), encoding="utf-8")
    process = subprocess.Popen([sys.executable, "-m", "irforge.testing.scripted", "--script",
                                str(path)], stdout=subprocess.PIPE, text=True,
                               env={**os.environ, "PYTHONPATH": str(ROOT)})
    line = process.stdout.readline().split()
    if not line or line[0] != "PORT":
        process.kill()
        raise SystemExit("scripted server did not start")
    return process, f"http://127.0.0.1:{line[1]}/v1"


def make_bench(folder: Path, pairs: int, seed: int = 0) -> tuple[Benchmark, Path]:
    """Queries x DOCS_PER_QUERY distinct passages each, as a pool file."""
    rng = random.Random(seed)
    n_queries = max(1, pairs // DOCS_PER_QUERY)
    bench = Benchmark(folder / "bench")
    docs = [Doc(f"d{i}", f"passage {i} about flood gauges and shelters "
                f"{rng.randint(0, 10**6)} {'ALPHA' if i % 2 else 'BETA'}")
            for i in range(n_queries * DOCS_PER_QUERY)]
    bench.write_corpus(docs)
    bench.write_queries([Query(f"q{i}", f"question {i} about flood warnings", {"intent": "QA"})
                         for i in range(n_queries)])
    pool = folder / "pool.jsonl"
    with pool.open("w", encoding="utf-8") as handle:
        for i in range(n_queries):
            ids = [f"d{i * DOCS_PER_QUERY + j}" for j in range(DOCS_PER_QUERY)]
            handle.write(json.dumps({"query_id": f"q{i}", "doc_ids": ids}) + "\n")
    return bench, pool


async def peer_litellm(url: str, prompts: list[list[dict]], concurrency: int) -> float:
    """Bare litellm with a semaphore on the same prompts: the floor of any litellm engine."""
    import litellm

    semaphore = asyncio.Semaphore(concurrency)

    async def one(messages: list[dict]) -> None:
        async with semaphore:
            await litellm.acompletion(model="openai/bench-peer", api_base=url, api_key="none",
                                      messages=messages, max_retries=0, max_tokens=32)

    start = time.perf_counter()
    await asyncio.gather(*(one(messages) for messages in prompts))
    return time.perf_counter() - start


def label(bench: Benchmark, pool: Path, url: str, cache: Path,
          concurrency: int) -> tuple[float, dict]:
    with Engine("openai/bench", api_base=url, cache_path=cache, concurrency=concurrency,
                progress=False, max_tokens=32) as engine:
        start = time.perf_counter()
        report = label_benchmark(BuildRunner.open(engine, bench.root, "relevance"), [pool],
                                 load_intents(), LabelSettings())
        seconds = time.perf_counter() - start
        return seconds, {"report": report.counts, "engine": engine.manifest_entry()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=20000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--peer-requests", type=int, default=2000)
    args = parse(parser, None, pairs=40, concurrency=8, latency=0.005, peer_requests=16)
    ideal = args.concurrency / args.latency
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        server, url = start_server(folder, args.latency)
        try:
            bench, pool = make_bench(folder, args.pairs)
            from irforge.prompts import get_template

            template = get_template("relevance.zero_shot")
            peer_prompts = [template.render(query=f"peer question {i}", passage=f"passage {i}",
                                            query_name="query", passage_name="passage",
                                            goal="g", scale=["a", "b", "c", "d"])
                            for i in range(args.peer_requests)]
            peer_seconds = asyncio.run(peer_litellm(url, peer_prompts, args.concurrency))
            cold_seconds, cold = label(bench, pool, url, folder / "cache.sqlite",
                                       args.concurrency)
            warm_seconds, warm = label(bench, pool, url, folder / "cache.sqlite",
                                       args.concurrency)
        finally:
            server.kill()
            server.wait()
    calls = cold["engine"]["calls"]
    rate, peer_rate = calls / cold_seconds, args.peer_requests / peer_seconds
    print(f"pairs={cold['report']['pairs']} strategies=3 concurrency={args.concurrency} "
          f"latency={args.latency * 1000:.0f}ms cpus={os.cpu_count()}")
    print(f"ideal throughput          {ideal:8.1f} req/s")
    print(f"peer (bare litellm)       {peer_rate:8.1f} req/s  ratio to ideal "
          f"{peer_rate / ideal:.3f}  ({args.peer_requests} requests)")
    print(f"labeling, cold cache      {rate:8.1f} req/s  ratio to ideal {rate / ideal:.3f}  "
          f"ratio to peer {rate / peer_rate:.3f}  ({calls} requests, "
          f"{cold['engine']['cache_hits']} shared-criterion cache hits, {cold_seconds:.1f} s, "
          f"{cold['report']['judgments_written']} judgments)")
    print(f"labeling, cached re-run   {warm_seconds:8.1f} s  ({warm['engine']['calls']} requests, "
          f"{warm['engine']['cache_hits']} cache hits, "
          f"{warm['report']['judgments_written']} new judgments)")


if __name__ == "__main__":
    main()
