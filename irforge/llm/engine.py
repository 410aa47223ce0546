"""The one entry point generators use: render a prompt per item, ask, validate, cache, account.

``Engine(model).run(items, template_name, OutputModel, step=...)`` returns one
:class:`LLMResult` per item, in order, each with an explicit status; a failing item never
stops the run. ``run_batch`` (or ``Engine(batch=True)``) sends the cache misses through the
provider's batch API instead (irforge/llm/batch.py). See docs/llm.md.
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from irforge.core.errors import IrforgeError
from irforge.core.redact import contains_secret, redact, register_secret
from irforge.llm.accounting import (
    BUDGET_SKIP,
    Estimate,
    Price,
    StepStats,
    budget_reservation,
    budget_skip_message,
    context_tokens,
    cost_usd,
    estimate_tokens,
    litellm_price,
    summary_line,
    unpriced_budget_note,
)
from irforge.llm.answer_size import check_answer
from irforge.llm.backends import Backend, llama_slots, make_backend
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion, RequestKeys
from irforge.llm.degeneration import LLAMA_REPEAT_PENALTY
from irforge.llm.header_limits import HeaderLimits
from irforge.llm.jobs import Job, Plan
from irforge.llm.limits import RateLimiter
from irforge.llm.profile import model_profile
from irforge.llm.progress import RunProgress
from irforge.llm.result import LLMResult
from irforge.llm.retry import is_retryable, status_code, wait_seconds
from irforge.llm.sampling import default_samples, sample_params
from irforge.llm.settings import load_config, resolve_cache_path, resolve_model
from irforge.llm.structured import output_schema, schema_instruction, with_instructions
from irforge.llm.sync import run_sync
from irforge.llm.waits import Waits
from irforge.prompts import get_template

if TYPE_CHECKING:
    from irforge.llm.shared import RunShare

# errors that will fail every other request the same way: stop sending after the first
FATAL_STATUS = frozenset({401, 403, 404})
LOCAL_TIMEOUT = 600.0  # seconds one embedded/GGUF generation may take by default


class Engine:
    """Structured LLM calls with cache, limits, retries, budget and accounting."""

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
        self._limiter: RateLimiter | None = None
        self._waits: Waits | None = None
        self._config = cfg
        self._context: int | None = None
        self._inflight: dict[str, asyncio.Future[Completion]] = {}
        if price_per_mtok is None and cfg.get("price_per_mtok"):
            given = cfg["price_per_mtok"]
            self._price_override = (float(given[0]) / 1e6, float(given[1]) / 1e6)
        if self.budget_usd is not None and self.price is None:
            self.notes.append(unpriced_budget_note(self.spec, self.budget_usd))
            print(f"warning: {self.notes[-1]}", file=sys.stderr, flush=True)
        # the provider's x-ratelimit-* headers, followed across runs of this engine
        follow = rate_headers if rate_headers is not None else cfg.get("rate_headers", True)
        self.header_limits: HeaderLimits | None = None
        if follow and self.spec.backend != "llama":
            self.header_limits = (HeaderLimits() if shared is None else
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
                   sample: int = 0, max_tokens: int | None = None) -> list[LLMResult]:
        """Async form of :meth:`run`."""
        plan = self._plan(template_name, output_model, step, sample, max_tokens)
        step = plan.step
        self.prompts[plan.template.name] = plan.template.hash
        stats = self.steps.setdefault(step, StepStats())
        results: list[LLMResult | None] = [None] * len(items)
        pending = self._resolve_cached(items, plan, stats, results)
        await self._drive(pending, stats, results, f"{step} ({self.spec.name})")
        return self._tally(results, stats)

    async def _drive(self, pending: list[Job], stats: StepStats,
                     results: list[LLMResult | None], label: str,
                     looked_up: bool = True) -> None:
        """Solve ``pending`` with ``concurrency`` workers, filling ``results`` by index."""
        # asyncio locks belong to one loop: a limiter per drive; the header state persists
        # (an engine of a run draws on the run's shared limiter instead, see _send)
        self._limiter = (RateLimiter(self.rpm, self.tpm, headers=self.header_limits)
                         if self._share is None else None)
        self._inflight = {}  # futures belong to one loop too
        with RunProgress(self.progress, label, len(results)) as bar:
            self._waits = waits = Waits(self.wait_report_after, bar.say, self.notes)
            bar.advance(len(results) - len(pending), self.total.cost_usd)
            if not pending:
                return
            queue = iter(pending)

            async def worker() -> None:
                for job in queue:
                    try:
                        results[job.index] = await self._solve(job, stats, looked_up)
                    except Exception as exc:  # e.g. the cache disk is full: keep going
                        results[job.index] = job.finish("error", error=self._describe(exc))
                    bar.advance(1, self.total.cost_usd, "budget stop" if self.budget_stopped
                                else "")

            ticker = asyncio.ensure_future(waits.watch(bar.waiting))
            async with self.backend.session():
                try:
                    await asyncio.gather(*(worker() for _ in range(min(self.concurrency,
                                                                       len(pending)))))
                finally:
                    ticker.cancel()
                    self._flush_cache()

    def _flush_cache(self) -> None:
        """Commit the answers of the last loop turn; a failure is noted, results stand."""
        if self.cache is None:
            return
        try:
            self.cache.flush()
        except sqlite3.Error as exc:
            self.notes.append(f"could not store answers in the cache {self.cache.path}: "
                              f"{exc}; this run's results are complete, a re-run asks again")

    def _tally(self, results: list[LLMResult | None], stats: StepStats) -> list[LLMResult]:
        """Count the statuses of a finished run; every item must have its result."""
        if self.cache is not None:
            self.cache.flush_hits()
        final = [result for result in results if result is not None]
        assert len(final) == len(results)
        for result in final:  # say what the run spent in the end, not when the item stopped
            if result.status == "skipped" and (result.error or "").startswith(BUDGET_SKIP):
                result.error = budget_skip_message(self.budget_usd, self.total.cost_usd)
        for result in final:
            for target in (stats, self.total):
                target.items += 1
                target.statuses[result.status] += 1
        return final

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

    def _resolve_cached(self, items: Sequence[Mapping[str, Any]], plan: Plan,
                        stats: StepStats, results: list[LLMResult | None]) -> list[Job]:
        """Fill ``results`` for every item the cache answers; return the jobs still to run."""
        jobs: list[Job] = []
        for index, item in enumerate(items):
            job_or_result = self._prepare(index, item, plan)
            if isinstance(job_or_result, LLMResult):
                results[index] = job_or_result
            else:
                jobs.append(job_or_result)
        if self.cache is None:
            return jobs
        keys = [job.request_key() for job in jobs]
        found = self.cache.get_many(keys)
        pending = []
        for job, key in zip(jobs, keys, strict=True):
            completion = found.get(key)
            done = None
            if completion is not None:
                stats.cache_hits += 1
                self.total.cache_hits += 1
                done = self._advance(job, completion)
                if done is None:  # a cached re-ask chain: follow it
                    done = self._from_cache(job, stats)
            if done is None:
                pending.append(job)
            else:
                results[job.index] = done
        return pending

    def _from_cache(self, job: Job, stats: StepStats) -> LLMResult | None:
        """Follow the item's conversation through the cache as far as it goes."""
        if self.cache is None:
            return None
        while True:
            completion = self.cache.get(job.request_key())
            if completion is None:
                return None
            stats.cache_hits += 1
            self.total.cache_hits += 1
            done = self._advance(job, completion)
            if done is not None:
                return done

    async def _solve(self, job: Job, stats: StepStats, looked_up: bool = True) -> LLMResult:
        # looked_up: the caller already found no cached answer for this conversation
        while True:
            done = None if looked_up else self._from_cache(job, stats)
            looked_up = False
            if done is not None:
                return done
            if self._fatal is not None:
                return job.finish("error", error=(
                    f"not attempted: an earlier request failed with {self._fatal}; fix the "
                    "model name, key or endpoint and re-run (completed answers are cached)"))
            key = job.request_key()
            shared = self._inflight.get(key)
            if shared is not None:  # an identical request is in flight: share its answer
                try:
                    completion = await asyncio.shield(shared)
                except Exception as exc:
                    return job.finish("error", error=self._describe(exc))
                stats.cache_hits += 1
                self.total.cache_hits += 1
                done = self._advance(job, completion)
                if done is not None:
                    return done
                continue
            reservation = self._budget_reservation(job)
            if reservation is None:
                stats.budget_stopped = self.total.budget_stopped = self.budget_stopped = True
                return job.finish("skipped", error=budget_skip_message(
                    self.budget_usd, self.total.cost_usd, self._reserved))
            self._reserved += reservation
            shared = self._inflight[key] = asyncio.get_running_loop().create_future()
            try:
                completion = await self._request(job, stats)
            except Exception as exc:
                stats.errors += 1
                self.total.errors += 1
                if status_code(exc) in FATAL_STATUS:
                    self._fatal = self._describe(exc)
                shared.set_exception(exc)
                shared.exception()  # retrieved: waiters re-raise it, none is required
                return job.finish("error", error=self._describe(exc))
            else:
                shared.set_result(completion)
            finally:
                self._reserved -= reservation
                self._inflight.pop(key, None)
                if not shared.done():  # cancelled: waiters must not hang
                    shared.cancel()
            cost = cost_usd(self.price, completion.prompt_tokens, completion.completion_tokens)
            if cost:
                completion = replace(completion, cost_usd=cost)
            for target in (stats, self.total):
                target.prompt_tokens += completion.prompt_tokens
                target.completion_tokens += completion.completion_tokens
                target.cost_usd += cost
            job.cost_usd += cost
            job.answers_fetched += 1
            # an answer holding a credential is rejected, and not cached either: the cache
            # keeps only blanked text, which a resumed run would otherwise accept
            if self.cache is not None and not contains_secret(completion.text):
                self.cache.put(job.request_key(), self.spec.name, completion,
                               prompt_id=job.plan.template.name, step=job.plan.step)
            done = self._advance(job, completion)
            if done is not None:
                return done

    async def _request(self, job: Job, stats: StepStats) -> Completion:
        if job.tokens is None:
            job.tokens = estimate_tokens(job.messages) + int(job.plan.params["max_tokens"])
        tokens = job.tokens
        backend = self.backend
        waits = self._waits
        attempt = 0
        while True:
            attempt += 1
            if attempt > 1:
                job.retries += 1
                stats.retries += 1
                self.total.retries += 1
            try:
                completion = await self._send(job, stats, tokens, backend)
                check_answer(completion.text, job.plan.params)  # AnswerTooLarge: no retry
                return completion
            except Exception as exc:
                if attempt > self.max_retries or not is_retryable(exc):
                    raise
                seconds = wait_seconds(exc, attempt, *self.backoff, cap=self.max_wait)
                if waits is not None:
                    waits.sleeping(id(job), exc, attempt, seconds, self.max_wait)
                await asyncio.sleep(seconds)

    async def _send(self, job: Job, stats: StepStats, tokens: int,
                    backend: Backend) -> Completion:
        """One attempt: wait for a slot and the rate limits, send, count it."""
        share, waits = self._share, self._waits
        slots = share.slots(self.concurrency) if share is not None else None
        if slots is not None:
            await slots.acquire()
        try:
            if share is not None:
                await share.limiter(self.rpm, self.tpm).acquire(tokens, self.header_limits)
            else:
                assert self._limiter is not None
                await self._limiter.acquire(tokens)
            job.attempts += 1
            stats.requests += 1
            self.total.requests += 1
            with waits.request(id(job)) if waits is not None else nullcontext():
                return await backend.complete(job.messages, job.plan.schema,
                                              job.plan.params, self.timeout)
        finally:
            if slots is not None:
                slots.release()

    def _budget_reservation(self, job: Job) -> float | None:
        """Dollars to set aside for the next request, or None when the budget forbids it."""
        if self.budget_stopped:
            return None
        return budget_reservation(self.total, self._reserved, self.budget_usd, self.price,
                                  job.messages, int(job.plan.params["max_tokens"]))

    def _advance(self, job: Job, completion: Completion) -> LLMResult | None:
        """Judge one answer: a final result, or None after queueing a re-ask (counted)."""
        done = job.take(completion, self.max_reasks)
        if done is None:
            for target in (self.steps.setdefault(job.plan.step, StepStats()), self.total):
                target.reasks += 1
        return done

    def _describe(self, exc: BaseException) -> str:
        """An error message safe to store: every credential is blanked out (irforge.core.redact)."""
        return str(redact(f"{type(exc).__name__}: {exc}"))[:800]
