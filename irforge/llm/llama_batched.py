"""The embedded model decodes several requests in one llama.cpp batch (continuous batching).

llama-cpp-python's ``Llama`` generates one sequence at a time. This module keeps a second
llama.cpp context on the same loaded weights with ``slots`` sequences, and one decode thread:
a request's prompt is evaluated when a slot is free, then every step decodes the next token
of every open sequence in one ``llama_decode`` call, so the weights are read once per step for
all of them. Each sequence has its own sampler chain, built as ``Llama`` builds it (repeat
penalty, the JSON-schema grammar, greedy at temperature 0, else top-k/top-p/min-p and a
seeded draw), and its prompt, stop strings and grammar come from llama-cpp-python's own chat
handler (:func:`completion_request`), so a batched answer follows the same template, grammar
and seed as one generated alone. ``benchmarks/llama_batched.py`` measures tokens per second
against one at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from irforge.llm.completion import Completion, GenerationTimeout
from irforge.llm.degeneration import LOOP_CHECK_EVERY, LOOP_FINISH_REASON, looping_tail

SLOT_CONTEXT = 4096  # tokens of prompt + answer one sequence may hold (as the one-at-a-time path)


class _Captured(Exception):
    def __init__(self, request: dict[str, Any]) -> None:
        super().__init__("captured")
        self.request = request


class _Capture:
    """Stands in for a ``Llama`` in its chat handler and keeps what it would generate from."""

    def __init__(self, llama: Any) -> None:
        self._llama = llama

    def __getattr__(self, name: str) -> Any:
        return getattr(self._llama, name)

    def create_completion(self, **request: Any) -> Any:
        raise _Captured(request)


def completion_request(llama: Any, messages: list[dict[str, Any]], schema: dict[str, Any],
                       params: dict[str, Any], seed: int) -> dict[str, Any]:
    """The prompt tokens, stop strings, grammar and sampling settings llama-cpp-python's
    ``create_chat_completion`` would use for this request (its chat handler, run up to the
    point where it starts generating)."""
    try:
        type(llama).create_chat_completion(
            _Capture(llama), messages=messages,
            response_format={"type": "json_object", "schema": schema},
            temperature=params.get("temperature", 0.0),
            repeat_penalty=params.get("repeat_penalty", 1.0),
            max_tokens=params.get("max_tokens"), seed=params.get("seed", seed))
    except _Captured as captured:
        return captured.request
    raise RuntimeError("llama-cpp-python's chat handler did not reach generation")


def sampler_for(llama: Any, request: dict[str, Any]) -> Any:
    """One sequence's sampler chain, built as ``Llama._init_sampler`` builds it."""
    from llama_cpp import _internals

    sampler = _internals.LlamaSampler()
    sampler.add_penalties(n_vocab=llama.n_vocab(), penalty_last_n=llama.last_n_tokens_size,
                          penalty_repeat=request.get("repeat_penalty", 1.0),
                          penalty_freq=request.get("frequency_penalty", 0.0),
                          penalty_present=request.get("presence_penalty", 0.0))
    grammar = request.get("grammar")
    if grammar is not None:
        sampler.add_grammar(llama._model, grammar)
    temperature = float(request.get("temperature", 0.0))
    seed = request.get("seed")
    seed = int(seed) if seed is not None else llama._seed
    if temperature == 0.0:
        sampler.add_greedy()
    else:
        sampler.add_top_k(request.get("top_k", 40))
        sampler.add_typical(request.get("typical_p", 1.0), 1)
        sampler.add_top_p(request.get("top_p", 0.95), 1)
        sampler.add_min_p(request.get("min_p", 0.05), 1)
        sampler.add_temp(temperature)
        sampler.add_dist(seed)
    return sampler


@dataclass(eq=False)
class _Sequence:
    prompt: list[int]
    sampler: Any
    max_tokens: int
    stops: list[bytes]
    deadline: float | None
    future: concurrent.futures.Future[Completion]
    slot: int = -1
    out: list[int] = field(default_factory=list)
    last: int = -1


