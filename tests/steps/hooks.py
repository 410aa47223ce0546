"""A validator hook for the gates' tests: it rejects nothing, records the query it saw,
and may take a while first (as the grounding check's model does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class RecordingHook:
    """Rejects nothing; ``pause`` runs before each query; records ``{"target": {"query": q}}``."""

    def __init__(self, pause: Callable[[], Any] | None = None) -> None:
        self.pause, self.last = pause, ""

    def __call__(self, query: str, source: Any, metadata: Any) -> list[str]:
        if self.pause is not None:
            self.pause()
        self.last = query
        return []

    def recorded(self) -> dict[str, Any]:
        return {"target": {"query": self.last}}

    def settings(self) -> dict[str, Any]:
        return {}
