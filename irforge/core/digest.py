"""Short digests that are the same in every process (``hash()`` of a str is salted per run).

Names derived from content, such as a per-item output model's name (sent to the LLM inside
its schema), must use :func:`short_digest`, or two runs would send different prompts.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any


def short_digest(value: Any, size: int = 8) -> str:
    """The first ``size`` hex digits of the SHA-256 of ``value`` as canonical JSON."""
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:size]
