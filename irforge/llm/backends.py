"""How a request reaches a model: litellm (any provider), llama.cpp in-process, or the direct
OpenAI-compatible path (irforge/llm/direct.py); :func:`make_backend` picks by transport."""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import threading
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Protocol

from irforge.core.redact import register_secret
from irforge.llm.completion import (
    Completion,
    GenerationTimeout,
    Message,
    TokenLogprob,
    openai_logprobs,
    openai_params,
)
from irforge.llm.degeneration import LOOP_CHECK_EVERY, LOOP_FINISH_REASON, looping_tail
from irforge.llm.response_format import (
    choose_response_format,
    response_format_field,
)
from irforge.llm.retry import RequestTimeoutError
from irforge.llm.routing import url_credentials
from irforge.llm.settings import API_KEY_ENV, ModelSpec, silence_litellm


class Backend(Protocol):
    """Sends one chat request and returns the answer; raises on transport failures."""

    name: str

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion: ...

    def session(self) -> AbstractAsyncContextManager[Any]:
        """Held around a run: pooled connections live as long as it does."""
        ...


HeaderSink = Callable[[Mapping[str, str] | None], None]


def provider_key_env(model: str) -> str:
    """The provider's own key variable for a litellm model id: ``openai/x`` -> OPENAI_API_KEY.

    litellm reads it itself without an api base; with one (an OpenAI-compatible server) the
    engine passes the key explicitly, so this variable is the fallback after IRFORGE_API_KEY.
    """
    provider = model.split("/", 1)[0] if "/" in model else "openai"
    return f"{provider.upper().replace('-', '_')}_API_KEY"


class LiteLLMBackend:
    """Any litellm provider; json_schema response format where supported, else instructions."""

    def __init__(self, spec: ModelSpec, api_key: str | None = None,
                 response_format: str = "auto", observe: HeaderSink | None = None) -> None:
        silence_litellm()
        self.spec = spec
        self.name = spec.name
        self._api_key = (api_key or os.environ.get(API_KEY_ENV)
                         or (os.environ.get(provider_key_env(spec.name)) if spec.api_base
                             else None) or None)
        register_secret(self._api_key)
        self.provider = spec.name.split("/", 1)[0] if "/" in spec.name else "openai"
        self.response_format = choose_response_format(spec, response_format)
        self.observe = observe
        self._keyless: tuple[asyncio.AbstractEventLoop, Any] | None = None
        self._capped: tuple[asyncio.AbstractEventLoop, Any] | None = None

    def session(self) -> AbstractAsyncContextManager[Any]:
        return contextlib.nullcontext()

    def _base(self) -> str:
        """The api_base without credentials (they go in the header, :func:`url_credentials`)."""
        return url_credentials(str(self.spec.api_base))[0]

    def _keyless_client(self) -> Any:
        """One keyless OpenAI client per event loop (an httpx pool belongs to its loop)."""
        loop = asyncio.get_running_loop()
        cached = self._keyless
        if cached is None or cached[0] is not loop:
            self._keyless = cached = (loop, keyless_openai_client(self._base()))
        return cached[1]

    def _capped_client(self) -> Any:
        """One keyed OpenAI client per event loop for an OpenAI-compatible api_base, whose
        transport caps each answer by its token budget (irforge/llm/capped_http.py)."""
        loop = asyncio.get_running_loop()
        cached = self._capped
        if cached is None or cached[0] is not loop:
            client = capped_openai_client(self._base(), str(self._api_key))
            self._capped = cached = (loop, client)
        return cached[1]

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion:
        headers: Mapping[str, str] | None = None
        try:
            response = await self._complete(messages, schema, params, timeout)
            hidden = getattr(response, "_hidden_params", None) or {}
            headers = hidden.get("additional_headers") or None
        except Exception as exc:
            headers = getattr(exc, "litellm_response_headers", None) or None
            raise
        finally:
            if self.observe is not None:
                self.observe(headers)
        return _litellm_completion(response)

    async def _complete(self, messages: list[Message], schema: dict[str, Any],
                        params: dict[str, Any], timeout: float) -> Any:
        import litellm

        kwargs: dict[str, Any] = {"model": self.spec.name, "messages": messages,
                                  "timeout": timeout, "num_retries": 0, "max_retries": 0,
                                  # providers without e.g. ``seed`` get the rest; the schema
                                  # is also in the prompt, so nothing essential is lost
                                  "drop_params": True, **openai_params(params)}
        if self.spec.api_base:
            kwargs["api_base"], basic = url_credentials(self.spec.api_base)
            if basic is not None:  # user:password@ travels as a header on every transport
                register_secret(basic.split(" ", 1)[1])
                kwargs["extra_headers"] = {"Authorization": basic}
        if self._api_key:
            kwargs["api_key"] = self._api_key
        field = response_format_field(self.response_format, schema)
        if field is not None:
            kwargs["response_format"] = field
        deadline = timeout * 2 + 5  # litellm enforces ``timeout``; this guards the rest
        while True:
            keyless = not self._api_key and self.spec.api_base is not None
            placeholder = keyless and self.provider in KEY_REQUIRED
            if placeholder:
                kwargs["client"] = self._keyless_client()
            elif self._api_key and self.spec.api_base and self.provider == "openai":
                kwargs["client"] = self._capped_client()
            try:
                return await asyncio.wait_for(litellm.acompletion(**kwargs), deadline)
            except asyncio.TimeoutError:
                raise RequestTimeoutError(
                    f"no answer from {self.spec.name} within {deadline:g} s "
                    f"(twice the timeout of {timeout:g} s, plus 5)") from None
            except Exception as exc:
                if not keyless or placeholder or not refused_without_key(exc):
                    raise
                KEY_REQUIRED.add(self.provider)  # nothing was sent: ask again, keyless


