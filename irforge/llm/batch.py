"""Provider batch path: the engine's cache-miss requests as one OpenAI Batch API job.

``Engine.run_batch`` answers cached items from the cache, writes the misses to a JSONL file
(``custom_id`` = the engine's request key), uploads it to ``/v1/files`` (purpose ``batch``),
creates a ``/v1/batches`` job for ``/v1/chat/completions`` with a 24 h window, polls it, and
downloads the output and error files. Every answer is judged by the same code as the online
path and stored in the cache at once, at the batch discount. The batch id and its keys are kept
in the cache database, so a killed run that is started again polls the same batch instead of
submitting (and paying for) a new one. Answers that fail validation are re-asked online (up to
``max_reasks``, like the online path). Models without a batch API (llama.cpp, non-OpenAI
providers) fall back to the online path with a note. See docs/llm.md.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from irforge.core.errors import IrforgeError
from irforge.llm.accounting import StepStats, cost_usd
from irforge.llm.completion import Completion, Message, openai_logprobs, openai_params
from irforge.llm.litellm_setup import silence_litellm
from irforge.llm.response_format import schema_name
from irforge.llm.result import LLMResult
from irforge.llm.retry import is_retryable, retry_after_seconds, status_code

if TYPE_CHECKING:
    from irforge.llm.host import EngineCore
    from irforge.llm.jobs import Job

CHAT_ENDPOINT = "/v1/chat/completions"
COMPLETION_WINDOW = "24h"
TERMINAL = frozenset({"completed", "failed", "expired", "cancelled"})
# OpenAI's limits per batch input file: 50,000 requests and 200 MB (a margin is kept)
MAX_BATCH_REQUESTS = 50_000
MAX_BATCH_BYTES = 190 * 2**20
_CUSTOM_ID = re.compile(r'"custom_id"\s*:\s*"([0-9a-f]{64})"')


class BatchPending(IrforgeError):
    """The batch was submitted (and recorded) but had not finished within ``max_wait_seconds``."""


def supports_batch(backend: str, name: str, api_base: str | None) -> bool:
    """OpenAI itself or any OpenAI-compatible endpoint; not llama.cpp or other providers."""
    if backend != "litellm":
        return False
    return bool(api_base) or "/" not in name or name.startswith("openai/")


def provider_model(name: str) -> str:
    """The model name the provider knows (litellm's ``openai/`` routing prefix removed)."""
    return name[len("openai/"):] if name.startswith("openai/") else name


def request_body(model: str, messages: list[Message], schema: dict[str, Any],
                 params: dict[str, Any], response_format: str) -> dict[str, Any]:
    """The chat completion request of one batch line (what the online backend would send)."""
    body: dict[str, Any] = {"model": provider_model(model), "messages": messages,
                            **openai_params(params)}
    if response_format == "json_schema":
        body["response_format"] = {"type": "json_schema", "json_schema": {
            "name": schema_name(schema), "schema": schema, "strict": False}}
    elif response_format == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def chunked(lines: list[dict[str, Any]], max_requests: int,
            max_bytes: int) -> list[list[dict[str, Any]]]:
    """Split batch lines into files within the provider's request and size limits."""
    chunks: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    size = 0
    for line in lines:
        line_bytes = len(json.dumps(line, ensure_ascii=False).encode("utf-8")) + 1
        if current and (len(current) >= max_requests or size + line_bytes > max_bytes):
            chunks.append(current)
            current, size = [], 0
        current.append(line)
        size += line_bytes
    if current:
        chunks.append(current)
    return chunks


@dataclass
class BatchOutcome:
    """What the provider's output and error files said, by request key."""

    answers: dict[str, Completion] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)


def completion_from_body(body: Mapping[str, Any]) -> Completion:
    """A :class:`Completion` from a chat completion response body (raises on a bad shape)."""
    choice = body["choices"][0]
    message = choice["message"]
    usage = body.get("usage") or {}
    return Completion(text=message.get("content") or "",
                      finish_reason=choice.get("finish_reason"),
                      refusal=message.get("refusal") or None,
                      prompt_tokens=int(usage.get("prompt_tokens", 0) or 0),
                      completion_tokens=int(usage.get("completion_tokens", 0) or 0),
                      logprobs=openai_logprobs(choice.get("logprobs")))


