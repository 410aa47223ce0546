"""Engine throughput against the scripted OpenAI-compatible server (not part of CI).

In one run, for each scenario (concurrency C, server latency L; ideal = C / L req/s), the
same number of requests go through, in this order:

1. raw aiohttp: one pooled session, POST /v1/chat/completions with ``json=`` and decode the
   answer with ``.json()``, messages rendered before the clock starts (the ceiling for any
   Python client on this machine);
2. the engine on the direct path (fresh cache);
3. bare ``litellm.acompletion`` with a semaphore (the ceiling for the litellm path);
4. the engine on the litellm path (fresh cache);
5. the engine again on the direct path's cache: hits per second (3 re-runs);
6. (once) the engine's own CPU per request against an in-process backend that answers at
   once, with and without the cache: the part of the client cost that is irforge's.

The peers send exactly the engine's requests (same messages with the schema instruction,
temperature, max_tokens, seed and json_schema response format, no Authorization header),
built before the clock starts.

Each client first sends one warm-up round of C requests. Steps 1-2 repeat ``--rounds``
times (3-4 in the first ``--litellm-rounds``), each engine path right after its peer, since
the load of a shared machine drifts. Printed per round: req/s, ratio to ideal, client CPU per
request, the direct engine's ratio to raw aiohttp and the litellm engine's ratio to bare
litellm, whether every request was ok and the cache holds every answer; then the median
ratios.

    python benchmarks/llm_engine.py --requests 2000 --scenarios 64:0.05,256:0.02 \
        --rounds 3 --litellm-rounds 3
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from bench_smoke import parse

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pydantic import BaseModel

from irforge.llm import Engine
from irforge.llm.backends import keyless_openai_client, response_format_field
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion
from irforge.llm.structured import with_instructions
from irforge.prompts import get_template

TEMPLATE = "llm.try"


class Label(BaseModel):
    label: int


SCHEMA = Label.model_json_schema()


@dataclass
class Figure:
    """One client's pass over the requests."""

    name: str
    seconds: float
    requests: int
    cpu: float  # client process CPU seconds (the server runs in its own process)
    note: str = ""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def start_server(latency: float) -> tuple[subprocess.Popen, str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "irforge.testing.scripted", "--latency", str(latency),
         "--answer", '{"label": 1}'],
        stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    line = process.stdout.readline().split()
    if not line or line[0] != "PORT":
        process.kill()
        raise SystemExit("scripted server did not start")
    return process, f"http://127.0.0.1:{line[1]}/v1"


def items(tag: str, count: int) -> list[dict[str, str]]:
    return [{"prompt": f"{tag} request {i}"} for i in range(count)]


def request(item: dict[str, str]) -> tuple[list[dict[str, str]], dict[str, object]]:
    """The messages and fields the engine sends for ``item`` (schema instruction included,
    temperature, max_tokens, seed, json_schema response format), so every client sends
    the same bytes to the server."""
    schema = SCHEMA
    messages = with_instructions(get_template(TEMPLATE).render(**item), schema)
    return messages, {"temperature": 0.0, "max_tokens": 32, "seed": 0,
                      "response_format": response_format_field("json_schema", schema)}


class Clock:
    """Wall and process CPU time of the measured part of a peer (not its set-up)."""

    def __enter__(self) -> Clock:
        self.start, self.cpu_start = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.seconds = time.perf_counter() - self.start
        self.cpu = time.process_time() - self.cpu_start


async def raw_aiohttp(url: str, batch: list[dict[str, str]], concurrency: int) -> Clock:
    """Pooled aiohttp, C workers: messages rendered up front, each body serialized (``json=``)
    and each answer decoded (``.json()``) in the loop; the floor of any client's overhead."""
    import aiohttp

    bodies = []
    for item in batch:
        messages, fields = request(item)
        bodies.append({"model": "bench", "messages": messages, **fields})
    queue = iter(bodies)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def worker() -> None:
            for body in queue:
                async with session.post(url + "/chat/completions", json=body) as response:
                    data = await response.json()
                    assert data["choices"][0]["message"]["content"]

        with Clock() as clock:
            await asyncio.gather(*(worker() for _ in range(concurrency)))
        return clock