# litellm providers whose handler builds an OpenAI SDK client, which will not start without
# a key; learned from the first refusal (openai, custom_openai, litellm_proxy, ...)
KEY_REQUIRED: set[str] = set()
NO_KEY = "irforge-no-key"  # satisfies the client's check; the header carrying it is dropped


PLACEHOLDER_AUTH = f"Bearer {NO_KEY}"


async def drop_placeholder_key(request: Any) -> None:
    """httpx request hook: remove the placeholder ``Authorization`` header before sending, so a
    keyless server sees no key at all, as on the direct path (never a made-up key on the wire)."""
    if request.headers.get("Authorization") == PLACEHOLDER_AUTH:
        del request.headers["Authorization"]


def keyless_openai_client(api_base: str) -> Any:
    """An OpenAI SDK client for a server without a key: it is built with the placeholder (the
    SDK will not start without one) and its HTTP client drops that header on every request."""
    import httpx
    from openai import AsyncOpenAI

    from irforge.llm.capped_http import CappedTransport

    http = httpx.AsyncClient(event_hooks={"request": [drop_placeholder_key]},
                             transport=CappedTransport())
    return AsyncOpenAI(api_key=NO_KEY, base_url=api_base, http_client=http, max_retries=0)


def capped_openai_client(api_base: str, api_key: str) -> Any:
    """An OpenAI SDK client whose HTTP client reads no answer past its token budget."""
    import httpx
    from openai import AsyncOpenAI

    from irforge.llm.capped_http import CappedTransport

    http = httpx.AsyncClient(transport=CappedTransport())
    return AsyncOpenAI(api_key=api_key, base_url=api_base, http_client=http, max_retries=0)


# what the OpenAI SDK says when it will not build a client without a key (new, older SDKs)
NO_KEY_REFUSALS = ("Missing credentials", "api_key client option must be set")


def refused_without_key(exc: BaseException) -> bool:
    """Whether ``exc`` is the OpenAI SDK refusing to build a client without a key (raised
    before any request is sent; litellm wraps it with the SDK's text in its message)."""
    text = str(exc)
    return any(refusal in text for refusal in NO_KEY_REFUSALS)


def _litellm_completion(response: Any) -> Completion:
    choice = response.choices[0]
    message = choice.message
    usage = getattr(response, "usage", None)
    return Completion(
        text=message.content or "",
        finish_reason=getattr(choice, "finish_reason", None),
        refusal=_refusal(message),
        prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
        completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
        logprobs=openai_logprobs(getattr(choice, "logprobs", None)))


def _refusal(message: Any) -> str | None:
    """OpenAI's ``refusal`` field; litellm keeps it on the message or in provider fields."""
    direct = getattr(message, "refusal", None)
    if direct:
        return str(direct)
    extra = getattr(message, "provider_specific_fields", None) or {}
    return str(extra["refusal"]) if extra.get("refusal") else None


GRAMMAR_MAX_ITEMS = 16
LLAMA_SLOTS = 1  # sequences the embedded model decodes together by default (opt in)


def grammar_schema(schema: Any) -> Any:
    """A copy of ``schema`` that llama.cpp can turn into a grammar without blowing up.

    llama.cpp unrolls length bounds into nested rules; a ``maxLength`` of a few hundred
    overflows its grammar parser (and can crash the process). String length bounds and
    large ``maxItems`` are dropped here; pydantic still enforces them on the answer, and a
    violation is re-asked like any other validation error.
    """
    if isinstance(schema, dict):
        out = {}
        for key, value in schema.items():
            if key in ("maxLength", "minLength"):
                continue
            if key == "maxItems" and isinstance(value, int) and value > GRAMMAR_MAX_ITEMS:
                continue
            out[key] = grammar_schema(value)
        return out
    if isinstance(schema, list):
        return [grammar_schema(value) for value in schema]
    return schema


