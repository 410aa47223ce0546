"""Engine throughput against the scripted OpenAI-compatible server (not part of CI).

Starts ``irforge.llm.scripted`` as a separate process with a fixed latency, then:
1. peer: the same requests through bare ``litellm.acompletion`` with a semaphore;
2. the engine: ``Engine.run`` with concurrency C (fresh cache) -> throughput / ideal,
   where ideal = C / latency;
3. the engine again on the same cache -> cache hits per second.

    python benchmarks/llm_engine.py --requests 2000 --concurrency 64 --latency 0.05
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel

from irforge.llm import Engine
from irforge.prompts import get_template


class Label(BaseModel):
    label: int


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "irforge.llm.scripted", "--latency", str(latency),
         "--answer", '{"label": 1}'],
        stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    line = process.stdout.readline().split()
    if not line or line[0] != "PORT":
        process.kill()
        raise SystemExit("scripted server did not start")
    return process, f"http://127.0.0.1:{line[1]}/v1"


async def peer_litellm(url: str, items: list[dict[str, str]], concurrency: int) -> float:
    """Bare litellm with a semaphore: the floor any engine built on it can reach."""
    import litellm

    template = get_template("llm.try")
    semaphore = asyncio.Semaphore(concurrency)

    async def one(item: dict[str, str]) -> None:
        async with semaphore:
            await litellm.acompletion(model="openai/bench-peer", api_base=url, api_key="none",
                                      messages=template.render(**item), max_retries=0)

    start = time.perf_counter()
    await asyncio.gather(*(one(item) for item in items))
    return time.perf_counter() - start


def run_engine(url: str, cache: Path, items: list[dict[str, str]], concurrency: int,
               label: str) -> tuple[float, Engine, list]:
    engine = Engine("openai/bench", api_base=url, cache_path=cache, concurrency=concurrency,
                    progress=False, max_tokens=32)
    start = time.perf_counter()
    results = engine.run(items, "llm.try", Label, step=label)
    return time.perf_counter() - start, engine, results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.05)
    args = parser.parse_args()
    ideal = args.concurrency / args.latency
    server, url = start_server(args.latency)
    try:
        with tempfile.TemporaryDirectory() as folder:
            warm = [{"prompt": f"warm-up {i}"} for i in range(args.concurrency)]
            run_engine(url, Path(folder) / "warm.sqlite", warm, args.concurrency, "warm")
            items = [{"prompt": f"benchmark request {i}"} for i in range(args.requests)]
            peer_items = [{"prompt": f"peer request {i}"} for i in range(args.requests)]
            peer_seconds = asyncio.run(peer_litellm(url, peer_items, args.concurrency))
            cache = Path(folder) / "cache.sqlite"
            seconds, engine, results = run_engine(url, cache, items, args.concurrency, "cold")
            ok = sum(r.status == "ok" for r in results)
            calls = engine.manifest_entry()["calls"]
            engine.close()
            cached_rates, hits, again_calls = [], 0, 0
            for _ in range(3):
                cached_seconds, again, cached = run_engine(url, cache, items,
                                                           args.concurrency, "cached")
                cached_rates.append(args.requests / cached_seconds)
                hits += sum(r.cached for r in cached)
                again_calls += again.manifest_entry()["calls"]
                again.close()
    finally:
        server.kill()
        server.wait()
    rate = args.requests / seconds
    peer_rate = args.requests / peer_seconds
    print(f"requests={args.requests} concurrency={args.concurrency} "
          f"latency={args.latency * 1000:.0f}ms cpus={os.cpu_count()}")
    print(f"ideal throughput       {ideal:8.1f} req/s")
    print(f"peer (bare litellm)    {peer_rate:8.1f} req/s  ratio to ideal {peer_rate / ideal:.3f}")
    print(f"engine, cold cache     {rate:8.1f} req/s  ratio to ideal {rate / ideal:.3f}  "
          f"ratio to peer {rate / peer_rate:.3f}  (ok={ok}, calls={calls})")
    print(f"engine, cached re-runs {' '.join(f'{rate:.0f}' for rate in cached_rates)} hits/s "
          f"(3 re-runs; hits={hits}, calls={again_calls})")


if __name__ == "__main__":
    main()
