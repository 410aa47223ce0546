"""Subprocess body for the kill -9 resume test: run the engine against a scripted server."""

from __future__ import annotations

import sys

from pydantic import BaseModel

from irforge.llm import Engine


class Label(BaseModel):
    label: int


def items(count: int) -> list[dict[str, str]]:
    return [{"prompt": f"resume item {i:03d}"} for i in range(count)]


def main() -> None:
    api_base, cache_path, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    transport = sys.argv[4] if len(sys.argv) > 4 else None
    engine = Engine("openai/scripted", api_base=api_base, cache_path=cache_path,
                    concurrency=2, progress=False, transport=transport)
    engine.run(items(count), "llm.try", Label, step="resume")
    print("finished", flush=True)


if __name__ == "__main__":
    main()