def parse_batch_file(text: str, source: str, outcome: BatchOutcome) -> None:
    """Add each line of an output or error file to ``outcome``; a bad line names its request."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{source} line {number}"
        try:
            record = json.loads(line)
            key = str(record["custom_id"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            found = _CUSTOM_ID.search(line)
            if found:
                outcome.errors[found.group(1)] = f"{where} is malformed: {exc}"
            continue
        response = record.get("response") or {}
        status = response.get("status_code")
        if record.get("error") or status != 200:
            detail = record.get("error") or (response.get("body") or {}).get("error")
            outcome.errors[key] = f"{where}: provider status {status}: {detail}"
            continue
        try:
            outcome.answers[key] = completion_from_body(response["body"])
        except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
            outcome.errors[key] = f"{where}: response body is malformed ({exc!r})"


class BatchClient:
    """The OpenAI Batch API over real HTTP, through litellm's file and batch helpers."""

    def __init__(self, api_base: str | None, api_key: str | None, timeout: float,
                 max_retries: int) -> None:
        silence_litellm()
        # no client-side retry of batch creation (a retried create could bill twice) nor of
        # polls (wait_for owns those); uploads and downloads are retried
        self._retries = max_retries
        self._options: dict[str, Any] = {"custom_llm_provider": "openai", "timeout": timeout,
                                         "max_retries": 0}
        if api_base:
            self._options["api_base"] = api_base
        if api_key:
            self._options["api_key"] = api_key

    def submit(self, lines: list[dict[str, Any]]) -> str:
        """Upload the JSONL file and create the batch; returns the batch id."""
        import litellm

        payload = "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines)
        uploaded = litellm.create_file(
            file=("irforge-batch.jsonl", payload.encode("utf-8"), "application/jsonl"),
            purpose="batch", **{**self._options, "max_retries": self._retries})
        batch = litellm.create_batch(input_file_id=uploaded.id, endpoint=CHAT_ENDPOINT,
                                     completion_window=COMPLETION_WINDOW, **self._options)
        return str(batch.id)

    def retrieve(self, batch_id: str) -> Any:
        import litellm

        return litellm.retrieve_batch(batch_id=batch_id, **self._options)

    def content(self, file_id: str) -> str:
        import litellm

        return litellm.file_content(file_id=file_id,
                                    **{**self._options, "max_retries": self._retries}).text


def wait_for(client: BatchClient, batch_id: str, poll_seconds: float,
             deadline: float | None, max_retries: int) -> Any:
    """Poll until the batch ends; :class:`BatchPending` once ``deadline`` has passed.

    Up to ``max_retries`` transient failures in a row (429, 5xx, timeouts) are waited out;
    anything else is raised with the batch still recorded for the next run.
    """
    failures = 0
    while True:
        try:
            batch = client.retrieve(batch_id)
        except Exception as exc:
            failures += 1
            if not is_retryable(exc) or failures > max_retries:
                raise
            time.sleep(retry_after_seconds(exc) or poll_seconds)
            continue
        failures = 0
        if batch.status in TERMINAL:
            return batch
        if deadline is not None and time.monotonic() >= deadline:
            raise BatchPending(
                f"batch {batch_id} is still {batch.status}; it is recorded in the cache, so "
                "running the same command again polls it instead of submitting a new one")
        time.sleep(poll_seconds)


def download(client: BatchClient, batch: Any) -> BatchOutcome:
    """Both result files of an ended batch, parsed; a failed batch names why."""
    outcome = BatchOutcome()
    for attribute in ("output_file_id", "error_file_id"):
        file_id = getattr(batch, attribute, None)
        if file_id:
            parse_batch_file(client.content(file_id), f"batch {batch.id} {attribute}", outcome)
    return outcome


def _collect(engine: EngineCore, keys: dict[str, Job], stats: StepStats, poll_seconds: float,
             max_wait_seconds: float | None) -> BatchOutcome:
    """Resume open batches that cover ``keys``, submit the rest, wait, store every answer."""
    spec = engine.spec
    backend = engine.backend
    # the OpenAI client wants some key; local OpenAI-compatible servers accept any
    key = getattr(backend, "_api_key", None) or ("none" if spec.api_base else None)
    client = BatchClient(spec.api_base, key, engine.timeout, engine.max_retries)
    wanted = set(keys)
    batches: dict[str, list[str]] = {}  # batch id -> the request keys it answers
    for batch_id, batch_keys in (engine.cache.open_batches(spec.name) if engine.cache else []):
        if wanted & set(batch_keys) and _still_known(engine, client, batch_id):
            batches[batch_id] = batch_keys
    covered = {key for batch_keys in batches.values() for key in batch_keys}
    response_format = getattr(backend, "response_format", "json_schema")
    lines = [{"custom_id": key, "method": "POST", "url": CHAT_ENDPOINT,
              "body": request_body(spec.name, job.messages, job.plan.schema, job.plan.params,
                                   response_format)}
             for key, job in keys.items() if key not in covered]
    for chunk in chunked(lines, MAX_BATCH_REQUESTS, MAX_BATCH_BYTES):
        batch_id = client.submit(chunk)
        chunk_keys = [line["custom_id"] for line in chunk]
        if engine.cache is not None:  # at once: a kill from here on resumes this batch
            engine.cache.record_batch(batch_id, spec.name, next(iter(keys.values())).plan.step,
                                      chunk_keys)
        batches[batch_id] = chunk_keys
    engine.batch_ids.extend(b for b in batches if b not in engine.batch_ids)
    deadline = None if max_wait_seconds is None else time.monotonic() + max_wait_seconds
    outcome = BatchOutcome()
    for batch_id, batch_keys in batches.items():
        batch = wait_for(client, batch_id, poll_seconds, deadline, engine.max_retries)
        part = download(client, batch)
        for key, completion in part.answers.items():
            cost = engine.batch_discount * cost_usd(engine.price, completion.prompt_tokens,
                                                    completion.completion_tokens)
            completion = replace(completion, cost_usd=cost)
            part.answers[key] = completion
            for target in (stats, engine.total):
                target.requests += 1
                target.prompt_tokens += completion.prompt_tokens
                target.completion_tokens += completion.completion_tokens
                target.cost_usd += cost
            if engine.cache is not None:
                job = keys.get(key)
                engine.cache.put(key, spec.name, completion,
                                 prompt_id=job.plan.template.name if job else "",
                                 step=job.plan.step if job else "")
        if batch.status != "completed":
            reason = f"batch {batch_id} ended {batch.status}: {getattr(batch, 'errors', None)}"
            for key in set(batch_keys) - set(part.answers):
                part.errors.setdefault(key, reason)
        if engine.cache is not None:
            engine.cache.close_batch(batch_id, str(batch.status))
        outcome.answers.update(part.answers)
        outcome.errors.update(part.errors)
    return outcome