class BatchedLlama:
    """A decode thread serving requests on ``slots`` sequences of one loaded ``Llama``."""

    def __init__(self, llama: Any, slots: int, slot_context: int = SLOT_CONTEXT) -> None:
        import llama_cpp
        from llama_cpp import _internals

        self.llama = llama
        self.slots = slots
        self.slot_context = slot_context
        params = llama_cpp.llama_context_params.from_buffer_copy(llama.context_params)
        params.n_ctx = slots * slot_context
        params.n_seq_max = slots
        params.kv_unified = True
        # a decode step is a small batch: on a busy CPU, ggml's extra batch threads spin at
        # barriers and made a 2-sequence step 20x slower than one token (measured, 2 cores)
        params.n_threads_batch = params.n_threads
        self.n_batch = int(params.n_batch)
        self.ctx = _internals.LlamaContext(model=llama._model, params=params, verbose=False)
        self.batch = _internals.LlamaBatch(n_tokens=max(self.n_batch, slots), embd=0,
                                           n_seq_max=slots, verbose=False)
        self._pending: deque[_Sequence] = deque()
        self._free = list(range(slots))
        self._active: list[_Sequence] = []
        self._wake = threading.Condition()
        self.steps = 0  # batched decode steps (read by the benchmark)
        self.most_at_once = 0
        threading.Thread(target=self._loop, name="irforge-llama-batch", daemon=True).start()

    async def complete(self, messages: list[dict[str, Any]], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float | None, seed: int) -> Completion:
        request = completion_request(self.llama, messages, schema, params, seed)
        prompt = list(request["prompt"])
        room = self.slot_context - len(prompt)
        if room <= 0:
            raise ValueError(f"the prompt ({len(prompt)} tokens) fills the model's context")
        wanted = request.get("max_tokens") or room
        stops = request.get("stop") or []
        stops = [stops] if isinstance(stops, str) else list(stops)
        future: concurrent.futures.Future[Completion] = concurrent.futures.Future()
        sequence = _Sequence(prompt=prompt, sampler=sampler_for(self.llama, request),
                             max_tokens=min(int(wanted), room),
                             stops=[s.encode("utf-8") for s in stops], deadline=None,
                             future=future)
        # the clock starts once the request has a slot (queued requests do not time out)
        sequence.deadline = timeout
        with self._wake:
            self._pending.append(sequence)
            self._wake.notify()
        return await asyncio.wrap_future(future)

    # the decode thread ---------------------------------------------------------------------
    def _loop(self) -> None:
        while True:
            with self._wake:
                while not self._pending and not self._active:
                    self._wake.wait()
                admitted = []
                while self._pending and self._free:
                    sequence = self._pending.popleft()
                    sequence.slot = self._free.pop(0)
                    admitted.append(sequence)
            for sequence in admitted:
                if sequence.deadline is not None:
                    sequence.deadline = time.monotonic() + sequence.deadline
                self._guard(self._prefill, sequence)
            if self._active:
                self.most_at_once = max(self.most_at_once, len(self._active))
                self._guard(self._step)

    def _guard(self, work: Any, *args: Any) -> None:
        """Run one piece of decoding; an error fails the sequences it touched, not the thread."""
        try:
            work(*args)
        except Exception as exc:
            touched = list(args) if args else list(self._active)
            for sequence in touched:
                self._finish(sequence, error=exc)

    def _prefill(self, sequence: _Sequence) -> None:
        """Evaluate one prompt into its slot (in chunks of the batch size), then sample."""
        prompt = sequence.prompt
        for start in range(0, len(prompt), self.n_batch):
            chunk = prompt[start:start + self.n_batch]
            self._fill([(token, start + i, sequence.slot, start + i == len(prompt) - 1)
                        for i, token in enumerate(chunk)])
            self.ctx.decode(self.batch)
        self._active.append(sequence)
        self._take(sequence, (len(prompt) - 1) % self.n_batch)

    def _step(self) -> None:
        """The next token of every open sequence, in one decode call."""
        active = list(self._active)
        self._fill([(s.last, len(s.prompt) + len(s.out) - 1, s.slot, True) for s in active])
        self.ctx.decode(self.batch)
        self.steps += 1
        for index, sequence in enumerate(active):
            self._take(sequence, index)

    def _fill(self, entries: list[tuple[int, int, int, bool]]) -> None:
        batch = self.batch.batch
        batch.n_tokens = len(entries)
        for i, (token, position, slot, logits) in enumerate(entries):
            batch.token[i] = token
            batch.pos[i] = position
            batch.n_seq_id[i] = 1
            batch.seq_id[i][0] = slot
            batch.logits[i] = logits

    def _take(self, sequence: _Sequence, index: int) -> None:
        """Sample the sequence's next token from row ``index`` and decide whether it ends."""
        import llama_cpp

        token = sequence.sampler.sample(self.ctx, index)
        if llama_cpp.llama_vocab_is_eog(self.llama._model.vocab, token):
            self._finish(sequence, "stop")
            return
        sequence.out.append(token)
        sequence.last = token
        text = self.llama.detokenize(sequence.out, prev_tokens=sequence.prompt)
        if any(stop in text for stop in sequence.stops):
            self._finish(sequence, "stop")
        elif len(sequence.out) >= sequence.max_tokens:
            self._finish(sequence, "length")
        elif len(sequence.out) % LOOP_CHECK_EVERY == 0 and \
                looping_tail(text.decode("utf-8", errors="ignore")) is not None:
            self._finish(sequence, LOOP_FINISH_REASON)
        elif sequence.deadline is not None and time.monotonic() > sequence.deadline:
            self._finish(sequence, error=GenerationTimeout(
                "the local model took longer than its timeout (--timeout); raise it, or "
                "lower --max-tokens"))

    def _finish(self, sequence: _Sequence, reason: str | None = None,
                error: BaseException | None = None) -> None:
        if sequence in self._active:
            self._active.remove(sequence)
        if sequence.slot >= 0:
            self.ctx.kv_cache_seq_rm(sequence.slot, -1, -1)
            with self._wake:
                self._free.append(sequence.slot)
                self._free.sort()
            sequence.slot = -1
        if sequence.future.done():
            return
        if error is not None:
            sequence.future.set_exception(error)
            return
        raw = self.llama.detokenize(sequence.out, prev_tokens=sequence.prompt)
        for stop in sequence.stops:
            if stop in raw:
                raw = raw[:raw.index(stop)]
        sequence.future.set_result(Completion(
            text=raw.decode("utf-8", errors="ignore"), finish_reason=reason,
            prompt_tokens=len(sequence.prompt), completion_tokens=len(sequence.out)))


_DECODERS: dict[int, BatchedLlama] = {}
_DECODERS_LOCK = threading.Lock()


def batched(llama: Any, slots: int) -> BatchedLlama:
    """The one batched decoder of a loaded model (created on first use)."""
    with _DECODERS_LOCK:
        decoder = _DECODERS.get(id(llama))
        if decoder is None or decoder.slots != slots:
            decoder = _DECODERS[id(llama)] = BatchedLlama(llama, slots)
        return decoder