async def bare_litellm(url: str, batch: list[dict[str, str]], concurrency: int) -> Clock:
    """Bare litellm with a semaphore: the floor any engine built on it can reach."""
    import litellm

    semaphore = asyncio.Semaphore(concurrency)
    requests = [request(item) for item in batch]
    client = keyless_openai_client(url)  # the same keyless client the engine's litellm path uses

    async def one(messages: list[dict[str, str]], fields: dict[str, object]) -> None:
        async with semaphore:
            await litellm.acompletion(model="openai/bench", api_base=url, messages=messages,
                                      num_retries=0, max_retries=0, drop_params=True,
                                      timeout=120.0, client=client, **fields)

    with Clock() as clock:
        await asyncio.gather(*(one(*fields) for fields in requests))
    return clock


def run_engine(url: str, cache: Path, batch: list[dict[str, str]], concurrency: int,
               transport: str, step: str) -> tuple[Figure, list]:
    with Engine("openai/bench", api_base=url, cache_path=cache, concurrency=concurrency,
                progress=False, max_tokens=32, transport=transport) as engine:
        start, cpu = time.perf_counter(), time.process_time()
        results = engine.run(batch, TEMPLATE, Label, step=step)
        seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
        calls = engine.total.requests
    ok = sum(r.status == "ok" for r in results)
    with ResponseCache(cache) as stored:
        entries = stored.stats()["entries"]
    note = (f"ok={ok}/{len(batch)} calls={calls} cache entries={entries} "
            f"{'COMPLETE' if ok == entries == len(batch) else 'INCOMPLETE'}")
    return Figure(f"engine {transport}", seconds, len(batch), cpu, note), results


def peer(name: str, coro_fn, url: str, batch: list[dict[str, str]],
         concurrency: int) -> Figure:
    clock = asyncio.run(coro_fn(url, batch, concurrency))
    return Figure(name, clock.seconds, len(batch), clock.cpu)


PEERS = {"engine direct": "raw aiohttp", "engine litellm": "bare litellm"}


def one_round(url: str, requests: int, concurrency: int, folder: Path, tag: str,
              litellm: bool) -> list[Figure]:
    """Each client once, a peer right before its engine path (the load drifts over time)."""
    figures = [peer("raw aiohttp", raw_aiohttp, url, items(f"{tag} raw", requests),
                    concurrency),
               run_engine(url, folder / f"{tag}-direct.sqlite", items(f"{tag} direct", requests),
                          concurrency, "direct", "cold")[0]]
    if litellm:
        figures.append(peer("bare litellm", bare_litellm, url,
                            items(f"{tag} litellm", requests), concurrency))
        figures.append(run_engine(url, folder / f"{tag}-litellm.sqlite",
                                  items(f"{tag} engine-litellm", requests), concurrency,
                                  "litellm", "cold")[0])
    return figures


