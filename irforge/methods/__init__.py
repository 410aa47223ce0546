"""The registry of benchmark-building methods: each lives in ``irforge.generators.<method>``
(its ``method.py`` exports ``METHOD``) behind the contract of :mod:`irforge.steps.method`."""

from __future__ import annotations

from irforge.methods.registry import get_method, registry
from irforge.steps.method import Built, Inputs, Method, MethodConfig

__all__ = ["Built", "Inputs", "Method", "MethodConfig", "get_method", "registry"]
