"""The LLM engine: every generator calls models only through :class:`Engine`."""

from __future__ import annotations

from irforge.llm.accounting import Estimate
from irforge.llm.engine import Engine
from irforge.llm.result import STATUSES, LLMResult, Status

__all__ = ["STATUSES", "Engine", "Estimate", "LLMResult", "Status"]
