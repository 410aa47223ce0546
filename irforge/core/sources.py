"""The query metadata keys that name the passage(s) a query was written from: the one list.

Generators write one of them (``seed_doc_id`` for intents and instructions, ``source_doc``
and ``source_doc_ids`` for logical and multicon...); ``irforge check``, the judge's control
items and the overlap audit read them all through :func:`source_doc_ids`, so a new
generator's key is added here once. (An annotation task's passage list is its own field,
``source_doc_ids``/``doc_ids``: the passages shown, not the source.)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: in order of preference: single-passage keys first, then keys holding a list of passages
SOURCE_KEYS = ("source_doc", "gold_doc_id", "seed_doc_id", "positive_doc_id", "source_doc_id",
               "doc_id", "source_doc_ids", "doc_ids")


def source_doc_ids(metadata: Mapping[str, Any] | None) -> list[str]:
    """Every passage id ``metadata`` names as the query's source, in :data:`SOURCE_KEYS`
    order, each once (a key may hold one id or a list of ids)."""
    found: list[str] = []
    for key in SOURCE_KEYS:
        value = (metadata or {}).get(key)
        values = [value] if isinstance(value, str) else \
            list(value) if isinstance(value, list | tuple) else []
        found.extend(str(item) for item in values if item not in (None, ""))
    return list(dict.fromkeys(found))
