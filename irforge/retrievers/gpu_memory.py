"""Keep libraries that irforge imports from reserving the GPU behind the user's back.

``import bm25s`` pulls in JAX where it is installed, and JAX by default preallocates most of
every GPU's memory on first use, leaving little for the dense models. Before such an import
irforge sets ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` (JAX then allocates as it needs), unless
the user already chose how JAX allocates (any of :data:`XLA_SETTINGS` set in the environment).
It has no effect on a JAX that was imported before.
"""

from __future__ import annotations

import os

XLA_SETTINGS = ("XLA_PYTHON_CLIENT_PREALLOCATE", "XLA_PYTHON_CLIENT_ALLOCATOR",
                "XLA_PYTHON_CLIENT_MEM_FRACTION")


def no_jax_preallocation() -> bool:
    """Set ``XLA_PYTHON_CLIENT_PREALLOCATE=false`` unless the user set an XLA allocator
    variable; True when irforge set it."""
    if any(name in os.environ for name in XLA_SETTINGS):
        return False
    os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
    return True
