"""No command-line function over 60 lines: verbs stay thin wrappers over library calls.

Every function (and method) of the command-line layer is measured: ``irforge/cli/``, every
``<package>/cli.py`` and the ``demo`` package, with no exemption: the build and label verbs
turn their flags into the method's Config and call ``Method.run``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent
LIMIT = 60


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
            for (module, name), lines in sorted(found.items())]
    assert not over, "CLI functions over 60 lines (move the work into the library):\n" + \
        "\n".join(over)


def test_the_measure_counts_a_long_function(tmp_path: Path) -> None:
    module = tmp_path / "cli.py"
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    module.write_text(f"def verb():\n{body}\n\n\ndef short():\n    return 1\n")
    assert long_functions(module) == [("verb", LIMIT + 1)]
    assert cli_modules() and all(p.name == "cli.py" or "cli" in p.parts or "demo" in p.parts
                                 for p in cli_modules())
