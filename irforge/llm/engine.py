"""The one entry point generators use: render a prompt per item, ask, validate, cache, account.

``Engine(model).run(items, template_name, OutputModel, step=...)`` returns one
:class:`LLMResult` per item, in order, each with an explicit status; a failing item never
stops the run. ``run_batch`` (or ``Engine(batch=True)``) sends the cache misses through the
provider's batch API instead (irforge/llm/batch.py). This module holds the configuration and
the public API; sending (workers, retries, re-asks, accounting) is irforge/llm/dispatch.py and
the one gate every request passes is irforge/llm/traffic.py. See docs/llm.md.
"""

from __future__ import annotations

import sys
import threading
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from irforge.core.errors import IrforgeError
from irforge.core.redact import register_secret
from irforge.llm.accounting import (
    Estimate,
    Price,
    StepStats,
    context_tokens,
    estimate_tokens,
    litellm_price,
    summary_line,
    unpriced_budget_note,
)
from irforge.llm.backends import Backend, llama_slots, make_backend
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import RequestKeys
from irforge.llm.degeneration import LLAMA_REPEAT_PENALTY
from irforge.llm.dispatch import Dispatcher, ResultSink
from irforge.llm.jobs import Job, Plan
from irforge.llm.profile import model_profile
from irforge.llm.result import LLMResult
from irforge.llm.sampling import default_samples, sample_params
from irforge.llm.settings import load_config, resolve_cache_path, resolve_model
from irforge.llm.structured import output_schema, schema_instruction, with_instructions
from irforge.llm.sync import run_sync
from irforge.llm.traffic import SharedHeaderLimits, Traffic
from irforge.prompts import get_template

if TYPE_CHECKING:
    from irforge.llm.shared import RunShare

LOCAL_TIMEOUT = 600.0  # seconds one embedded/GGUF generation may take by default


