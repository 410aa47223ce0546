"""The part of the engine its batch path and its dry-run forecast drive, as a protocol.

``batch.py`` and ``estimate.py`` take any object with this surface, so they need not import
``engine.py`` (which imports them when a run asks for a batch or an estimate): the llm
package's modules form no import cycle (tests/test_layers.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel

    from irforge.llm.accounting import StepStats
    from irforge.llm.backends import Backend
    from irforge.llm.cache import ResponseCache
    from irforge.llm.completion import Completion
    from irforge.llm.jobs import Job, Plan
    from irforge.llm.result import LLMResult
    from irforge.llm.settings import ModelSpec


class EngineCore(Protocol):
    """What :class:`irforge.llm.engine.Engine` offers its batch and estimate helpers."""

    spec: ModelSpec
    backend: Backend
    cache: ResponseCache | None
    params: dict[str, Any]
    timeout: float
    max_retries: int
    batch: bool
    batch_discount: float
    batch_ids: list[str]
    notes: list[str]
    prompts: dict[str, str]
    steps: dict[str, StepStats]
    total: StepStats
    budget_usd: float | None
    budget_stopped: bool
    _reserved: float

    @property
    def price(self) -> Any: ...

    async def arun(self, items: Sequence[Mapping[str, Any]], template_name: str,
                   output_model: type[BaseModel], step: str | None = None, *,
                   sample: int = 0, max_tokens: int | None = None) -> list[LLMResult]: ...

    def _plan(self, template_name: str, output_model: type[BaseModel], step: str | None,
              sample: int = 0, max_tokens: int | None = None) -> Plan: ...

    def _prepare(self, index: int, item: Mapping[str, Any], plan: Plan) -> Job | LLMResult: ...

    def _resolve_cached(self, items: Sequence[Mapping[str, Any]], plan: Plan,
                        stats: StepStats, results: list[LLMResult | None]) -> list[Job]: ...

    def _budget_reservation(self, job: Job) -> float | None: ...

    def _advance(self, job: Job, completion: Completion) -> LLMResult | None: ...

    async def _drive(self, pending: list[Job], stats: StepStats,
                     results: list[LLMResult | None], label: str,
                     on_result: Any = None) -> None: ...

    def _tally(self, results: list[LLMResult | None], stats: StepStats) -> list[LLMResult]: ...