def scenario(requests: int, concurrency: int, latency: float, folder: Path, rounds: int,
             litellm_rounds: int) -> None:
    ideal = concurrency / latency
    server, url = start_server(latency)
    tag = f"c{concurrency}"
    try:
        warm = items(f"{tag} warm", concurrency)
        asyncio.run(raw_aiohttp(url, warm, concurrency))
        run_engine(url, folder / f"{tag}-warm-d.sqlite", warm, concurrency, "direct", "warm")
        asyncio.run(bare_litellm(url, warm, concurrency))
        run_engine(url, folder / f"{tag}-warm-l.sqlite", warm, concurrency, "litellm", "warm")
        played = [one_round(url, requests, concurrency, folder, f"{tag}r{index}",
                            index < litellm_rounds) for index in range(rounds)]
        cached_rates, hits = [], 0
        for _ in range(3):
            figure, results = run_engine(url, folder / f"{tag}r0-direct.sqlite",
                                         items(f"{tag}r0 direct", requests), concurrency,
                                         "direct", "cold")
            cached_rates.append(figure.rate)
            hits += sum(r.cached for r in results)
    finally:
        server.kill()
        server.wait()
    print(f"\nrequests={requests} concurrency={concurrency} latency={latency * 1000:.0f}ms "
          f"ideal={ideal:.0f} req/s cpus={os.cpu_count()} load={os.getloadavg()[0]:.1f}")
    ratios: dict[str, list[float]] = {name: [] for name in PEERS}
    for index, figures in enumerate(played):
        by_name = {figure.name: figure for figure in figures}
        for figure in figures:
            line = (f"  round {index + 1} {figure.name:15s} {figure.rate:8.1f} req/s  "
                    f"ratio to ideal {figure.rate / ideal:.3f}  client CPU "
                    f"{figure.cpu / figure.requests * 1e6:5.0f} us/req")
            if figure.name in PEERS:
                other = by_name[PEERS[figure.name]]
                ratios[figure.name].append(figure.rate / other.rate)
                line += f"  ratio to {other.name} {figure.rate / other.rate:.3f}"
            print(line + (f"  ({figure.note})" if figure.note else ""))
    for name, values in ratios.items():
        if values:
            print(f"  {name} / {PEERS[name]}: median {statistics.median(values):.3f} "
                  f"(rounds: {' '.join(f'{v:.3f}' for v in values)})")
    print(f"  engine cached   {' '.join(f'{rate:.0f}' for rate in cached_rates)} hits/s "
          f"(3 re-runs of round 1's direct cache; cached results {hits}/{3 * requests})")


class InstantBackend:
    """Answers at once in-process: what is left of a run's CPU is the engine's own."""

    name = "instant"
    response_format = "json_schema"

    def session(self) -> contextlib.AbstractAsyncContextManager:
        return contextlib.nullcontext()

    async def complete(self, messages, schema, params, timeout) -> Completion:
        await asyncio.sleep(0)
        return Completion('{"label": 1}', "stop", None, 30, 5)


def engine_overhead(requests: int, folder: Path) -> None:
    """The engine's own CPU per request (render, key, cache, limits, validation, results)."""
    figures = []
    for use_cache in (False, True):
        with Engine("openai/bench", api_base="http://127.0.0.1:9/v1", concurrency=64,
                    cache_path=folder / f"overhead-{use_cache}.sqlite", use_cache=use_cache,
                    progress=False, price_per_mtok=(0.0, 0.0), max_tokens=32) as engine:
            engine._backend = InstantBackend()
            engine.run(items("overhead warm", 200), TEMPLATE, Label)
            cpu = time.process_time()
            engine.run(items("overhead", requests), TEMPLATE, Label)
            figures.append((time.process_time() - cpu) / requests * 1e6)
    print(f"\nengine's own CPU per request (in-process instant backend, no HTTP): "
          f"{figures[1]:.0f} us with the cache, {figures[0]:.0f} us without")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--scenarios", default="64:0.05,256:0.02",
                        help="comma-separated CONCURRENCY:LATENCY_SECONDS pairs")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of raw aiohttp + direct engine per scenario")
    parser.add_argument("--litellm-rounds", type=int, default=3,
                        help="how many of those rounds also run bare litellm + litellm engine")
    args = parse(parser, None, requests=40, scenarios="8:0.005", rounds=1, litellm_rounds=1)
    with tempfile.TemporaryDirectory() as folder:
        for pair in args.scenarios.split(","):
            concurrency, latency = pair.split(":")
            scenario(args.requests, int(concurrency), float(latency), Path(folder),
                     args.rounds, args.litellm_rounds)
        engine_overhead(args.requests, Path(folder))


if __name__ == "__main__":
    main()
