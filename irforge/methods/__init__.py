"""Benchmark-building methods behind one contract (:mod:`irforge.methods.contract`).

Each module here exports ``METHOD``: a pydantic ``Config``, the method's steps and a build
function on the shared :class:`~irforge.steps.runner.BuildRunner`; the method-specific logic
stays in ``irforge.generators.<method>``.
"""

from __future__ import annotations

from irforge.methods.contract import Built, Inputs, Method, MethodConfig
from irforge.methods.registry import get_method, registry

__all__ = ["Built", "Inputs", "Method", "MethodConfig", "get_method", "registry"]
