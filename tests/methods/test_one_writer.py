"""One write path: no generator module writes a benchmark folder through a
:class:`~irforge.core.bench.Benchmark` write method; a build hands its records, logs and
manifest entry to its runner (``BuildRunner.write``/``write_logs``/``record``).

The write methods are found by walking ``core/bench.py`` (every method that takes the folder's
writer lock), so a new one is covered too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent


def write_methods() -> set[str]:
    """Public :class:`Benchmark` methods that take the writer lock (``self.writing()``)."""
    tree = ast.parse((PACKAGE / "core" / "bench.py").read_text(encoding="utf-8"))
    bench = next(node for node in tree.body
                 if isinstance(node, ast.ClassDef) and node.name == "Benchmark")
    return {node.name for node in bench.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
            and node.name != "writing"
            and any(isinstance(call, ast.Call) and ast.unparse(call.func) == "self.writing"
                    for call in ast.walk(node))}


def bench_writes(path: Path) -> list[str]:
    """``line: call`` for every call of a Benchmark write method in ``path``."""
    names = write_methods()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [f"{node.lineno}: {ast.unparse(node.func)}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in names]


def test_the_walk_finds_every_write_method() -> None:
    assert {"write_corpus", "write_queries", "write_qrels", "merge_queries", "add_judgments",
            "add_failures", "replace_logs", "retire_failures", "record_step"} <= write_methods()
    assert not {"corpus", "queries", "manifest", "writing"} & write_methods()


def test_no_generator_writes_through_the_benchmark() -> None:
    found = {path.relative_to(PACKAGE).as_posix(): calls
             for path in sorted((PACKAGE / "generators").rglob("*.py"))
             if (calls := bench_writes(path))}
    assert not found, f"these write the folder themselves, not through the runner: {found}"


def test_the_walk_sees_a_planted_write(tmp_path: Path) -> None:
    planted = tmp_path / "writer.py"
    planted.write_text("def write(bench, rows, runner):\n"
                       "    bench.write_queries(rows)\n"
                       "    runner.bench.record_step('m', {})\n"
                       "    runner.write(rows)\n")
    assert bench_writes(planted) == ["2: bench.write_queries", "3: runner.bench.record_step"]
