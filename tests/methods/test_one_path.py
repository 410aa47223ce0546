"""``Method.run`` is the one way a method runs: the build verbs, the recipe's stages and the
demo import no generator code that runs a build; they reach it through the method entry.

"Code that runs a build" is every top-level function of ``irforge/generators/`` that takes
an engine or a runner (by name or by annotation): found by walking the source, so a new one is
covered too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent


def running_code() -> set[str]:
    """Names of the generators' top-level functions that take an engine or a runner."""
    names = set()
    for path in (PACKAGE / "generators").rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef) and path.name != "method.py":
                params = [*node.args.args, *node.args.kwonlyargs]
                named = {arg.arg for arg in params} & {"engine", "runner"}
                typed = {ast.unparse(arg.annotation) for arg in params if arg.annotation} & {
                    "BuildRunner", "EngineLike", "BuildRunner | None", "EngineLike | None"}
                if named or typed:
                    names.add(node.name)
    return names


def generator_names(path: Path) -> set[str]:
    """Names ``path`` imports from ``irforge.generators`` (at any depth of the module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
            and (node.module or "").startswith("irforge.generators") for alias in node.names}


def callers() -> list[Path]:
    """The build verbs, the CLI's build helper, the recipe and the demo."""
    return sorted([*(PACKAGE / "generators").glob("*/cli.py"), PACKAGE / "steps" / "verb.py",
                   *(PACKAGE / "recipe").glob("*.py"), *(PACKAGE / "demo").glob("*.py")])


def direct_calls(path: Path) -> set[str]:
    return generator_names(path) & running_code()


def test_verbs_recipe_and_demo_reach_the_generators_only_through_method_run() -> None:
    found = {path.relative_to(PACKAGE).as_posix(): direct_calls(path) for path in callers()}
    direct = {module: sorted(names) for module, names in found.items() if names}
    assert not direct, f"these call a generator's build code, not Method.run: {direct}"


def test_every_build_verb_runs_its_method() -> None:
    """Each build or label verb module hands its Config to ``run_method`` (Method.run)."""
    for path in (PACKAGE / "generators").glob("*/cli.py"):
        names = {alias.name for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                 if isinstance(node, ast.ImportFrom) and node.module == "irforge.steps.verb"
                 for alias in node.names}
        assert "run_method" in names, path


def test_the_walk_sees_a_planted_direct_call(tmp_path: Path) -> None:
    planted = tmp_path / "cli.py"
    planted.write_text("def verb():\n"
                       "    from irforge.generators.logical.build import build_logical\n"
                       "    from irforge.generators.multicon.folder import build_multicon\n")
    assert direct_calls(planted) == {"build_logical", "build_multicon"}
    assert {"build_intents", "label_benchmark", "build_instructions"} <= running_code()

