"""irforge: build IR benchmarks from a corpus with LLMs and humans in the loop, then evaluate."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from irforge.recipe.model import Recipe
    from irforge.recipe.run import RunReport

from irforge.core.version import __version__

__all__ = ["__version__", "run"]


def run(recipe: Recipe | Mapping[str, Any] | str | Path, out: str | Path,
        redo_from: str | None = None, echo: Callable[[str], None] = print) -> RunReport:
    """Build an evaluated benchmark in ``out`` as ``recipe`` says (a ``Recipe``, a mapping,
    or a YAML path), in this process; returns the run's ``RunReport`` (``exit_code``,
    per-stage results, ``spent_usd``). The same pipeline as ``irforge run`` (docs/recipe.md).
    """
    from irforge.recipe.model import Recipe, load_recipe
    from irforge.recipe.run import run_recipe

    if isinstance(recipe, (str, Path)):
        recipe = load_recipe(Path(recipe))
    elif not isinstance(recipe, Recipe):
        recipe = Recipe.model_validate(recipe)
    return run_recipe(recipe, Path(out), redo_from, echo=echo)
