"""Imports run one way: a lower layer never imports a higher one, and packages form no cycle.

Every ``import`` in irforge is read from the source (imports inside functions included, since
heavy and optional imports live there). ``<package>/cli.py`` modules, the ``cli``
package and ``demo`` form the command-line layer on top; rules below are about the
library code under it (docs/design.md, "Layout"). ``core`` (records, files, errors, redaction,
locks) imports nothing else of irforge; each method's ``generators/<method>/layout.py`` (the
"layouts" unit) imports only ``core``, so ``check`` and ``eval`` may read it.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent

BASE = {"core"}
# unit -> units it must never import
FORBIDDEN: dict[str, set[str]] = {
    **{name: {"*"} - BASE for name in BASE},
    # generators/<method>/layout.py name a method's files; check and eval read them
    "layouts": {"*"},
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
    "generators": {"demo", "cli", "annotation", "audits"},
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
    if len(parts) == 3 and parts[0] == "generators" and parts[2] == "layout":
        return "layouts"
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


def _module_edges(package: str) -> dict[str, set[str]]:
    """Imports between the modules of one package (``from pkg import submodule`` is an edge to
    the submodule, not to the package's ``__init__``)."""
    modules = _modules()
    inside = {name for name in modules if name == package or name.startswith(package + ".")}
    graph: dict[str, set[str]] = defaultdict(set)
    for module in inside:
        for node in ast.walk(ast.parse(modules[module].read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = module if modules[module].name == "__init__.py" else \
                    module.rsplit(".", 1)[0]
                if node.level:
                    parts = base.split(".")[: len(base.split(".")) - node.level + 1]
                    origin = ".".join([*parts, node.module] if node.module else parts)
                else:
                    origin = node.module or ""
                targets = [f"{origin}.{alias.name}" if f"{origin}.{alias.name}" in modules
                           else origin for alias in node.names]
            for target in targets:
                while target not in modules and "." in target:
                    target = target.rsplit(".", 1)[0]
                if target in inside and target != module:
                    graph[module].add(target)
    return graph


def _first_cycle(graph: dict[str, set[str]]) -> list[str]:
    state: dict[str, int] = {}
    cycle: list[str] = []

    def visit(node: str, path: list[str]) -> bool:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycle.extend([*(path[path.index(nxt):] if nxt in path else []), node, nxt])
                return True
            if nxt not in state and visit(nxt, [*path, node]):
                return True
        state[node] = 2
        return False

    for start in sorted(graph):
        if start not in state and visit(start, []):
            break
    return cycle


def _packages() -> list[str]:
    return sorted(name for name, path in _modules().items() if path.name == "__init__.py")


@pytest.mark.parametrize("package", _packages())
def test_modules_inside_a_package_form_no_cycle(package: str) -> None:
    """E.g. irforge.llm: batch, engine and estimate, backends and direct, routing and settings
    each imported the other (TYPE_CHECKING and in-function imports count: they are the same
    tangle, only hidden from the interpreter)."""
    cycle = _first_cycle(_module_edges(package))
    assert not cycle, f"import cycle inside {package}: " + " -> ".join(cycle)


def test_the_cycle_checker_sees_a_cycle_inside_a_package() -> None:
    """The rule is live: two modules importing each other are reported."""
    graph = {"irforge.llm.a": {"irforge.llm.b"}, "irforge.llm.b": {"irforge.llm.a"}}
    assert _first_cycle(graph) == ["irforge.llm.a", "irforge.llm.b", "irforge.llm.a"]
    edges = _module_edges("irforge.llm")
    assert "irforge.llm.response_format" in edges["irforge.llm.direct"]  # in-function import
    assert "irforge.llm.host" in edges["irforge.llm.batch"]  # TYPE_CHECKING import
