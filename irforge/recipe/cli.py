"""``irforge run`` (a recipe end to end) and ``irforge recipe init`` (a recipe to edit)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from irforge.core.errors import IrforgeError


def run_command(
    bench_dir: Annotated[Path, typer.Argument(help="Benchmark folder to build (or resume).")],
    recipe: Annotated[Path | None, typer.Option(
        "--recipe", help="Recipe YAML (default: BENCH_DIR/recipe.yaml, written by an earlier "
                         "run: re-running resumes).")] = None,
    redo_from: Annotated[str | None, typer.Option(
        "--from", help="Redo this stage and every later one (names: see the run's output).")]
    = None,
) -> None:
    """Build an evaluated benchmark from documents, as a recipe says (resumable)."""
    from irforge.recipe.model import load_recipe
    from irforge.recipe.report import write_report
    from irforge.recipe.run import run_recipe
    from irforge.steps.yields import YieldTable, folder_yield

    path = recipe or Path(bench_dir) / "recipe.yaml"
    if recipe is None and not path.is_file():
        raise IrforgeError(f"no recipe given and none in {bench_dir}: pass --recipe FILE "
                           "(irforge recipe init FILE writes one to edit)")
    loaded = load_recipe(path)
    report = run_recipe(loaded, Path(bench_dir), redo_from, echo=typer.echo)
    methods = loaded.methods.chosen()
    written = write_report(report, methods)
    table = YieldTable()
    for method in methods:
        table.extend(folder_yield(report.out / method).steps.values())
    if table.steps:
        typer.echo("\n" + table.render())
    typer.echo(f"\nreport: {written}")
    typer.echo(f"LLM cost of this run: ${report.spent_usd:.4f}")
    if report.failed:
        typer.echo(f"{len(report.failed)} stage(s) did not finish:", err=True)
        for result in report.failed:
            typer.echo(f"  {result.name}: {result.detail}", err=True)
        for line in closing_advice(report.failed[0].name, table, path, Path(bench_dir)):
            typer.echo(line, err=True)
        raise typer.Exit(report.exit_code)


def closing_advice(stage: str, table, recipe: Path, bench_dir: Path) -> list[str]:
    """What to change before re-running: the cache replays every model answer, so the same
    command would fail the same way."""
    from irforge.steps.yields import advice_for

    lines = [f"  {reason} (x{count}): {advice_for(reason)}"
             for reason, count in table.reasons().most_common(3)]
    head = ["what to change (commonest rejections):"] if lines else []
    return [*head, *lines,
            "re-running unchanged replays the cached model answers and fails the same way: "
            f"edit {recipe} (model, samples, sizes, corpus) or fix the input, then run "
            f"`irforge run {bench_dir} --recipe {recipe} --from {stage}` (finished stages "
            "and answered calls are reused)"]


def init_command(
    path: Annotated[Path, typer.Argument(help="Recipe file to write.")] = Path("recipe.yaml"),
    force: Annotated[bool, typer.Option(help="Overwrite an existing file.")] = False,
) -> None:
    """Write the documented default recipe to edit."""
    from irforge.core.jsonl import atomic_open
    from irforge.recipe.model import DEFAULT_RECIPE

    if path.exists() and not force:
        raise IrforgeError(f"{path} exists; pass --force to overwrite it")
    with atomic_open(path, "wb") as handle:  # a killed init leaves no half recipe
        handle.write(Path(DEFAULT_RECIPE).read_bytes())
    typer.echo(f"wrote {path}: set corpus.input, pick methods, then: irforge run BENCH "
               f"--recipe {path}")
