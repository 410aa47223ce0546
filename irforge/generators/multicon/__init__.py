"""MultiConIR: multi-condition benchmarks from any corpus and domain (docs/multicon.md)."""

from __future__ import annotations

from irforge.core.lazy import lazy_exports

# public name -> the submodule defining it, imported on first use (irforge/core/lazy.py)
_EXPORTS = {
    "BUILTIN_DOMAINS": "domains",
    "Domain": "domains",
    "MulticonConfig": "build",
    "MulticonOutput": "build",
    "build_variants": "assembly",
    "generate": "build",
    "get_domain": "domains",
    "load_domains": "domains",
    "plan_padding": "assembly",
    "write_output": "writer",
}

__getattr__ = lazy_exports(__name__, _EXPORTS)
__all__ = sorted(_EXPORTS)