_LOADED: dict[str, Any] = {}
_LOAD_LOCK = threading.Lock()


def load_llama(path: Path, n_ctx: int = 4096, seed: int = 0) -> Any:
    """Load a GGUF once per process (llama.cpp models are large; share one instance)."""
    from irforge.core.errors import require

    llama_cpp = require("llama_cpp", "local")
    key = str(path)
    with _LOAD_LOCK:
        if key not in _LOADED:
            if not _LOADED:  # free models before interpreter teardown unloads llama.cpp
                atexit.register(_free_loaded)
            _LOADED[key] = llama_cpp.Llama(model_path=key, n_ctx=n_ctx, seed=seed,
                                           verbose=False)
        return _LOADED[key]


def _free_loaded() -> None:
    """Close every loaded model while llama.cpp's library is still there (at exit)."""
    with _LOAD_LOCK:
        models = list(_LOADED.values())
        _LOADED.clear()
    for model in models:
        close = getattr(model, "close", None)
        if callable(close):
            close()


def _deadline_of(llama: Any) -> list[float | None]:
    """A one-slot deadline that llama.cpp checks while it computes (its abort callback):
    past it, decoding stops with an error instead of running to ``max_tokens``."""
    slot = getattr(llama, "_irforge_deadline", None)
    if slot is None:
        import llama_cpp

        slot = [None]

        def past_deadline(_data: Any) -> bool:
            return slot[0] is not None and time.monotonic() > slot[0]

        callback = llama_cpp.ggml_abort_callback(past_deadline)
        llama_cpp.llama_set_abort_callback(llama.ctx, callback, None)
        llama._irforge_deadline, llama._irforge_abort = slot, callback  # keep them alive
    return slot


class LogitsCapture:
    """Records the model's own next-token distribution at every generated token.

    llama.cpp returns log-probs only for models loaded with ``logits_all`` (a full
    context x vocabulary array); a logits processor sees the raw logits of each step instead,
    before the JSON grammar masks them, so the probabilities are the model's, not the grammar's.
    """

    def __init__(self, llama: Any, top: int) -> None:
        self.llama = llama
        self.top = top
        self.steps: list[tuple[int, tuple[tuple[str, float], ...]]] = []  # (input length, top)
        self.last_ids: list[int] = []

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import numpy as np

        logits = np.asarray(scores, dtype=np.float64)
        shifted = logits - logits.max()
        logprobs = shifted - np.log(np.exp(shifted).sum())
        best = np.argpartition(-logprobs, self.top)[:self.top]
        best = best[np.argsort(-logprobs[best])]
        self.steps.append((len(input_ids), tuple((self._piece(int(i)), float(logprobs[i]))
                                                 for i in best)))
        self.last_ids.append(int(input_ids[-1]) if len(input_ids) else -1)
        return scores

    def _piece(self, token: int) -> str:
        return self.llama.detokenize([token]).decode("utf-8", errors="ignore")

    def processors(self) -> Any:
        from llama_cpp import LogitsProcessorList

        return LogitsProcessorList([self])

    def tokens(self) -> tuple[TokenLogprob, ...]:
        """(chosen token, its logprob if among the top, top alternatives) per generated step;
        the token chosen at a step is the last input of the next one."""
        out: list[TokenLogprob] = []
        for index, (_, alternatives) in enumerate(self.steps):
            chosen = (self._piece(self.last_ids[index + 1]) if index + 1 < len(self.steps)
                      else "")
            logprob = dict(alternatives).get(chosen, float("-inf")) if chosen else 0.0
            out.append((chosen, logprob, alternatives))
        return tuple(out)


