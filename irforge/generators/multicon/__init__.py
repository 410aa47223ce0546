"""MultiConIR: multi-condition benchmarks from any corpus and domain (docs/multicon.md)."""

from __future__ import annotations

from irforge.generators.multicon.assembly import build_variants, plan_padding
from irforge.generators.multicon.build import MulticonConfig, MulticonOutput, generate
from irforge.generators.multicon.domains import BUILTIN_DOMAINS, Domain, get_domain, load_domains
from irforge.generators.multicon.writer import write_output

__all__ = [
    "BUILTIN_DOMAINS",
    "Domain",
    "MulticonConfig",
    "MulticonOutput",
    "build_variants",
    "generate",
    "get_domain",
    "load_domains",
    "plan_padding",
    "write_output",
]