def _still_known(engine: EngineCore, client: BatchClient, batch_id: str) -> bool:
    """Whether the provider still has a recorded batch; a 404 closes it so its keys resubmit."""
    try:
        client.retrieve(batch_id)
    except Exception as exc:
        if status_code(exc) != 404:
            raise  # e.g. the network is down: keep the record for the next run
        assert engine.cache is not None
        engine.cache.close_batch(batch_id, "missing")
        engine.notes.append(f"batch {batch_id} is unknown to the provider; resubmitted")
        return False
    return True


def run_batch(engine: EngineCore, items: Sequence[Mapping[str, Any]], template_name: str,
              output_model: type[BaseModel], step: str | None, poll_seconds: float,
              max_wait_seconds: float | None, *, sample: int = 0,
              max_tokens: int | None = None) -> list[LLMResult]:
    """One result per item, in order: cache first, then one provider batch for the misses."""
    from irforge.llm.sync import run_sync

    spec = engine.spec
    if not supports_batch(spec.backend, spec.name, spec.api_base):
        note = (f"{spec.name} has no batch API here: {step or template_name} ran online "
                "(no batch discount)")
        if note not in engine.notes:
            engine.notes.append(note)
        return run_sync(engine.arun(items, template_name, output_model, step, sample=sample,
                                     max_tokens=max_tokens))
    plan = engine._plan(template_name, output_model, step, sample, max_tokens)
    engine.prompts[plan.template.name] = plan.template.hash
    stats = engine.steps.setdefault(plan.step, StepStats())
    results: list[LLMResult | None] = [None] * len(items)
    pending = engine._resolve_cached(items, plan, stats, results)
    by_key: dict[str, list[Job]] = {}
    reserved_before = engine._reserved
    for job in pending:
        reservation = engine._budget_reservation(job)
        if reservation is None:
            stats.budget_stopped = engine.total.budget_stopped = engine.budget_stopped = True
            results[job.index] = job.finish("skipped", error=(
                f"not attempted: the budget of ${engine.budget_usd} was reached; completed "
                "answers are cached, re-run with a higher --budget to continue"))
            continue
        engine._reserved += reservation * engine.batch_discount
        by_key.setdefault(job.request_key(), []).append(job)
    try:
        outcome = (_collect(engine, {key: jobs[0] for key, jobs in by_key.items()}, stats,
                            poll_seconds, max_wait_seconds) if by_key else BatchOutcome())
    finally:
        engine._reserved = reserved_before
    reask: list[Job] = []
    for key, jobs in by_key.items():
        completion = outcome.answers.get(key)
        for position, job in enumerate(jobs):
            if completion is None:
                stats.errors += 1
                engine.total.errors += 1
                results[job.index] = job.finish("error", error=outcome.errors.get(
                    key, "the batch output had no line for this request; re-run to send it"))
                continue
            if position == 0:  # the provider answered (and billed) each distinct request once
                job.answers_fetched += 1
                job.cost_usd += completion.cost_usd
            done = engine._advance(job, completion)
            if done is None:
                reask.append(job)
            else:
                results[job.index] = done
    if reask:  # answers that failed validation: re-asked online, exactly like run()
        run_sync(engine._drive(reask, stats, results, f"{plan.step} re-asks ({spec.name})"))
    return engine._tally(results, stats)
