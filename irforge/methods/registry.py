"""Every method by name: how ``irforge run`` finds a method (each module imported on first use,
since each pulls its generator in)."""

from __future__ import annotations

from irforge.methods.contract import Method


def registry() -> dict[str, Method]:
    """Every method by name (imported on first use: each pulls its generator in)."""
    from irforge.methods import instructions, intents, logical, multicon, relevance

    return {module.METHOD.name: module.METHOD
            for module in (intents, logical, multicon, instructions, relevance)}


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name lists the known ones."""
    from irforge.core.errors import IrforgeError

    methods = registry()
    if name not in methods:
        raise IrforgeError(f"unknown method {name!r}; known: {', '.join(methods)}")
    return methods[name]
