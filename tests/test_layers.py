"""Imports run one way: a lower layer never imports a higher one, and packages form no cycle.

Every ``import`` in irforge is read from the source (imports inside functions included, since
heavy and optional imports live there). A module belongs to its top-level package: a verb
module (``<package>/cli.py``) is part of its package, each method's layout is part of ``core``
(``core/layouts``), ``recipe`` is a package like any other; only the package root
(``irforge/__init__.py``, the Python API) and ``__main__`` stand above them all. ``cli`` is the
verbs' shared toolkit (options, output, writers): it imports only ``core``, so every package's
verbs may use it. FORBIDDEN is the import table of docs/design.md ("Imports").
"""

from __future__ import annotations

import ast
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent

BASE = {"core"}
#: the package root (the Python API) and ``python -m irforge``: above every package
TOP = "api"
ALL = "*"
# package -> packages it must never import ("*": every package but core)
FORBIDDEN: dict[str, set[str]] = {
    "core": {ALL},
    "cli": {ALL},  # the verbs' toolkit: core only
    "data": {ALL},
    "validators": {ALL},  # pure statistics: core only
    "scale": {ALL},
    # first-stage retrievers: below eval (which scores and reranks), check (the target
    # index) and corpus (pooling)
    "retrievers": {"llm", "prompts", "steps", "eval", "check", "corpus", "generators",
                   "methods", "annotation", "audits", "demo", "recipe", "validators", "export",
                   "viewer", "testing", "data"},
    "llm": {"generators", "methods", "eval", "corpus", "annotation", "demo", "recipe", "steps",
            "validators", "audits", "check", "data", "export", "viewer", "retrievers"},
    "prompts": {"llm", "generators", "methods", "eval", "corpus", "annotation", "demo",
                "recipe", "steps", "validators", "audits", "check", "data", "export",
                "viewer", "retrievers"},
    "steps": {"generators", "methods", "eval", "corpus", "annotation", "demo", "recipe",
              "validators", "audits", "export", "viewer", "retrievers"},
    "eval": {"generators", "methods", "check", "annotation", "demo", "recipe", "audits",
             "validators", "export", "viewer", "corpus"},
    # the rules about a query are check's; the gates (steps) apply them
    "check": {"generators", "methods", "steps", "eval", "annotation", "demo", "recipe",
              "audits", "validators", "export", "viewer", "corpus"},
    "corpus": {"generators", "methods", "check", "eval", "annotation", "demo", "recipe",
               "audits", "validators", "export", "viewer"},
    "generators": {"demo", "recipe", "annotation", "audits", "export", "viewer"},
    "methods": {"demo", "recipe", "annotation", "audits", "export", "viewer"},
    "annotation": {"demo", "recipe", "audits", "export", "viewer"},
    "audits": {"demo", "recipe", "export", "viewer"},
    "export": {"generators", "methods", "demo", "recipe", "annotation", "audits", "viewer"},
    "viewer": {"generators", "methods", "demo", "recipe", "annotation", "audits", "export"},
    "testing": {"generators", "methods", "eval", "corpus", "annotation", "demo", "recipe",
                "steps", "validators", "audits", "check", "export", "viewer", "data",
                "retrievers"},
    "recipe": {"demo"},
}


def _unit(module: str) -> str:
    """The package a module belongs to: its top-level package (verb modules and layouts
    included), or ``api`` for the package root and ``__main__``."""
    parts = module.split(".")[1:]
    if not parts or parts[0] == "__main__":
        return TOP
    return parts[0]


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    out = {}
    for path in root.rglob("*.py"):
        parts = ("irforge", *path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _imports(path: Path, module: str) -> set[str]:
    found: set[str] = set()
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import: resolve against this module's package
                parts = module.split(".")
                base = parts[: len(parts) - node.level + 1] if is_package else \
                    parts[: -node.level]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.add(target)
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] == "irforge"}


def _edges(root: Path = PACKAGE) -> dict[str, set[tuple[str, str, str]]]:
    """Package -> (imported package, importing module, imported module) across packages."""
    modules = _modules(root)
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


def wrong_way_imports(root: Path = PACKAGE) -> list[str]:
    """Every import against FORBIDDEN, as ``module imports target (package -> package)``."""
    wrong = []
    for src, targets in _edges(root).items():
        banned = FORBIDDEN.get(src, set())
        for dst, module, target in sorted(targets):
            if dst in banned or (ALL in banned and dst not in BASE):
                wrong.append(f"{module} imports {target} ({src} -> {dst})")
    return sorted(wrong)


