"""irforge: build IR benchmarks from a corpus with LLMs and humans in the loop, then evaluate."""

from __future__ import annotations

__version__ = "0.1.0"
