"""How an engine's jobs reach the model: cache first, then workers that send each job through
the engine's one :class:`~irforge.llm.traffic.Traffic` gate, share identical requests in
flight, retry, re-ask and account for every answer.

:class:`Dispatcher` is the sending half of :class:`irforge.llm.engine.Engine` (which holds the
configuration and the public API); the batch path (irforge/llm/batch.py) drives the same
methods through :class:`irforge.llm.host.EngineCore`.
"""

from __future__ import annotations

import asyncio
import sqlite3
import weakref
from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from irforge.core.redact import contains_secret, redact
from irforge.llm.accounting import (
    BUDGET_SKIP,
    Price,
    StepStats,
    budget_reservation,
    budget_skip_message,
    cost_usd,
    estimate_tokens,
)
from irforge.llm.answer_size import check_answer
from irforge.llm.backends import Backend
from irforge.llm.cache import ResponseCache
from irforge.llm.completion import Completion
from irforge.llm.jobs import Job, Plan
from irforge.llm.progress import RunProgress
from irforge.llm.result import LLMResult
from irforge.llm.retry import is_retryable, status_code, wait_seconds
from irforge.llm.settings import ModelSpec
from irforge.llm.traffic import Traffic
from irforge.llm.waits import Waits

# errors that will fail every other request the same way: stop sending after the first
FATAL_STATUS = frozenset({401, 403, 404})

InFlight = dict[str, asyncio.Future[Completion]]
# told (item index, its result) as each item of a call lands
ResultSink = Callable[[int, LLMResult], None]


class Dispatcher:
    """Cache lookups, workers, in-flight sharing, retries, budget and accounting of an engine."""

    # set by the engine (irforge/llm/engine.py)
    cache: ResponseCache | None
    total: StepStats
    steps: dict[str, StepStats]
    notes: list[str]
    concurrency: int
    max_retries: int
    max_reasks: int
    timeout: float
    backoff: tuple[float, float]
    max_wait: float
    wait_report_after: float
    progress: bool | None
    budget_usd: float | None
    budget_stopped: bool
    _reserved: float
    _fatal: str | None
    _inflight: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, InFlight]
    spec: ModelSpec

    if TYPE_CHECKING:  # the engine's, used here
        @property
        def backend(self) -> Backend: ...

        @property
        def price(self) -> Price | None: ...

        @property
        def traffic(self) -> Traffic: ...

        def _prepare(self, index: int, item: Mapping[str, Any], plan: Plan
                     ) -> Job | LLMResult: ...

    def _in_flight(self) -> InFlight:
        """Requests in flight on the running loop, by cache key (futures belong to one loop;
        the calls an engine serves on one loop share them)."""
        return self._inflight.setdefault(asyncio.get_running_loop(), {})

    # the cache -----------------------------------------------------------------------------
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

    def _flush_cache(self) -> None:
        """Commit the answers of the last loop turn; a failure is noted, results stand."""
        if self.cache is None:
            return
        try:
            self.cache.flush()
        except sqlite3.Error as exc:
            self.notes.append(f"could not store answers in the cache {self.cache.path}: "
                              f"{exc}; this run's results are complete, a re-run asks again")

    # the workers ---------------------------------------------------------------------------
    async def _drive(self, pending: list[Job], stats: StepStats,
                     results: list[LLMResult | None], label: str,
                     on_result: ResultSink | None = None) -> None:
        """Solve ``pending``, filling ``results`` by index (and telling ``on_result`` each one
        as it lands). Up to ``concurrency`` workers per call; what bounds the requests in
        flight is the engine's one :attr:`traffic` gate, which every call (and every engine
        of a run) shares."""
        with RunProgress(self.progress, label, len(results)) as bar:
            waits = Waits(self.wait_report_after, bar.say, self.notes)
            bar.advance(len(results) - len(pending), self.total.cost_usd)
            if not pending:
                return
            queue = iter(pending)

            async def worker() -> None:
                for job in queue:
                    try:
                        results[job.index] = await self._solve(job, stats, waits)
                    except Exception as exc:  # e.g. the cache disk is full: keep going
                        results[job.index] = job.finish("error", error=self._describe(exc))
                    if on_result is not None:
                        on_result(job.index, results[job.index])
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

    # one job -------------------------------------------------------------------------------
    async def _solve(self, job: Job, stats: StepStats, waits: Waits | None = None
                     ) -> LLMResult:
        inflight = self._in_flight()
        while True:
            # looked up again even after the call's first lookup: an identical request may
            # have been answered since, and sending it twice would depend on timing
            done = self._from_cache(job, stats)
            if done is not None:
                return done
            if self._fatal is not None:
                return job.finish("error", error=(
                    f"not attempted: an earlier request failed with {self._fatal}; fix the "
                    "model name, key or endpoint and re-run (completed answers are cached)"))
            key = job.request_key()
            shared = inflight.get(key)
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
            shared = inflight[key] = asyncio.get_running_loop().create_future()
            try:
                completion = await self._request(job, stats, waits)
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
                inflight.pop(key, None)
                if not shared.done():  # cancelled: waiters must not hang
                    shared.cancel()
            done = self._account(job, stats, completion)
            if done is not None:
                return done

    def _account(self, job: Job, stats: StepStats, completion: Completion
                 ) -> LLMResult | None:
        """Count a fresh answer's tokens and dollars, cache it, and judge it."""
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
        return self._advance(job, completion)

    async def _request(self, job: Job, stats: StepStats, waits: Waits | None) -> Completion:
        if job.tokens is None:
            job.tokens = estimate_tokens(job.messages) + int(job.plan.params["max_tokens"])
        tokens = job.tokens
        backend = self.backend
        attempt = 0
        while True:
            attempt += 1
            if attempt > 1:
                job.retries += 1
                stats.retries += 1
                self.total.retries += 1
            try:
                completion = await self._send(job, stats, tokens, backend, waits)
                check_answer(completion.text, job.plan.params)  # AnswerTooLarge: no retry
                return completion
            except Exception as exc:
                if attempt > self.max_retries or not is_retryable(exc):
                    raise
                seconds = wait_seconds(exc, attempt, *self.backoff, cap=self.max_wait)
                if waits is not None:
                    waits.sleeping(id(job), exc, attempt, seconds, self.max_wait)
                await asyncio.sleep(seconds)

    async def _send(self, job: Job, stats: StepStats, tokens: int, backend: Backend,
                    waits: Waits | None) -> Completion:
        """One attempt: wait for a slot and the rate limits (the engine's one gate), send,
        count it."""
        async with self.traffic.turn(tokens):
            job.attempts += 1
            stats.requests += 1
            self.total.requests += 1
            with waits.request(id(job)) if waits is not None else nullcontext():
                return await backend.complete(job.messages, job.plan.schema,
                                              job.plan.params, self.timeout)

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
