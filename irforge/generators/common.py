"""Helpers every generator shares: turning an engine result that is not ok into a Failure."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from irforge.records import Failure


def failure_from_result(step: str, item_id: str, result: Any,
                        metadata: Mapping[str, Any] | None = None) -> Failure:
    """A Failure naming the engine status and error, with the raw output kept for audit."""
    reason = f"{result.status}: {result.error or 'no detail from the engine'}"
    extra = {"status": result.status, "prompt_id": getattr(result, "prompt_id", None),
             "model": getattr(result, "model", None)}
    return Failure(step=step, item_id=item_id, reason=reason, raw_output=result.raw,
                   metadata={**extra, **dict(metadata or {})})


def unseen_failures(logged: Iterable[Failure], failures: Iterable[Failure]) -> list[Failure]:
    """The failures not already in the log (same step, item and reason): re-runs add no copies."""
    seen = {(f.step, f.item_id, f.reason) for f in logged}
    return [f for f in failures if (f.step, f.item_id, f.reason) not in seen]
