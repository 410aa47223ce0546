"""Tokens per second of the embedded model decoding several requests per llama.cpp batch
(irforge/llm/llama_batched.py) against the same requests one at a time, in one run.

    python benchmarks/llama_batched.py [--requests 16] [--slots 4] [--max-tokens 96] [--smoke]

Every request asks for a JSON answer to one schema (the grammar), greedy, seed 0, as the
engine sends them; both sides run the same loaded GGUF on this machine, one after the other,
after one warm-up request each. Prints completion tokens per second of each, the ratio
(batched / one at a time), how many answers parse against the schema, and how many batched
answers are byte-identical to the one-at-a-time answer of the same request.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import time

from bench_smoke import parse

os.environ.setdefault("HF_HUB_OFFLINE", "1")

TOPICS = ("flood defences on a tidal river", "sourdough starter care", "bicycle chain wear",
          "glazing stoneware at cone six", "amateur radio antenna tuning", "composting in winter",
          "repairing a dry stone wall", "keeping bees in a city", "sharpening a chisel",
          "reading a nautical chart", "pruning apple trees", "insulating a loft",
          "brewing green tea", "fixing a dripping tap", "planting a hedgerow", "tuning a violin")
SCHEMA = {"type": "object", "properties": {"query": {"type": "string"},
                                           "keywords": {"type": "array",
                                                        "items": {"type": "string"}}},
          "required": ["query", "keywords"]}


def messages(index: int) -> list[dict[str, str]]:
    topic = TOPICS[index % len(TOPICS)]
    return [{"role": "system", "content": "You answer with one JSON object and nothing else."},
            {"role": "user", "content": (
                f"A reader wants a guide about {topic} (request {index}). Write the search "
                "query they would type and three keywords. Answer as "
                '{"query": "...", "keywords": ["...", "...", "..."]}.')}]


async def _gather(backend, count: int, params: dict) -> list:
    return await asyncio.gather(*(backend.complete(messages(i), SCHEMA, params, 600.0)
                                  for i in range(count)))


async def _one_by_one(backend, count: int, params: dict) -> list:
    return [await backend.complete(messages(i), SCHEMA, params, 600.0) for i in range(count)]


def timed(run) -> tuple[float, list]:
    start = time.perf_counter()
    answers = asyncio.run(run)
    return time.perf_counter() - start, answers


def valid(text: str) -> bool:
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    return isinstance(data, dict) and isinstance(data.get("query"), str) and \
        isinstance(data.get("keywords"), list)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=16)
    parser.add_argument("--slots", type=int, default=4, help="sequences per batch")
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parse(parser, argv, requests=4, slots=2, max_tokens=12)
    from irforge.llm.backends import LlamaBackend
    from irforge.llm.degeneration import LLAMA_REPEAT_PENALTY
    from irforge.llm.settings import resolve_model

    spec = resolve_model("embedded", None, {}, None)
    params = {"temperature": 0.0, "max_tokens": args.max_tokens, "seed": 0,
              "repeat_penalty": LLAMA_REPEAT_PENALTY}
    single, batched = LlamaBackend(spec, slots=1), LlamaBackend(spec, slots=args.slots)
    asyncio.run(_one_by_one(single, 1, params))  # load the model; warm both paths
    asyncio.run(_gather(batched, 1, params))
    alone_s, alone = timed(_one_by_one(single, args.requests, params))
    together_s, together = timed(_gather(batched, args.requests, params))
    alone_tokens = sum(a.completion_tokens for a in alone)
    together_tokens = sum(a.completion_tokens for a in together)
    same = sum(a.text == b.text for a, b in zip(alone, together, strict=True))
    print(f"model {spec.name}, {args.requests} requests, max_tokens {args.max_tokens}, "
          f"{os.cpu_count()} cores")
    print(f"one at a time : {alone_tokens:5d} tokens in {alone_s:6.2f} s = "
          f"{alone_tokens / alone_s:6.1f} tokens/s; valid JSON "
          f"{sum(valid(a.text) for a in alone)}/{args.requests}")
    print(f"batched ({args.slots} slots): {together_tokens:5d} tokens in {together_s:6.2f} s = "
          f"{together_tokens / together_s:6.1f} tokens/s; valid JSON "
          f"{sum(valid(a.text) for a in together)}/{args.requests}")
    print(f"tokens/s ratio batched / one at a time: "
          f"{(together_tokens / together_s) / (alone_tokens / alone_s):.2f}; "
          f"answers identical to one at a time: {same}/{args.requests}")


if __name__ == "__main__":
    main()
