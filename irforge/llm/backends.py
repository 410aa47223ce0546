"""The two ways a request reaches a model: litellm (any provider) or llama.cpp in-process."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path
from typing import Any, Protocol

from irforge.llm.completion import Completion, Message
from irforge.llm.degeneration import LOOP_CHECK_EVERY, LOOP_FINISH_REASON, looping_tail
from irforge.llm.settings import API_KEY_ENV, ModelSpec, silence_litellm


class Backend(Protocol):
    """Sends one chat request and returns the answer; raises on transport failures."""

    name: str

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion: ...


def schema_name(schema: dict[str, Any]) -> str:
    title = str(schema.get("title") or "output")
    return "".join(ch if ch.isalnum() or ch in "_-" else "_" for ch in title)[:64] or "output"


class LiteLLMBackend:
    """Any litellm provider; json_schema response format where supported, else instructions."""

    def __init__(self, spec: ModelSpec, api_key: str | None = None,
                 response_format: str = "auto") -> None:
        silence_litellm()
        self.spec = spec
        self.name = spec.name
        self._api_key = api_key or os.environ.get(API_KEY_ENV) or None
        if self._api_key is None and spec.api_base:
            self._api_key = "none"  # OpenAI-compatible local servers accept any key
        self.response_format = self._choose_format(response_format)

    def _choose_format(self, wanted: str) -> str:
        if wanted != "auto":
            return wanted
        if self.spec.api_base:
            return "json_schema"
        import litellm

        try:
            supported = litellm.supports_response_schema(model=self.spec.name)
        except Exception:  # unknown model in the price map
            supported = False
        return "json_schema" if supported else "instructions"

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion:
        import litellm

        kwargs: dict[str, Any] = {"model": self.spec.name, "messages": messages,
                                  "timeout": timeout, "num_retries": 0, "max_retries": 0,
                                  # providers without e.g. ``seed`` get the rest; the schema
                                  # is also in the prompt, so nothing essential is lost
                                  "drop_params": True, **params}
        if self.spec.api_base:
            kwargs["api_base"] = self.spec.api_base
        if self._api_key:
            kwargs["api_key"] = self._api_key
        if self.response_format == "json_schema":
            kwargs["response_format"] = {"type": "json_schema", "json_schema": {
                "name": schema_name(schema), "schema": schema, "strict": False}}
        elif self.response_format == "json_object":
            kwargs["response_format"] = {"type": "json_object"}
        response = await asyncio.wait_for(litellm.acompletion(**kwargs), timeout * 2 + 5)
        choice = response.choices[0]
        message = choice.message
        usage = getattr(response, "usage", None)
        return Completion(
            text=message.content or "",
            finish_reason=getattr(choice, "finish_reason", None),
            refusal=_refusal(message),
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0))


def _refusal(message: Any) -> str | None:
    """OpenAI's ``refusal`` field; litellm keeps it on the message or in provider fields."""
    direct = getattr(message, "refusal", None)
    if direct:
        return str(direct)
    extra = getattr(message, "provider_specific_fields", None) or {}
    return str(extra["refusal"]) if extra.get("refusal") else None


GRAMMAR_MAX_ITEMS = 16


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
    from irforge.errors import require

    llama_cpp = require("llama_cpp", "local")
    key = str(path)
    with _LOAD_LOCK:
        if key not in _LOADED:
            _LOADED[key] = llama_cpp.Llama(model_path=key, n_ctx=n_ctx, seed=seed,
                                           verbose=False)
        return _LOADED[key]


class LlamaBackend:
    """A GGUF model in-process through llama.cpp with JSON-schema-constrained decoding.

    llama.cpp contexts are not thread safe: calls run one at a time in a worker thread.
    """

    _call_lock = threading.Lock()

    def __init__(self, spec: ModelSpec, n_ctx: int = 4096, seed: int = 0) -> None:
        assert spec.gguf_path is not None
        self.spec = spec
        self.name = spec.name
        self.n_ctx = n_ctx
        self.seed = seed

    def _complete_sync(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any]) -> Completion:
        """Stream the answer, stopping as soon as it loops (finish reason ``repetition``)."""
        llama = load_llama(self.spec.gguf_path, self.n_ctx, self.seed)
        parts: list[str] = []
        finish: str | None = None
        chunks = 0
        with self._call_lock:
            stream = llama.create_chat_completion(
                messages=messages,
                response_format={"type": "json_object", "schema": grammar_schema(schema)},
                temperature=params.get("temperature", 0.0),
                repeat_penalty=params.get("repeat_penalty", 1.0),
                max_tokens=params.get("max_tokens"), seed=params.get("seed", self.seed),
                stream=True)
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
            prompt_tokens = len(llama.tokenize(
                "\n".join(m["content"] for m in messages).encode("utf-8"), add_bos=False))
        return Completion(text="".join(parts), finish_reason=finish,
                          prompt_tokens=prompt_tokens, completion_tokens=chunks)

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion:
        return await asyncio.to_thread(self._complete_sync, messages, schema, params)


def make_backend(spec: ModelSpec, api_key: str | None = None,
                 response_format: str = "auto") -> Backend:
    """The backend for a resolved model."""
    if spec.backend == "llama":
        return LlamaBackend(spec)
    return LiteLLMBackend(spec, api_key=api_key, response_format=response_format)
