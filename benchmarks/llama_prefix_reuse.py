"""Prompt tokens the embedded model evaluates, and its wall time, with llama.cpp's reuse of the
previous request's common token prefix on and off, on the same requests in one run.

    python benchmarks/llama_prefix_reuse.py --requests REQUESTS.jsonl [--steps relevance.cot]
        [--limit 60] [--prompts-dir DIR] [--smoke]
    python benchmarks/llama_prefix_reuse.py --record DEMO_DIR --requests REQUESTS.jsonl

``--record`` runs ``irforge demo --out DEMO_DIR`` (seed ``DEMO_DIR/.irforge/cache.sqlite`` with
a finished demo's cache and it answers from there in seconds) and writes every request the
engine prepares, in order: template, item, schema, params, step. A measurement renders those
items again with the templates in use (or ``--prompts-dir``: e.g. an older copy of
irforge/prompts/templates, for a before/after of a template change) and sends each request,
in the recorded order, to two copies of the embedded model: one keeps its KV cache between
requests (llama.cpp re-evaluates only what follows the common prefix, as in a demo run), the
other starts every request from an empty one. Requests alternate between the two, so both see
the same machine load. Prints prompt tokens evaluated and seconds of each, and how many answers
are byte-identical.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from bench_smoke import parse

os.environ.setdefault("HF_HUB_OFFLINE", "1")

SMOKE_TEMPLATE = "relevance.criterion"
SMOKE_CRITERIA = (("Exactness", "how precisely the passage answers the query"),
                  ("Coverage", "how much of what the query asks the passage covers"))


def smoke_requests() -> list[dict[str, Any]]:
    """Two criterion requests of one pair (the template's example), as the labeler sends them."""
    from irforge.generators.relevance.steps import CriterionScore
    from irforge.llm.structured import output_schema
    from irforge.prompts import get_template

    example = dict(get_template(SMOKE_TEMPLATE).example)
    schema = output_schema(CriterionScore)
    return [{"template": SMOKE_TEMPLATE, "step": SMOKE_TEMPLATE, "schema": schema,
             "item": {**example, "criterion_name": name, "criterion_definition": definition},
             "params": {"max_tokens": 8}} for name, definition in SMOKE_CRITERIA]


def record(demo_dir: Path, out: Path) -> None:
    """Run the demo into ``demo_dir``, writing each request the engine prepares to ``out``."""
    import irforge.llm.engine as engine_module
    from irforge.cli.app import main as cli

    prepare = engine_module.Engine._prepare
    with out.open("w", encoding="utf-8") as sink:
        def recording(self: Any, index: int, item: Any, plan: Any) -> Any:
            job = prepare(self, index, item, plan)
            sink.write(json.dumps({"template": plan.template.name, "step": plan.step,
                                   "item": dict(item), "schema": plan.schema,
                                   "params": {k: plan.params[k] for k in ("max_tokens",)
                                              if k in plan.params}}, default=str) + "\n")
            return job

        engine_module.Engine._prepare = recording
        try:
            sys.argv = ["irforge", "demo", "--out", str(demo_dir)]
            cli()
        except SystemExit as stop:
            if stop.code:
                raise
        finally:
            engine_module.Engine._prepare = prepare


def load_requests(path: Path, steps: set[str], templates: set[str],
                  limit: int) -> list[dict[str, Any]]:
    """Recorded requests of ``steps`` and ``templates`` (all when empty), each first occurrence
    only (a repeat is answered from the response cache and never reaches the model)."""
    seen: set[str] = set()
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        request = json.dumps([row["template"], row["item"], row["schema"]], sort_keys=True)
        if (steps and row["step"] not in steps) or request in seen or \
                (templates and row["template"] not in templates):
            continue
        seen.add(request)
        out.append(row)
    return out[:limit] if limit else out


class Counted:
    """One loaded copy of the model whose prompt evaluations are counted (first eval of each
    request: the prompt tokens after the reused prefix)."""

    def __init__(self, path: Path, reuse: bool) -> None:
        import llama_cpp

        self.llama = llama_cpp.Llama(model_path=str(path), n_ctx=4096, seed=0, verbose=False)
        self.reuse = reuse
        self.evaluated = 0
        self.seconds = 0.0
        self._first = False
        evaluate = self.llama.eval

        def counting(tokens: Any) -> None:
            if self._first:
                self.evaluated += len(tokens)
                self._first = False
            evaluate(tokens)

        self.llama.eval = counting

    def ask(self, backend: Any, messages: list[Any], schema: dict[str, Any],
            params: dict[str, Any]) -> str:
        import irforge.llm.backends as backends

        if not self.reuse:
            self.llama.reset()  # an empty KV cache: the whole prompt is evaluated
        backends.load_llama = lambda *_args, **_kw: self.llama
        self._first = True
        start = time.perf_counter()
        text = backend._complete_sync(messages, schema, params, 600.0).text
        self.seconds += time.perf_counter() - start
        return text


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=Path, help="recorded requests (JSONL)")
    parser.add_argument("--record", type=Path, help="demo folder to replay and record")
    parser.add_argument("--steps", default="", help="comma-separated steps to keep")
    parser.add_argument("--templates", default="", help="comma-separated templates to keep")
    parser.add_argument("--limit", type=int, default=0, help="first N requests (0: all)")
    parser.add_argument("--prompts-dir", type=Path, help="templates to render with")
    args = parse(parser, argv, limit=2)
    if args.record is not None:
        record(args.record, args.requests)
        return
    from irforge.llm.backends import LlamaBackend
    from irforge.llm.degeneration import LLAMA_REPEAT_PENALTY
    from irforge.llm.settings import resolve_model
    from irforge.llm.structured import schema_instruction, with_instructions
    from irforge.prompts import get_template

    steps = {s for s in args.steps.split(",") if s}
    templates = {s for s in args.templates.split(",") if s}
    rows = (smoke_requests() if args.smoke or args.requests is None
            else load_requests(args.requests, steps, templates, args.limit))
    spec = resolve_model("embedded", None, {}, None)
    backend = LlamaBackend(spec)
    on, off = Counted(spec.gguf_path, reuse=True), Counted(spec.gguf_path, reuse=False)
    for model in (on, off):  # warm-up, not counted: the first request builds buffers
        model.ask(backend, [{"role": "user", "content": "Say hi."}], {"type": "object"},
                  {"temperature": 0.0, "max_tokens": 4})
        model.evaluated, model.seconds = 0, 0.0
    same = total = 0
    for row in rows:
        template = get_template(row["template"], args.prompts_dir)
        messages = with_instructions(template.render(**row["item"]), row["schema"],
                                     schema_instruction(row["schema"]))
        params = {"temperature": 0.0, "seed": 0, "repeat_penalty": LLAMA_REPEAT_PENALTY,
                  "max_tokens": 1024, **row["params"]}  # the engine's llama params
        total += sum(len(on.llama.tokenize(m["content"].encode("utf-8"), add_bos=False))
                     for m in messages)
        same += on.ask(backend, messages, row["schema"], params) == \
            off.ask(backend, messages, row["schema"], params)
    load = Path("/proc/loadavg").read_text().split()[:3] if Path("/proc/loadavg").exists() \
        else ["?"]
    print(f"model {spec.name}, {len(rows)} requests ({args.steps or 'all steps'}; "
          f"{args.templates or 'all templates'}), templates {args.prompts_dir or 'shipped'}, "
          f"load {' '.join(load)}")
    print(f"prompt tokens (message text) {total}")
    print(f"prefix reuse on : {on.evaluated:7d} prompt tokens evaluated in {on.seconds:7.1f} s")
    print(f"prefix reuse off: {off.evaluated:7d} prompt tokens evaluated in {off.seconds:7.1f} s")
    print(f"evaluated on/off {on.evaluated / max(off.evaluated, 1):.2f}, wall on/off "
          f"{on.seconds / max(off.seconds, 1e-9):.2f}; answers byte-identical {same}/{len(rows)}")


if __name__ == "__main__":
    main()
