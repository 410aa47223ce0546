"""A whole ``irforge run`` (all four methods plus labeling) against the scripted server.

The server (its own process) answers every request after a fixed latency L; the engine of
each LLM stage sends at most C requests at once, so one stage's ideal is C / L requests per
second. Printed: the requests the engines sent (cache misses, counted by the runner) over the
whole run's wall time against that ideal (the corpus,
pooling and eval stages send none, so they pull the ratio down), and the same ratio for the
longest LLM stage alone (its own requests over its own wall time, which for a method that
decides after another includes that wait) and for the busiest one (most requests). With
``--parallel`` (default) independent method stages run at once, each with its own engine,
so the whole run may pass C / L. The corpus is the test suite's scripted documents plus
``--copies`` variants of each (a unique first sentence, so deduplication keeps them; the
script still answers them).
Imports are warmed before the clock starts. ``--timeline`` adds each step's span: when its
first engine call went out and its last came back (seconds from the start), its calls and
items, and the CPU seconds its answers took to judge (validators and gates), so overlap
between steps and where the time goes show. Not part of CI. Example::

    python benchmarks/recipe_throughput.py --concurrency 16 --latency 0.05 --copies 20
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from bench_smoke import parse

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import irforge
from tests.recipe.test_run_all_methods import DOCS, RECIPE, good_script

WORDS = ("amber", "birch", "cedar", "delta", "ember", "fjord", "garnet", "harbor", "indigo",
         "juniper", "kestrel", "lagoon", "meadow", "nutmeg", "orchid", "pepper")


def _documents(folder: Path, copies: int) -> int:
    folder.mkdir(parents=True)
    count = 0
    for key, title, text, _, _ in DOCS:
        for copy in range(copies + 1):
            lead = "" if copy == 0 else (f"Note {WORDS[copy % len(WORDS)]} {copy} on "
                                         f"{WORDS[(copy * 7) % len(WORDS)]} matters here. ")
            (folder / f"{key}-{copy}.txt").write_text(f"{title} {copy or ''}\n\n{lead}{text}\n",
                                                      encoding="utf-8")
            count += 1
    return count


@contextlib.contextmanager
def _server(script_path: Path, latency: float) -> Iterator[str]:
    """The scripted server in its own process (it must not share the run's interpreter)."""
    process = subprocess.Popen(
        [sys.executable, "-m", "irforge.testing.scripted", "--script", str(script_path),
         "--latency", str(latency)], stdout=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    try:
        assert process.stdout is not None
        line = process.stdout.readline().split()
        if not line or line[0] != "PORT":
            raise SystemExit("scripted server did not start")
        yield f"http://127.0.0.1:{line[1]}/v1"
    finally:
        process.terminate()
        process.wait(10)


def _warm_imports() -> None:
    """Import what the stages import before the clock starts (litellm alone takes seconds on
    a loaded machine), so the first LLM stage is not charged for it."""
    import importlib

    for module in ("litellm", "irforge.llm", "irforge.corpus.pipeline", "irforge.corpus.pool",
                   "irforge.eval.runner", "irforge.eval.report", "irforge.methods.registry"):
        importlib.import_module(module)
    from irforge.methods.registry import registry

    registry()


class Timeline:
    """Each step's engine calls (first sent, last back, calls, items) and judging seconds."""

    def __init__(self) -> None:
        self.start = time.perf_counter()
        self.spans: dict[str, list[float]] = {}  # step -> [first, last, calls, items, judge]
        self.lock = threading.Lock()

    def _span(self, step: str) -> list[float]:
        return self.spans.setdefault(step, [float("inf"), 0.0, 0, 0, 0.0])

    def call(self, step: str, began: float, items: int) -> None:
        with self.lock:
            span = self._span(step)
            span[0] = min(span[0], began - self.start)
            span[1] = max(span[1], time.perf_counter() - self.start)
            span[2] += 1
            span[3] += items

    def judged(self, step: str, seconds: float) -> None:
        with self.lock:
            self._span(step)[4] += seconds

    def install(self) -> None:
        """Wrap the engine's ``arun`` and the step judge (this process only)."""
        import irforge.steps.step as step_module
        from irforge.llm.engine import Engine

        arun, judge, timeline = Engine.arun, step_module._judge, self

        async def timed_arun(engine: Any, items: Any, template: str, *args: Any,
                             **kwargs: Any) -> Any:
            began = time.perf_counter()
            try:
                return await arun(engine, items, template, *args, **kwargs)
            finally:
                step = kwargs.get("step") or (args[1] if len(args) > 1 else None)
                timeline.call(str(step or template), began, len(items))

        def timed_judge(step: Any, *args: Any) -> Any:
            began = time.perf_counter()
            try:
                return judge(step, *args)
            finally:
                timeline.judged(step.name, time.perf_counter() - began)

        Engine.arun = timed_arun  # type: ignore[method-assign]
        step_module._judge = timed_judge

    def lines(self) -> list[str]:
        rows = sorted(self.spans.items(), key=lambda pair: pair[1][0])
        return [f"  {step:<32} {first:7.2f} -> {last:7.2f} s {int(calls):5d} calls "
                f"{int(items):5d} items, judging {judge:6.2f} s"
                for step, (first, last, calls, items, judge) in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--copies", type=int, default=20, help="variants of each document")
    parser.add_argument("--serial", action="store_true", help="run stages one at a time")
    parser.add_argument("--timeline", action="store_true", help="print each step's span")
    args = parse(parser, None, concurrency=8, latency=0.005, copies=0)
    ideal = args.concurrency / args.latency
    _warm_imports()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        docs = _documents(root / "docs", args.copies)
        script_path = root / "script.json"
        script_path.write_text(good_script().to_json(), encoding="utf-8")
        with _server(script_path, args.latency) as url:
            recipe = RECIPE.format(url=url).replace(
                "model: openai/scripted",
                f"model: openai/scripted\nconcurrency: {args.concurrency}\n"
                f"parallel: {'false' if args.serial else 'true'}").replace(
                "per_task: 4", f"per_task: {4 * (args.copies + 1)}").replace(
                "per_type: 8", f"per_type: {docs}")
            (root / "recipe.yaml").write_text(recipe, encoding="utf-8")
            timeline = Timeline()
            if args.timeline:
                timeline.install()
            start = timeline.start = time.perf_counter()
            report = irforge.run(root / "recipe.yaml", root / "bench", echo=lambda line: None)
            wall = time.perf_counter() - start
        answered = sum(result.requests for result in report.results)
    print(f"documents {docs}, concurrency {args.concurrency}, latency {args.latency * 1000:.0f} "
          f"ms, ideal {ideal:.0f} req/s, stages {'serial' if args.serial else 'parallel'}, "
          f"exit {report.exit_code}")
    for result in report.results:
        rate = result.requests / result.seconds if result.seconds else 0.0
        print(f"  {result.name:<20} {result.status:<8} {result.seconds:7.2f} s "
              f"{result.requests:6d} req {rate:8.1f} req/s")
    if args.timeline:
        print("steps (first call out -> last answer back, from the start):")
        print("\n".join(timeline.lines()))
    llm = [r for r in report.results if r.requests]
    print(f"whole run: {answered} requests in {wall:.2f} s = {answered / wall:.1f} req/s, "
          f"ratio to ideal {answered / wall / ideal:.2f}")
    # the longest stage by wall time may be one whose queries wait for an earlier method's
    # decisions (docs/recipe.md "Gates across methods"); the busiest sends the most requests
    for label, stage in (("longest LLM stage", max(llm, key=lambda r: r.seconds)),
                         ("busiest LLM stage", max(llm, key=lambda r: r.requests))):
        stage_rate = stage.requests / stage.seconds
        print(f"{label} ({stage.name}): {stage.requests} requests in {stage.seconds:.2f} s "
              f"= {stage_rate:.1f} req/s, ratio to ideal {stage_rate / ideal:.2f}")


if __name__ == "__main__":
    main()