class Engine(Dispatcher):
    """Structured LLM calls with cache, limits, retries, budget and accounting.

    One engine, one gate (:attr:`traffic`): every call it serves, from any thread, shares its
    ``concurrency`` slots and RPM/TPM budget (and, passed ``shared=``, the run's).
    """

    streams_results = True  # arun(..., on_result=) reports each answer as it lands

    def __init__(self, model: str | None = None, *, api_base: str | None = None,
                 api_key: str | None = None, cache_path: Path | str | None = None,
                 use_cache: bool = True, concurrency: int | None = None,
                 rpm: float | None = None, tpm: float | None = None, max_retries: int = 4,
                 max_reasks: int = 2, timeout: float | None = None, temperature: float = 0.0,
                 max_tokens: int = 1024, seed: int = 0, budget_usd: float | None = None,
                 prompts_dir: Path | str | None = None, progress: bool | None = None,
                 backoff_initial: float = 1.0, backoff_max: float = 60.0,
                 price_per_mtok: tuple[float, float] | None = None,
                 response_format: str = "auto", batch: bool = False,
                 batch_poll_seconds: float = 30.0, batch_discount: float | None = None,
                 max_wait: float | None = None, wait_report_after: float = 10.0,
                 transport: str | None = None, rate_headers: bool | None = None,
                 logprobs: int = 0, samples: int | None = None,
                 config: Mapping[str, Any] | None = None,
                 bench_dir: Path | str | None = None, shared: RunShare | None = None,
                 profile: str | None = None) -> None:
        cfg = dict(load_config() if config is None else config)
        self.spec = resolve_model(model, api_base, cfg, transport)
        self.demo_grade = self.spec.demo_grade
        # a local model decodes its requests in flight together (llama_slots, backends.py)
        # small: steps keep their constrained choices; capable: open fields (llm/profile.py)
        self.profile = model_profile(self.spec, profile or cfg.get("profile"))
        self.concurrency = int(concurrency or cfg.get("concurrency")
                               or (llama_slots(cfg) if self.spec.backend == "llama" else 8))
        self.rpm = rpm if rpm is not None else cfg.get("rpm")
        self.tpm = tpm if tpm is not None else cfg.get("tpm")
        self.max_retries = max_retries
        self.max_reasks = max_reasks
        # a local model on a busy CPU is slow: its per-call default is longer
        default_timeout = LOCAL_TIMEOUT if self.spec.backend == "llama" else 120.0
        self.timeout = float(timeout if timeout is not None
                             else cfg.get("timeout", default_timeout))
        self.params: dict[str, Any] = {"temperature": temperature, "max_tokens": max_tokens,
                                       "seed": seed}
        if logprobs:  # top alternatives per generated token (part of the cache key)
            self.params["logprobs"] = int(logprobs)
        if self.spec.backend == "llama":
            self.params["repeat_penalty"] = LLAMA_REPEAT_PENALTY
        # best-of-n: samples run_step may draw per item (see irforge/steps/step.py)
        self.samples = int(samples or cfg.get("samples") or default_samples(self.spec.backend))
        if self.samples < 1:
            raise IrforgeError(f"samples must be at least 1, got {self.samples}")
        self.budget_usd = budget_usd if budget_usd is not None else cfg.get("budget_usd")
        self.prompts_dir = prompts_dir
        self.progress = progress
        self.backoff = (backoff_initial, backoff_max)
        # longest sleep a server's Retry-After may impose; longer asks are capped and noted
        self.max_wait = float(max_wait if max_wait is not None else cfg.get("max_wait", 60.0))
        self.wait_report_after = wait_report_after
        self.response_format = response_format
        # batch APIs bill a fraction of the online price (OpenAI: half)
        self.batch_discount = float(batch_discount if batch_discount is not None
                                    else cfg.get("batch_discount", 0.5))
        self.batch = batch  # run() goes through run_batch (the provider's batch API)
        self.batch_poll_seconds = batch_poll_seconds
        self.batch_ids: list[str] = []
        self.notes: list[str] = []
        self._api_key = api_key
        register_secret(api_key)  # blanked out of every stored text, whatever the backend
        self._price_override: Price | None = (
            (price_per_mtok[0] / 1e6, price_per_mtok[1] / 1e6) if price_per_mtok else None)
        # shared: this engine is one stage of a run; the run owns the cache, slots and limits
        self._share = shared
        cache_file = resolve_cache_path(cache_path, cfg, bench_dir)
        self.cache = ((shared.cache(cache_file) if shared is not None
                       else ResponseCache(cache_file)) if use_cache else None)
        self.total = StepStats()
        self.steps: dict[str, StepStats] = {}
        self.prompts: dict[str, str] = {}
        self.budget_stopped = False
        self._reserved = 0.0
        self._fatal: str | None = None
        self._backend: Backend | None = None
        self._traffic: Traffic | None = None
        self._traffic_lock = threading.Lock()  # one gate, even if two threads call at once
        self._config = cfg
        self._context: int | None = None
        self._inflight = weakref.WeakKeyDictionary()
        if price_per_mtok is None and cfg.get("price_per_mtok"):
            given = cfg["price_per_mtok"]
            self._price_override = (float(given[0]) / 1e6, float(given[1]) / 1e6)
        if self.budget_usd is not None and self.price is None:
            self.notes.append(unpriced_budget_note(self.spec, self.budget_usd))
            print(f"warning: {self.notes[-1]}", file=sys.stderr, flush=True)
        # the provider's x-ratelimit-* headers, followed across runs of this engine
        follow = rate_headers if rate_headers is not None else cfg.get("rate_headers", True)
        self.header_limits: SharedHeaderLimits | None = None
        if follow and self.spec.backend != "llama":
            self.header_limits = (SharedHeaderLimits() if shared is None else
                                  shared.header_limits(self.spec.name, self.spec.api_base))

    # configuration -----------------------------------------------------------------------
    @property
    def model(self) -> str:
        return self.spec.name

    @property
    def backend(self) -> Backend:
        if self._backend is None:
            observe = self.header_limits.observe if self.header_limits is not None else None
            self._backend = make_backend(self.spec, self._api_key, self.response_format,
                                         observe=observe, notes=self.notes)
        return self._backend

    @property
    def traffic(self) -> Traffic:
        """The engine's one gate (slots, RPM/TPM, headers): its own, or on the run's share;
        made on first use, so ``concurrency``, ``rpm`` and ``tpm`` set before then count."""
        with self._traffic_lock:
            if self._traffic is None:
                share = self._share
                self._traffic = (Traffic.own(self.concurrency, self.rpm, self.tpm,
                                             self.header_limits) if share is None else
                                 share.traffic(self.concurrency, self.rpm, self.tpm,
                                               self.header_limits))
            return self._traffic

    @property
    def price(self) -> Price | None:
        if self._price_override is not None:
            return self._price_override
        if self.spec.backend == "llama":
            return None
        return litellm_price(self.spec.name)

    def close(self) -> None:
        if self.cache is not None and self._share is None:  # a shared cache is the run's
            self.cache.close()

    def __enter__(self) -> Engine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # public API --------------------------------------------------------------------------
    def run(self, items: Sequence[Mapping[str, Any]], template_name: str,
            output_model: type[BaseModel], step: str | None = None, *, sample: int = 0,
            max_tokens: int | None = None) -> list[LLMResult]:
        """One result per item, in order; works inside or outside a running event loop.

        ``sample`` > 0 asks for another sample of the same requests (best-of-n): temperature
        at least :data:`SAMPLE_TEMPERATURE`, seed + sample, and its own cache entries.
        ``max_tokens`` lowers the engine's token limit for this call (never raises it).
        """
        if self.batch:
            return self.run_batch(items, template_name, output_model, step,
                                  self.batch_poll_seconds, sample=sample, max_tokens=max_tokens)
        return run_sync(self.arun(items, template_name, output_model, step, sample=sample,
                                   max_tokens=max_tokens))

    def run_batch(self, items: Sequence[Mapping[str, Any]], template_name: str,
                  output_model: type[BaseModel], step: str | None = None,
                  poll_seconds: float = 30.0,
                  max_wait_seconds: float | None = None, *, sample: int = 0,
                  max_tokens: int | None = None) -> list[LLMResult]:
        """Like :meth:`run`, through the provider's batch API at its discount (see batch.py)."""
        from irforge.llm.batch import run_batch

        return run_batch(self, items, template_name, output_model, step, poll_seconds,
                         max_wait_seconds, sample=sample, max_tokens=max_tokens)

    async def arun(self, items: Sequence[Mapping[str, Any]], template_name: str,
                   output_model: type[BaseModel], step: str | None = None, *,
                   sample: int = 0, max_tokens: int | None = None,
                   on_result: ResultSink | None = None) -> list[LLMResult]:
        """Async form of :meth:`run`. ``on_result(index, result)`` is called for each item
        as soon as its result is known (cached ones first), so a caller may act on early
        answers while the others are out (irforge/steps/stream.py)."""
        plan = self._plan(template_name, output_model, step, sample, max_tokens)
        step = plan.step
        self.prompts[plan.template.name] = plan.template.hash
        stats = self.steps.setdefault(step, StepStats())
        results: list[LLMResult | None] = [None] * len(items)
        pending = self._resolve_cached(items, plan, stats, results)
        if on_result is not None:
            for index, result in enumerate(results):
                if result is not None:
                    on_result(index, result)
        await self._drive(pending, stats, results, f"{step} ({self.spec.name})",
                          on_result=on_result)
        return self._tally(results, stats)

    def estimate(self, items: Sequence[Mapping[str, Any]], template_name: str,
                 output_model: type[BaseModel]) -> Estimate:
        """What a run would send and cost, sending nothing (``--dry-run``; batch-discounted)."""
        from irforge.llm.estimate import estimate_run

        return estimate_run(self, items, template_name, output_model)

    def summary(self) -> str:
        """One line for CLIs: statuses, calls, cache hits, tokens, dollars, budget stop."""
        return summary_line(self.spec.name, self.total, self.budget_usd, self.demo_grade)

    def request_key_for(self, item: Mapping[str, Any], template_name: str,
                        output_model: type[BaseModel]) -> str:
        """Cache key of the first request for ``item`` (to check what a resume will skip)."""
        job = self._prepare(0, item, self._plan(template_name, output_model, None))
        if isinstance(job, LLMResult):
            raise ValueError(job.error)
        return job.request_key()

    def manifest_entry(self) -> dict[str, Any]:
        """Model, prompts and hashes, calls, cache hits, tokens, cost; never keys."""
        return {**self.spec.public(), "profile": self.profile, "params": dict(self.params),
                "prompts": dict(sorted(self.prompts.items())),
                "calls": self.total.requests, "cache_hits": self.total.cache_hits,
                "retries": self.total.retries, "reasks": self.total.reasks,
                "prompt_tokens": self.total.prompt_tokens,
                "completion_tokens": self.total.completion_tokens,
                "cost_usd": round(self.total.cost_usd, 6), "budget_usd": self.budget_usd,
                "budget_stopped": self.budget_stopped,
                **({"batches": list(self.batch_ids), "batch_discount": self.batch_discount}
                   if self.batch_ids else {}),
                **({"notes": list(self.notes)} if self.notes else {}),
                "statuses": dict(self.total.statuses),
                "steps": {name: stats.as_dict() for name, stats in sorted(self.steps.items())}}

    # internals ---------------------------------------------------------------------------
    def _plan(self, template_name: str, output_model: type[BaseModel],
              step: str | None, sample: int = 0, max_tokens: int | None = None) -> Plan:
        template = get_template(template_name, self.prompts_dir)
        schema = output_schema(output_model)
        params = sample_params(self.params, sample, max_tokens)
        keyed = {**params, "sample": sample} if sample else params
        return Plan(template=template, output_model=output_model, schema=schema,
                     instruction=schema_instruction(schema),
                     keys=RequestKeys(self.spec.name, keyed, schema),
                     step=step or template.name, params=params, model=self.spec.name,
                     demo_grade=self.demo_grade)

    @property
    def context_tokens(self) -> int:
        """Prompt tokens the model accepts (``context_tokens`` in irforge.toml overrides)."""
        if self._context is None:
            self._context = context_tokens(self.spec, self._config.get("context_tokens"))
        return self._context

    def _prepare(self, index: int, item: Mapping[str, Any], plan: Plan) -> Job | LLMResult:
        job = Job(index=index, messages=[], plan=plan)
        try:
            job.messages = with_instructions(plan.template.render(**dict(item)), plan.schema,
                                             plan.instruction)
        except Exception as exc:  # a bad item must not stop the others
            return job.finish("error", error=f"could not render the prompt: {exc}")
        size = estimate_tokens(job.messages) + int(self.params["max_tokens"])
        if size > self.context_tokens:
            return job.finish("skipped", error=(
                f"not sent: the prompt (~{size} tokens with the answer) is past the model's "
                f"context of {self.context_tokens} tokens; shorten or split this input"))
        return job
