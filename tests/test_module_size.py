"""No module of the package over 500 lines: a file that grows past it is split into modules
whose names say what each part does (the charter's "small modules")."""

from __future__ import annotations

from pathlib import Path

import irforge

PACKAGE = Path(irforge.__file__).resolve().parent
LIMIT = 500


def long_modules(root: Path = PACKAGE, limit: int = LIMIT) -> list[str]:
    """``path: N lines`` for each ``.py`` file under ``root`` longer than ``limit`` lines."""
    found = []
    for path in sorted(root.rglob("*.py")):
        count = len(path.read_text(encoding="utf-8").splitlines())
        if count > limit:
            found.append(f"{path.relative_to(root.parent)}: {count} lines")
    return found


def test_no_module_is_over_500_lines() -> None:
    long = long_modules()
    assert not long, f"modules over {LIMIT} lines (split them):\n" + "\n".join(long)


def test_a_long_module_is_named(tmp_path: Path) -> None:
    """The check sees a planted long file, and only that one."""
    root = tmp_path / "irforge"
    (root / "sub").mkdir(parents=True)
    (root / "short.py").write_text("x = 1\n" * LIMIT, encoding="utf-8")
    (root / "sub" / "long.py").write_text("x = 1\n" * (LIMIT + 1), encoding="utf-8")
    assert long_modules(root) == [f"irforge/sub/long.py: {LIMIT + 1} lines"]
