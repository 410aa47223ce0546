"""Each method names its files once, in generators/<method>/layout.py; nothing else spells them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import irforge
from irforge.core.errors import IrforgeError
from irforge.core.layout import BEIR_FILES, Layout
from irforge.core.layouts.instructions import LAYOUT as INSTRUCTIONS
from irforge.core.layouts.intents import LAYOUT as INTENTS
from irforge.core.layouts.logical import LAYOUT as LOGICAL
from irforge.core.layouts.multicon import LAYOUT as MULTICON
from irforge.core.layouts.relevance import LAYOUT as RELEVANCE

LAYOUTS = (INSTRUCTIONS, INTENTS, LOGICAL, MULTICON, RELEVANCE)
PACKAGE = Path(irforge.__file__).resolve().parent


def test_each_layout_names_its_files_relative_and_once() -> None:
    for layout in LAYOUTS:
        paths = list(layout.files.values())
        assert len(set(paths)) == len(paths), layout.method
        assert all(not Path(p).is_absolute() and ".." not in Path(p).parts for p in paths)
        assert layout.every_file()[: len(BEIR_FILES)] == BEIR_FILES
        assert layout.builder.startswith("irforge ")


def test_paths_and_unknown_roles(tmp_path: Path) -> None:
    assert MULTICON.path(tmp_path, "task3") == tmp_path / "multicon" / "task3.jsonl"
    assert LOGICAL.relative("negation_labels") == "logical/negation_labels.jsonl"
    (tmp_path / "multicon").mkdir()
    (tmp_path / "multicon" / "task1.jsonl").write_text("", encoding="utf-8")
    assert MULTICON.present(tmp_path) == ["task1"]
    with pytest.raises(IrforgeError, match=r"no file 'task4'.*sources, task1"):
        MULTICON.relative("task4")
    with pytest.raises(TypeError):
        Layout("x", "irforge x", {"a": "a.jsonl"}).files["b"] = "b"  # type: ignore[index]


def _string_constants(path: Path) -> list[tuple[int, str]]:
    """String literals of a module, docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef
                                | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and id(node) not in docstrings]


def test_no_module_but_the_layouts_spells_a_method_file() -> None:
    """Before, multicon/writer.py, check/methods.py, eval/task_metrics.py and
    eval/metrics/papers.py each spelled the MultiConIR and logical files."""
    names = {Path(p).name for layout in LAYOUTS for p in layout.files.values()
             if not p.startswith("qrels/")}
    spelled = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.parent.name == "layouts" and path.parent.parent.name == "core":
            continue
        for line, text in _string_constants(path):
            if any(name in text for name in names):
                spelled.append(f"{path.relative_to(PACKAGE)}:{line}: {text!r}")
    assert not spelled, "method files spelled outside their Layout:\n" + "\n".join(spelled)
