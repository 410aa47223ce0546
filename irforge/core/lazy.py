"""Package re-exports loaded on first use, so importing one light submodule stays light.

``from irforge.generators.multicon.steps import ...`` runs the package's ``__init__``;
with :func:`lazy_exports` that ``__init__`` names its public objects without importing the
LLM steps behind them until someone asks for one.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__``: ``exports[name]`` is the submodule that defines ``name``."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{exports[name]}"), name)

    return __getattr__
