"""Every method by name: how ``irforge run`` finds a method (each module imported on first use,
since each pulls its generator in)."""

from __future__ import annotations

from irforge.steps.method import Method


def registry() -> dict[str, Method]:
    """Every method by name (imported on first use: each pulls its generator in)."""
    from irforge.generators.instructions import method as instructions
    from irforge.generators.intents import method as intents
    from irforge.generators.logical import method as logical
    from irforge.generators.multicon import method as multicon
    from irforge.generators.relevance import method as relevance

    return {module.METHOD.name: module.METHOD
            for module in (intents, logical, multicon, instructions, relevance)}


def get_method(name: str) -> Method:
    """The method called ``name``; an unknown name lists the known ones."""
    from irforge.core.errors import IrforgeError

    methods = registry()
    if name not in methods:
        raise IrforgeError(f"unknown method {name!r}; known: {', '.join(methods)}")
    return methods[name]
