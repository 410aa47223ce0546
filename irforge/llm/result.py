"""What one engine call produced: an explicit status, the value, the raw text and the cost."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

# degenerate: the backend stopped an output that was looping (irforge/llm/degeneration.py)
Status = Literal["ok", "invalid", "refused", "truncated", "degenerate", "error", "skipped"]
STATUSES: tuple[Status, ...] = ("ok", "invalid", "refused", "truncated", "degenerate", "error",
                                "skipped")


@dataclass
class LLMResult:
    """The outcome for one item: never a silent None; ``value`` is set only when status is ok.

    ``attempts`` counts requests sent to the provider for this item in this run (retries and
    re-asks included; 0 when every answer came from the cache).
    """

    status: Status
    value: Any = None
    raw: str | None = None
    error: str | None = None
    model: str = ""
    prompt_id: str = ""
    prompt_hash: str = ""
    cached: bool = False
    attempts: int = 0
    retries: int = 0
    reasks: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    demo_grade: bool = False
    step: str = ""
    metadata: dict[str, Any] = field(default_factory=dict)
    # per generated token (token, logprob, top alternatives), when the engine asked for them
    logprobs: tuple[Any, ...] | None = None

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready view (the value dumped through pydantic when it is a model)."""
        value = self.value
        if hasattr(value, "model_dump"):
            value = value.model_dump(mode="json")
        return {
            "status": self.status, "value": value, "raw": self.raw, "error": self.error,
            "model": self.model, "prompt_id": self.prompt_id, "prompt_hash": self.prompt_hash,
            "cached": self.cached, "attempts": self.attempts, "retries": self.retries,
            "reasks": self.reasks, "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd,
            "demo_grade": self.demo_grade, "step": self.step,
        }