def package_cycles(root: Path = PACKAGE) -> list[str]:
    """Each pair of packages importing each other, with one import of each direction."""
    edges = _edges(root)
    found = []
    for src, targets in sorted(edges.items()):
        for dst, module, target in sorted(targets):
            back = sorted((m, t) for d, m, t in edges.get(dst, ()) if d == src)
            if back and src < dst and not any(line.startswith(f"{src} <-> {dst}:")
                                              for line in found):
                found.append(f"{src} <-> {dst}: {module} imports {target}; "
                             f"{back[0][0]} imports {back[0][1]}")
    # longer cycles (a -> b -> c -> a), once the two-way pairs above are set aside
    graph = {src: {dst for dst, _, _ in targets if not any(
        line.startswith((f"{src} <-> {dst}:", f"{dst} <-> {src}:")) for line in found)}
        for src, targets in edges.items()}
    longer = _first_cycle(graph)
    if longer:
        found.append("package cycle: " + " -> ".join(longer))
    return found


def test_no_lower_layer_imports_a_higher_one() -> None:
    wrong = wrong_way_imports()
    assert not wrong, "imports against the layering:\n" + "\n".join(wrong)


def test_packages_form_no_cycle() -> None:
    cycles = package_cycles()
    assert not cycles, "package cycles:\n" + "\n".join(cycles)


def test_check_eval_and_validators_import_no_generator() -> None:
    """What a benchmark folder holds is read through core (layouts, TREC files), never
    through the generator that wrote it."""
    reach = {src: {dst for dst, _, _ in targets} for src, targets in _edges().items()}
    for package in ("check", "eval", "validators"):
        assert not reach.get(package, set()) & {"generators", "methods"}, package


def test_every_package_is_in_the_import_table() -> None:
    """A new package must say what it may import (docs/design.md, "Imports")."""
    packages = {_unit(name) for name in _modules()} - {TOP}
    assert packages <= set(FORBIDDEN) | {"demo"}, packages - set(FORBIDDEN)


def test_the_design_notes_print_this_import_table() -> None:
    """docs/design.md ("Imports") shows FORBIDDEN row by row: the table a maintainer reads is
    the one the test enforces."""
    design = Path(__file__).resolve().parents[1] / "docs" / "design.md"
    rows = {}
    for line in design.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 2 and cells[0].startswith("`") and cells[0].count("`") == 2:
            never = cells[1]
            rows[cells[0].strip("`")] = {ALL} if never == "every package but core" else \
                set(never.split(", "))
    assert rows == FORBIDDEN


def _copy_package(tmp_path: Path) -> Path:
    """The irforge sources (Python files only) copied under ``tmp_path``."""
    root = tmp_path / "irforge"
    shutil.copytree(PACKAGE, root, ignore=lambda folder, names: [
        name for name in names if (not name.endswith(".py")
        and not (Path(folder) / name).is_dir()) or name == "__pycache__"])
    return root


@pytest.mark.parametrize(("planted", "source", "expected"), [
    # a rule module of check importing a generator's steps
    ("check/planted.py", "from irforge.generators.multicon import build\n",
     "(check -> generators)"),
    # a verb module counts as its package: eval's verb importing a generator inside a function
    ("eval/cli.py", "\ndef f():\n    from irforge.generators.logical import build\n",
     "(eval -> generators)"),
    # a method layout lives in core, which imports nothing else
    ("core/layouts/planted.py", "from irforge.steps.gates import QueryGates\n",
     "(core -> steps)"),
    # the rules are check's and the gates apply them: never the other way
    ("check/form.py", "\nfrom irforge.steps.gates import QueryGates\n", "(check -> steps)"),
    # the target index takes retrievers from below, never eval's runner
    ("check/target_index.py", "\ndef f():\n    from irforge.eval.runner import evaluate\n",
     "(check -> eval)"),
    # a relative import resolves like an absolute one
    ("validators/planted.py", "from ..eval import evaluate\n", "(validators -> eval)"),
])
def test_the_layer_rules_fail_on_a_planted_back_import(tmp_path: Path, planted: str,
                                                       source: str, expected: str) -> None:
    """The rules are live: the same checker, run on a copy of the package with one
    back-import planted, reports it."""
    root = _copy_package(tmp_path)
    assert wrong_way_imports(root) == wrong_way_imports()  # the copy reads as the package
    with (root / planted).open("a", encoding="utf-8") as handle:  # appended to a verb module
        handle.write(source)
    new = sorted(set(wrong_way_imports(root)) - set(wrong_way_imports()))
    assert new and all(expected in line for line in new), new


@pytest.mark.parametrize(("source", "expected"), [
    # generators import check: a check module importing a generator closes a two-way cycle
    ("from irforge.generators.intents import build\n", "check <-> generators:"),
    # eval imports steps and steps import check: check importing eval closes a longer one
    ("from irforge.eval import runner\n", "package cycle: "),
])
def test_the_cycle_rule_fails_on_a_planted_cycle(tmp_path: Path, source: str,
                                                 expected: str) -> None:
    root = _copy_package(tmp_path)
    (root / "check" / "planted.py").write_text(source, encoding="utf-8")
    cycles = set(package_cycles(root)) - set(package_cycles())
    assert any(line.startswith(expected) for line in cycles), cycles


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
