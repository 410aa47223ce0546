"""Build one MultiConIR benchmark folder: generate on the build runner, write, finish.

The step-by-step verb (``irforge build multicon``), the recipe's ``build-multicon`` stage
(``irforge.methods.multicon``) and the demo all call :func:`build_multicon`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from irforge.core.errors import IrforgeError
from irforge.core.records import Doc
from irforge.generators.multicon.build import MulticonConfig, generate
from irforge.generators.multicon.writer import write_output
from irforge.llm.protocol import EngineLike
from irforge.steps.runner import BuildRunner, engine_entry, target_line


def build_multicon(bench_dir: Path, docs: list[Doc], config: MulticonConfig,
                   engine: EngineLike, source: str = "",
                   given: dict[str, list[str]] | None = None,
                   echo: Callable[[str], Any] | None = None,
                   runner: BuildRunner | None = None) -> dict[str, int]:
    """Generate and write a MultiConIR benchmark; returns the counts stored in the manifest.

    The yield table goes to ``echo`` (when given) and into the manifest; then the runner's
    :meth:`~irforge.steps.runner.BuildRunner.finish` ends it: a budget stop (exit 4) first,
    a build that kept no source document (exit 3) second, after writing the failures.
    """
    if not docs:
        raise IrforgeError("no documents to build from (is the corpus empty?)")
    runner = runner or BuildRunner.open(engine, bench_dir, "multicon")
    output = generate(docs, engine, config, given, runner=runner)
    counts = write_output(runner.bench, output, {
        "config": config.params(), "engine": engine_entry(engine),
        "details": {"source_corpus": source, "source_docs": len(docs),
                    "validation": runner.validation()}})
    if echo is not None:
        echo(runner.yields.render())
        if target_line(runner.validation()):
            echo(target_line(runner.validation()))
    runner.finish(len(output.sources), "MultiConIR source documents")
    return counts


def derived_domain(docs: list, seed: int):
    """The domain of a corpus no built-in domain is named for (term clusters, no model)."""
    from irforge.generators.domain_profile import derive_domain

    if not docs:
        raise ValueError("no documents to derive a domain from (is the corpus empty?)")
    return derive_domain(docs, seed)
