"""The one failure format: engine results and validator verdicts -> Failure/Judgment records."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from irforge.core.records import Failure, Judgment

if TYPE_CHECKING:  # irforge.llm's package import loads the engine: keep it out of module load
    from irforge.llm.protocol import ResultLike

# engine statuses another sample cannot fix (budget stop, transport or configuration errors)
FINAL_STATUSES = frozenset({"skipped", "error"})


class Rejected(ValueError):
    """A validator refused a generated value; the message is the reason kept in failures.jsonl."""


def failure_from_result(step: str, item_id: str, result: ResultLike,
                        metadata: Mapping[str, Any] | None = None) -> Failure:
    """A Failure naming the engine status and error, with the raw output kept for audit."""
    reason = f"llm {result.status}: {result.error or 'no value returned'}"
    extra = {"status": result.status, "prompt_id": getattr(result, "prompt_id", None),
             "model": getattr(result, "model", None)}
    return Failure(step=step, item_id=item_id, reason=reason, raw_output=result.raw,
                   metadata={**extra, **dict(metadata or {})})


def result_failure(result: ResultLike, step: str, item_id: str,
                   metadata: Mapping[str, Any] | None = None) -> Failure | None:
    """A Failure for an engine result whose status is not ``ok``; None when the call succeeded."""
    if result.status == "ok" and result.value is not None:
        return None
    return failure_from_result(step, item_id, result, metadata)


def rejection(step: str, item_id: str, reasons: Sequence[str], raw: str | None,
              metadata: Mapping[str, Any] | None = None) -> Failure:
    """A Failure for an output the engine parsed but a validator rejected."""
    return Failure(step=step, item_id=item_id, reason="rejected: " + "; ".join(reasons),
                   raw_output=raw, metadata=dict(metadata or {}))


def rejection_failure(error: Rejected, step: str, item_id: str, raw: str | None,
                      metadata: Mapping[str, Any] | None = None) -> Failure:
    """A Failure for a value the engine returned but a plain-code validator rejected."""
    return rejection(step, item_id, [str(error)], raw, metadata)


def accepted_judgment(result: Any, step: str, query_id: str, doc_id: str,
                      metadata: Mapping[str, Any] | None = None) -> Judgment:
    """Provenance of an accepted LLM output (label 1 = passed validation) for judgments.jsonl."""
    return Judgment(query_id=query_id, doc_id=doc_id, label=1.0, source="llm",
                    prompt_id=result.prompt_id or step, model=result.model or None,
                    raw_output=result.raw, task=step, metadata=dict(metadata or {}))
