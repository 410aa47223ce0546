"""Imports run one way: a lower layer never imports a higher one, and packages form no cycle.

Every ``import`` in irforge is read from the source (imports inside functions included, since
heavy and optional imports live there). ``<package>/cli.py`` modules, the ``cli``
package and ``demo`` form the command-line layer on top; rules below are about the
library code under it (docs/design.md, "Layout"). ``core`` (records, files, errors, redaction,
locks) imports nothing else of irforge.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent

BASE = {"core"}
# unit -> units it must never import
FORBIDDEN: dict[str, set[str]] = {
    **{name: {"*"} - BASE for name in BASE},
    "llm": {"generators", "eval", "corpus", "annotation", "demo", "cli", "steps", "validators",
            "audits", "check", "data"},
    "prompts": {"llm", "generators", "eval", "corpus", "annotation", "demo", "cli", "steps",
                "validators", "audits", "check", "data"},
    "steps": {"generators", "eval", "corpus", "annotation", "demo", "cli", "validators",
              "audits"},
    "scale": {"corpus", "eval", "generators", "annotation", "demo", "cli", "audits", "steps"},
    "eval": {"generators", "annotation", "demo", "cli", "audits"},
    "corpus": {"generators", "annotation", "demo", "cli", "audits"},
    "validators": {"generators", "annotation", "demo", "cli", "audits"},
    "generators": {"demo", "cli", "annotation", "audits", "methods"},
    "methods": {"demo", "cli", "annotation", "audits"},
    "annotation": {"demo", "cli"},
    "testing": {"generators", "eval", "corpus", "annotation", "demo", "cli", "steps",
                "validators", "audits", "check"},
    "check": {"demo", "cli", "annotation", "audits"},
    "audits": {"demo", "cli"},
}


def _unit(module: str) -> str:
    """The layer unit of a module: its top-level package, or ``cli`` for the command line."""
    parts = module.split(".")[1:]
    if (not parts or parts[0] in {"cli", "__main__", "recipe"}
            or parts[-1] == "cli"):
        return "cli"
    return parts[0]


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ("irforge", *path.relative_to(PACKAGE).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, module: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against this module's package
                base = module.split(".")[: -node.level or None]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "irforge"}


def _edges() -> dict[str, set[tuple[str, str, str]]]:
    modules = _modules()
    edges: dict[str, set[tuple[str, str, str]]] = defaultdict(set)
    for module, path in modules.items():
        for target in _imports(path, module):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target == "irforge":
                continue
            src, dst = _unit(module), _unit(target)
            if src != dst:
                edges[src].add((dst, module, target))
    return edges


def test_no_lower_layer_imports_a_higher_one() -> None:
    wrong = []
    for src, targets in _edges().items():
        banned = FORBIDDEN.get(src, set())
        for dst, module, target in sorted(targets):
            if dst in banned or ("*" in banned and dst not in BASE):
                wrong.append(f"{module} imports {target} ({src} -> {dst})")
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_packages_form_no_cycle() -> None:
    graph = {src: {dst for dst, _, _ in targets} for src, targets in _edges().items()}
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend([*path, node, nxt])
                return True
            if nxt not in state and visit(nxt, [*path, node]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and visit(start, []):
            break
    assert not cycle, "package cycle: " + " -> ".join(cycle)


def test_the_checker_sees_wrong_way_imports(tmp_path: Path) -> None:
    """The rules are live: an llm module importing a generator would be reported."""
    module = tmp_path / "bad.py"
    module.write_text("def f():\n    from irforge.generators.multicon import build\n")
    found = _imports(module, "irforge.llm.bad")
    assert "irforge.generators.multicon" in found
    assert _unit("irforge.llm.bad") == "llm" and "generators" in FORBIDDEN["llm"]
    assert _unit("irforge.generators.multicon.cli") == "cli"
