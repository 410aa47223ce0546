"""No command-line function over 60 lines: verbs stay thin wrappers over library calls.

Every function (and method) of the command-line layer is measured: ``irforge/cli/``, every
``<package>/cli.py`` and the ``demo`` package. ``BEING_REWRITTEN`` lists the build and label
verbs the Method-contract work replaces; the lead empties it when that lands.
"""

from __future__ import annotations

import ast
from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent
LIMIT = 60
# (module path under irforge/, function): over the limit until the build runner lands
BEING_REWRITTEN = {
    ("generators/instructions/cli.py", "build_command"),
    ("generators/intents/cli.py", "build_intents_command"),
    ("generators/logical/cli.py", "build_logical_command"),
    ("generators/multicon/cli.py", "build_command"),
    ("generators/relevance/cli.py", "label_command"),
}


def cli_modules() -> list[Path]:
    """The modules of the command-line layer (as tests/test_layers.py counts it)."""
    return sorted(path for path in PACKAGE.rglob("*.py")
                  if path.name == "cli.py" or path.relative_to(PACKAGE).parts[0] in
                  {"cli", "demo"})


def long_functions(path: Path, limit: int = LIMIT) -> list[tuple[str, int]]:
    """``(name, lines)`` of each function in ``path`` longer than ``limit`` lines (from its
    ``def`` line to its last line, signature and docstring included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [(node.name, node.end_lineno - node.lineno + 1) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > limit]


def test_no_cli_function_is_over_60_lines() -> None:
    found = {(path.relative_to(PACKAGE).as_posix(), name): lines
             for path in cli_modules() for name, lines in long_functions(path)}
    over = [f"irforge/{module}:{name} has {lines} lines"
            for (module, name), lines in sorted(found.items())
            if (module, name) not in BEING_REWRITTEN]
    assert not over, "CLI functions over 60 lines (move the work into the library):\n" + \
        "\n".join(over)


def test_the_known_list_names_functions_that_exist() -> None:
    """A stale entry would hide nothing; the lead empties the list when the runner lands."""
    for module, name in BEING_REWRITTEN:
        tree = ast.parse((PACKAGE / module).read_text(encoding="utf-8"))
        assert any(isinstance(node, ast.FunctionDef) and node.name == name
                   for node in ast.walk(tree)), (module, name)


def test_the_measure_counts_a_long_function(tmp_path: Path) -> None:
    module = tmp_path / "cli.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    module.write_text(f"def verb():\n{body}\n\n\ndef short():\n    return 1\n")
    assert long_functions(module) == [("verb", LIMIT + 1)]
    assert cli_modules() and all(p.name == "cli.py" or "cli" in p.parts or "demo" in p.parts
                                 for p in cli_modules())