class LlamaBackend:
    """A GGUF model in-process through llama.cpp with JSON-schema-constrained decoding.

    llama.cpp contexts are not thread safe: calls run one at a time in a worker thread.
    """

    _call_lock = threading.Lock()

    def __init__(self, spec: ModelSpec, n_ctx: int = 4096, seed: int = 0,
                 slots: int = 1) -> None:
        assert spec.gguf_path is not None
        self.slots = slots  # sequences decoded together (1: one request at a time)
        self.spec = spec
        self.name = spec.name
        self.n_ctx = n_ctx
        self.seed = seed

    def _complete_sync(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float | None = None) -> Completion:
        """Stream the answer, stopping as soon as it loops (finish reason ``repetition``);
        past ``timeout`` llama.cpp aborts decoding; log-probs are captured when asked."""
        llama = load_llama(self.spec.gguf_path, self.n_ctx, self.seed)
        deadline = _deadline_of(llama)
        top = int(params.get("logprobs") or 0)
        parts: list[str] = []
        finish: str | None = None
        chunks = 0
        with self._call_lock:
            capture = LogitsCapture(llama, top) if top else None
            # the clock starts once this call has the model (queued calls do not time out)
            deadline[0] = time.monotonic() + timeout if timeout else None
            try:
                stream = llama.create_chat_completion(
                    messages=messages,
                    response_format={"type": "json_object", "schema": grammar_schema(schema)},
                    temperature=params.get("temperature", 0.0),
                    repeat_penalty=params.get("repeat_penalty", 1.0),
                    max_tokens=params.get("max_tokens"), seed=params.get("seed", self.seed),
                    logits_processor=capture.processors() if capture else None, stream=True)
                try:
                    for chunk in stream:
                        choice = chunk["choices"][0]
                        piece = (choice.get("delta") or {}).get("content") or ""
                        if piece:
                            parts.append(piece)
                            chunks += 1
                        finish = choice.get("finish_reason") or finish
                        if chunks % LOOP_CHECK_EVERY == 0 and piece and \
                                looping_tail("".join(parts)) is not None:
                            finish = LOOP_FINISH_REASON
                            break
                finally:
                    stream.close()
            except RuntimeError as exc:
                if deadline[0] is not None and time.monotonic() > deadline[0]:
                    raise GenerationTimeout(
                        f"the local model took longer than the {timeout:g} s timeout "
                        "(--timeout); raise it, or lower --max-tokens") from exc
                raise
            finally:
                deadline[0] = None
            prompt_tokens = len(llama.tokenize(
                "\n".join(m["content"] for m in messages).encode("utf-8"), add_bos=False))
        return Completion(text="".join(parts), finish_reason=finish,
                          prompt_tokens=prompt_tokens, completion_tokens=chunks,
                          logprobs=capture.tokens() if capture else None)

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion:
        """With ``slots`` > 1 the request joins the model's batched decoder (several
        sequences per llama.cpp batch, irforge/llm/llama_batched.py); asked for log-probs, or
        with one slot, it runs alone."""
        if self.slots > 1 and not params.get("logprobs"):
            from irforge.llm.llama_batched import batched

            llama = await asyncio.to_thread(load_llama, self.spec.gguf_path, self.n_ctx,
                                            self.seed)
            return await batched(llama, self.slots).complete(
                messages, grammar_schema(schema), params, timeout, self.seed)
        return await asyncio.to_thread(self._complete_sync, messages, schema, params, timeout)

    def session(self) -> AbstractAsyncContextManager[Any]:
        return contextlib.nullcontext()


def _llama(spec: ModelSpec, api_key: str | None, response_format: str,
           observe: HeaderSink | None, notes: list[str]) -> Backend:
    return LlamaBackend(spec, slots=llama_slots())


def llama_slots(config: Mapping[str, Any] | None = None) -> int:
    """Sequences the embedded model decodes in one batch: ``llama_slots`` in irforge.toml,
    else :data:`LLAMA_SLOTS` (1 turns batching off)."""
    from irforge.llm.settings import load_config

    value = (load_config() if config is None else config).get("llama_slots", LLAMA_SLOTS)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        from irforge.core.errors import IrforgeError

        raise IrforgeError(f"irforge.toml [llm] llama_slots must be a whole number of at least "
                           f"1, got {value!r}")
    return value


def _litellm(spec: ModelSpec, api_key: str | None, response_format: str,
             observe: HeaderSink | None, notes: list[str]) -> Backend:
    return LiteLLMBackend(spec, api_key=api_key, response_format=response_format,
                          observe=observe)


def _direct(spec: ModelSpec, api_key: str | None, response_format: str,
            observe: HeaderSink | None, notes: list[str]) -> Backend:
    from irforge.llm.direct import DirectBackend

    return DirectBackend(spec, api_key=api_key, response_format=response_format,
                         observe=observe, notes=notes)


BACKENDS: dict[str, Callable[..., Backend]] = {"llama": _llama, "litellm": _litellm,
                                               "direct": _direct}


def make_backend(spec: ModelSpec, api_key: str | None = None, response_format: str = "auto",
                 observe: HeaderSink | None = None, notes: list[str] | None = None) -> Backend:
    """The backend for a resolved model, by its transport (routing.py)."""
    return BACKENDS[spec.route](spec, api_key, response_format, observe,
                               notes if notes is not None else [])
