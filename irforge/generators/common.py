"""Helpers every generator shares: rejections and turning engine results into failures."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from irforge.records import Failure


class Rejected(ValueError):
    """A validator refused a generated value; the message is the reason kept in failures.jsonl."""


class ResultLike(Protocol):
    """The fields of ``irforge.llm.LLMResult`` a generator reads."""

    status: str
    value: Any
    raw: str | None
    error: str | None


def result_failure(result: ResultLike, step: str, item_id: str,
                   metadata: Mapping[str, Any] | None = None) -> Failure | None:
    """A Failure for an engine result whose status is not ``ok``; None when the call succeeded."""
    if result.status == "ok" and result.value is not None:
        return None
    reason = f"llm {result.status}: {result.error or 'no value returned'}"
    return Failure(step=step, item_id=item_id, reason=reason, raw_output=result.raw,
                   metadata=dict(metadata or {}))


def rejection_failure(error: Rejected, step: str, item_id: str, raw: str | None,
                      metadata: Mapping[str, Any] | None = None) -> Failure:
    """A Failure for a value the engine returned but a plain-code validator rejected."""
    return Failure(step=step, item_id=item_id, reason=f"rejected: {error}", raw_output=raw,
                   metadata=dict(metadata or {}))
