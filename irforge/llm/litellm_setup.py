"""litellm's one-time setup: the bundled price map, quiet logs, frozen long-lived objects."""

from __future__ import annotations

import os
from functools import lru_cache


@lru_cache(maxsize=1)
def silence_litellm() -> None:
    """Use litellm's bundled price map (no download at import) and keep it quiet; its
    long-lived objects are then frozen out of garbage collection (irforge/llm/heap.py)."""
    from irforge.llm.heap import freeze_long_lived

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_LOG", "ERROR")
    import litellm

    litellm.suppress_debug_info = True
    freeze_long_lived()
