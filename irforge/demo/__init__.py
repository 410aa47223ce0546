"""``make demo``: build a small benchmark from the shipped sample corpus, evaluate, report.

Each stage is one entry of :data:`STAGES`; a stage reads and writes the demo folder, so the
demo shows exactly what a user would run by hand.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from irforge.cli.options import ApiBaseOption
from irforge.core.bench import Benchmark
from irforge.core.errors import EmptyResultError
from irforge.steps.yields import YieldTable, folder_yield, require_yield


@dataclass(frozen=True)
class DemoContext:
    out: Path
    model: str | None
    api_base: str | None = None  # an OpenAI-compatible server for ``model``

    @property
    def bench(self) -> Benchmark:
        return Benchmark(self.out)


def stage_corpus(ctx: DemoContext) -> str:
    from irforge.data.sample import SAMPLE_LICENSE, sample_docs

    count = ctx.bench.write_corpus(sample_docs())
    ctx.bench.record_step("demo.corpus", {"source": "irforge sample corpus",
                                          "license": SAMPLE_LICENSE, "docs": count})
    return f"wrote {count} sample documents to {ctx.bench.corpus_path}"


def stage_instructions(ctx: DemoContext) -> str:
    from irforge.demo.instructions import demo_stage

    return demo_stage(ctx.out, ctx.model, ctx.api_base)


def stage_logical(ctx: DemoContext) -> str:
    from irforge.demo.logical import demo_stage

    return demo_stage(ctx.out / "logical", ctx.model, ctx.api_base)


def stage_multicon(ctx: DemoContext) -> str:
    from irforge.demo.multicon import demo_stage

    return demo_stage(ctx.out, ctx.model, ctx.api_base)


def stage_intents(ctx: DemoContext) -> str:
    from irforge.demo.intents import run_intents_demo

    return run_intents_demo(ctx.bench, ctx.model, ctx.out / ".irforge" / "cache.sqlite",
                            ctx.api_base)


def stage_seed(ctx: DemoContext) -> str:
    """Write the hand-written seed benchmark (whole documents, document-level qrels) to
    ``seed/``, so the eval stage always has judged queries even when the demo LLM's
    generated items fail validation."""
    from irforge.data.sample import write_seed_benchmark

    folder = ctx.out / "seed"
    counts = write_seed_benchmark(folder)
    return (f"wrote {counts['queries']} hand-written queries, {counts['qrels']} qrels over "
            f"{counts['docs']} whole documents to {folder}")


# (stage name, "module:function"); each function takes the DemoContext, returns a summary line.
STAGES: list[tuple[str, str]] = [
    ("corpus", "irforge.demo:stage_corpus"),
    ("corpus-pipeline", "irforge.demo.corpus:stage_corpus_pipeline"),
    ("llm", "irforge.demo.llm:stage_llm"),
    ("multicon", "irforge.demo:stage_multicon"),
    ("instructions", "irforge.demo:stage_instructions"),
    ("logical", "irforge.demo:stage_logical"),
    ("intents", "irforge.demo:stage_intents"),
    ("seed", "irforge.demo:stage_seed"),
    ("eval", "irforge.demo.eval:stage_eval"),
    ("audit", "irforge.demo.audit:stage_audit"),
]


def stage_function(name: str) -> Callable[[DemoContext], str]:
    """The function of the demo stage called ``name``."""
    module_name, _, attr = dict(STAGES)[name].partition(":")
    return getattr(importlib.import_module(module_name), attr)


def run_demo(out: Path, model: str | None = None, api_base: str | None = None
             ) -> list[tuple[str, str]]:
    """Run every demo stage in order; returns (stage, summary) pairs. A stage that kept
    nothing is reported (EMPTY, and a warning at the end); :class:`EmptyResultError` is raised
    when the generators together kept nothing."""
    ctx = DemoContext(out=Path(out), model=model, api_base=api_base)
    ctx.out.mkdir(parents=True, exist_ok=True)
    results, empty = [], []
    for name, _ in STAGES:
        try:
            summary = stage_function(name)(ctx)
        except EmptyResultError as exc:  # report it, run the other stages, fail at the end
            summary = f"EMPTY: {exc}"
            empty.append(name)
        typer.echo(f"[demo:{name}] {summary}")
        results.append((name, summary))
    table = demo_yield(ctx.out)
    typer.echo(final_report(ctx.out, results, table))
    for name in empty:
        typer.echo(f"WARNING: demo stage {name!r} kept nothing with this model (its reasons "
                   "are above and in failures.jsonl)", err=True)
    # the demo fails when the generators together kept nothing; one empty stage is reported
    require_yield(table, "generated items", " by the demo's generators")
    return results


def _folders(out: Path) -> list[Path]:
    """The demo folder and its sub-folders two levels down (where the stages write)."""
    return [out, *sorted(p for p in out.glob("*") if p.is_dir()),
            *sorted(p for p in out.glob("*/*") if p.is_dir())]


# manifest entries of labeling (what the judge labeled is no generated item): the demo's yield
# table and its empty check leave them out
LABELING = ("relevance",)


def demo_yield(out: Path) -> YieldTable:
    """The yield table of every benchmark folder the demo wrote (generators' steps)."""
    table = YieldTable()
    for folder in _folders(out):
        table.extend(folder_yield(folder, skip=LABELING).steps.values())
    return table


def generated_count_line(out: Path) -> str:
    """How many generated queries the demo kept, per benchmark folder (all passed the gates;
    hand-written seed and pool queries are not counted)."""
    from irforge.demo.eval import generated_queries

    counts = {folder: generated_queries(folder) for folder in _folders(out)}
    parts = [f"{folder.relative_to(out) if folder != out else 'intents (root)'} {count}"
             for folder, count in counts.items() if count or folder == out]
    return f"Generated queries kept: {sum(counts.values())} ({', '.join(parts)})"


def final_report(out: Path, results: list[tuple[str, str]],
                 table: YieldTable | None = None) -> str:
    """The demo's closing summary: one line per stage, the yield table, the eval reports."""
    lines = ["", f"== irforge demo report ({out}) ==",
             *(f"  {name:<16} {summary}" for name, summary in results)]
    if table is not None and table.steps:
        lines += ["", "Yield of the generators (every rejection is in failures.jsonl):",
                  table.render()]
    lines.append(generated_count_line(Path(out)))
    reports = sorted(Path(out).glob("**/eval/report.md"))
    lines.append("Eval reports: " + (", ".join(str(r) for r in reports) if reports else "none"))
    return "\n".join(lines)


def demo_command(
    out: Annotated[Path, typer.Option(help="Folder for the demo benchmark.")] = Path("demo-bench"),
    model: Annotated[str | None, typer.Option(help="LLM to use (default: embedded local model).")]
    = None,
    api_base: ApiBaseOption = None,
) -> None:
    """Build a small benchmark from the shipped sample corpus, evaluate retrievers, report."""
    run_demo(out, model, api_base)
