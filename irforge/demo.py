"""``make demo``: build a small benchmark from the shipped sample corpus, evaluate, report.

Each stage is one entry of :data:`STAGES`; a stage reads and writes the demo folder, so the
demo shows exactly what a user would run by hand.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from irforge.bench import Benchmark
from irforge.validators.demo_stage import stage_audit


@dataclass(frozen=True)
class DemoContext:
    out: Path
    model: str | None

    @property
    def bench(self) -> Benchmark:
        return Benchmark(self.out)


def stage_corpus(ctx: DemoContext) -> str:
    from irforge.sample import sample_docs

    count = ctx.bench.write_corpus(sample_docs())
    ctx.bench.record_step("demo.corpus", {"source": "irforge sample corpus", "docs": count})
    return f"wrote {count} sample documents to {ctx.bench.corpus_path}"


def stage_eval(ctx: DemoContext) -> str:
    """Evaluate BM25 and the embedded dense model on the demo folder and print the table."""
    from irforge.eval.demo import run_eval_stage

    return run_eval_stage(ctx.out)


STAGES: list[tuple[str, Callable[[DemoContext], str]]] = [
    ("corpus", stage_corpus),
    ("audit", stage_audit),
    ("eval", stage_eval),
]


def run_demo(out: Path, model: str | None = None) -> list[tuple[str, str]]:
    """Run every demo stage in order; returns (stage, summary) pairs."""
    ctx = DemoContext(out=Path(out), model=model)
    ctx.out.mkdir(parents=True, exist_ok=True)
    results = []
    for name, stage in STAGES:
        summary = stage(ctx)
        typer.echo(f"[demo:{name}] {summary}")
        results.append((name, summary))
    return results


def demo_command(
    out: Annotated[Path, typer.Option(help="Folder for the demo benchmark.")] = Path("demo-bench"),
    model: Annotated[str | None, typer.Option(help="LLM to use (default: embedded local model).")]
    = None,
) -> None:
    """Build a small benchmark from the shipped sample corpus, evaluate retrievers, report."""
    run_demo(out, model)
