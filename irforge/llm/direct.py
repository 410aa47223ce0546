"""The direct path: OpenAI-compatible chat completions over one pooled aiohttp session.

Used for OpenAI itself and any ``api_base`` that speaks the OpenAI chat API (vLLM, SGLang,
llama.cpp server, Ollama's ``/v1``, LM Studio); see irforge/llm/routing.py for the choice.
It sends the same request body litellm would, raises errors that carry the HTTP status and
headers (so retries honour ``Retry-After``), reports every response's rate-limit headers to
the engine, and adapts once to a server that rejects a parameter (``response_format``,
``seed``, ``temperature``, ``max_tokens``), as litellm's ``drop_params`` does.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from typing import Any

from irforge.core.redact import register_secret
from irforge.llm.answer_size import body_limit, too_large
from irforge.llm.completion import Completion, Message, openai_logprobs, openai_params
from irforge.llm.retry import RequestTimeoutError
from irforge.llm.routing import endpoint_base, provider_key, provider_model, url_credentials
from irforge.llm.settings import API_KEY_ENV, ModelSpec

# parameters a server may refuse, and what to send instead (None: leave it out)
ADAPTABLE: dict[str, str | None] = {"max_tokens": "max_completion_tokens",
                                    "response_format": None, "seed": None,
                                    "temperature": None}
# how servers say a parameter is not accepted (OpenAI, vLLM/pydantic, llama.cpp server)
REFUSED_WORDS = ("unsupported", "not supported", "unrecognized", "unknown", "not permitted",
                 "does not support", "not allowed")
MAX_ERROR_BODY = 600


class APIStatusError(Exception):
    """A non-200 answer: the status, the server's message and its headers (for Retry-After)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str]) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status_code = status
        self.headers = headers
        self.message = message


class MalformedResponseError(Exception):
    """A 200 answer whose body is not a chat completion (retried like a dropped connection)."""


class DirectBackend:
    """OpenAI chat completions over HTTP with a pooled session; see the module docstring."""

    def __init__(self, spec: ModelSpec, api_key: str | None = None,
                 response_format: str = "auto",
                 observe: Callable[[Mapping[str, str] | None], None] | None = None,
                 notes: list[str] | None = None) -> None:
        from irforge.llm.response_format import choose_response_format

        self.spec = spec
        self.name = spec.name
        base, basic = url_credentials(endpoint_base(spec.api_base))
        self.url = base + "/chat/completions"
        self.proxy = env_proxy(self.url)
        self.model = provider_model(spec.name)
        self._api_key = provider_key(spec.name, api_key or os.environ.get(API_KEY_ENV))
        register_secret(self._api_key)
        self._headers = {"Content-Type": "application/json"}
        if self._api_key:
            self._headers["Authorization"] = f"Bearer {self._api_key}"
        if basic is not None:  # the URL's user:password@ wins, as httpx lets it on litellm
            register_secret(basic.split(" ", 1)[1])
            self._headers["Authorization"] = basic
        self.response_format = choose_response_format(spec, response_format)
        self.observe = observe
        self.notes = notes if notes is not None else []
        self.renamed: dict[str, str | None] = {}  # parameters the server refused
        self._session: Any = None
        self._session_loop: asyncio.AbstractEventLoop | None = None
        self._users = 0
        self._timeouts: dict[float, Any] = {}
        # (schema, params, JSON of every field but the messages): the part of the body
        # that is the same for every request of a run, serialized once
        self._static: tuple[dict[str, Any], dict[str, Any], str] | None = None

    # session lifetime -----------------------------------------------------------------------
    @asynccontextmanager
    async def session(self) -> AsyncIterator[None]:
        """Keep one pooled session open while a run is in progress; close it after."""
        self._users += 1
        try:
            yield
        finally:
            self._users -= 1
            if self._users == 0:
                await self.aclose()

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()

    def _client(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._session is None or self._session.closed or self._session_loop is not loop:
            import aiohttp

            connector = aiohttp.TCPConnector(limit=0, ttl_dns_cache=300)
            self._session = aiohttp.ClientSession(connector=connector, headers=self._headers)
            self._session_loop = loop
        return self._session

    def _timeout(self, seconds: float) -> Any:
        timeout = self._timeouts.get(seconds)
        if timeout is None:
            import aiohttp

            timeout = self._timeouts[seconds] = aiohttp.ClientTimeout(total=seconds)
        return timeout

    # requests -------------------------------------------------------------------------------
    def body(self, messages: list[Message], schema: dict[str, Any],
             params: dict[str, Any]) -> dict[str, Any]:
        """The request body: what litellm would send to an OpenAI-compatible server."""
        from irforge.llm.response_format import response_format_field

        body: dict[str, Any] = {"model": self.model, "messages": messages}
        for key, value in openai_params(params).items():
            if key in self.renamed:
                renamed = self.renamed[key]
                if renamed is not None:
                    body[renamed] = value
            else:
                body[key] = value
        if "response_format" not in self.renamed:
            field = response_format_field(self.response_format, schema)
            if field is not None:
                body["response_format"] = field
        return body

    def encode(self, messages: list[Message], schema: dict[str, Any],
               params: dict[str, Any]) -> bytes:
        """:meth:`body` as JSON bytes; only the messages are serialized per request."""
        static = self._static
        if static is None or static[0] is not schema or static[1] != params:
            rest = self.body([], schema, params)
            del rest["messages"]
            static = self._static = (schema, dict(params), json.dumps(rest)[1:-1])
        tail = static[2]
        return (f'{{"messages":{json.dumps(messages)}{"," if tail else ""}{tail}}}'
                .encode())

    async def complete(self, messages: list[Message], schema: dict[str, Any],
                       params: dict[str, Any], timeout: float) -> Completion:
        while True:
            try:
                return await self._post(self.encode(messages, schema, params), timeout,
                                        body_limit(params), params)
            except APIStatusError as exc:
                if not self._adapt(exc):
                    raise

    async def _post(self, data: bytes, timeout: float, limit: int,
                    params: Mapping[str, Any]) -> Completion:
        headers: Mapping[str, str] | None = None
        try:
            async with self._client().post(self.url, data=data, proxy=self.proxy,
                                           timeout=self._timeout(timeout)) as response:
                headers = response.headers
                raw = await read_capped(response, limit, params)
                status = response.status
        except asyncio.TimeoutError:
            raise RequestTimeoutError(
                f"no complete answer from {self.url} within {timeout:g} s (the timeout)") from None
        finally:
            if self.observe is not None:
                self.observe(headers)
        if status != 200:
            raise APIStatusError(status, _error_message(raw),
                                 {key.lower(): value for key, value in headers.items()})
        return parse_completion(raw)

    def _adapt(self, exc: APIStatusError) -> bool:
        """After a 400 naming a parameter the server refuses: stop sending it; True to resend."""
        if exc.status_code not in (400, 422):
            return False
        text = exc.message.lower()
        if not any(word in text for word in REFUSED_WORDS):
            return False
        for param, replacement in ADAPTABLE.items():
            if param in self.renamed or param not in text:
                continue
            self.renamed[param] = replacement
            self._static = None
            instead = f"sending {replacement}" if replacement else "leaving it out"
            note = (f"{self.url.rsplit('/chat/', 1)[0]} refused the parameter {param}; "
                    f"{instead} from now on")
            if param == "response_format":
                self.response_format = "instructions"
                note += " (the schema stays in the prompt and answers are still validated)"
            if note not in self.notes:
                self.notes.append(note)
            return True
        return False


async def read_capped(response: Any, limit: int, params: Mapping[str, Any]) -> bytes:
    """The response body, read no further than ``limit`` bytes (AnswerTooLarge past it)."""
    declared = response.content_length
    if declared is not None and declared > limit:
        raise too_large("body (bytes)", declared, limit, params)
    chunks: list[bytes] = []
    size = 0
    while True:
        chunk = await response.content.read(min(1 << 16, limit + 1 - size))
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > limit:
            raise too_large("body (bytes)", size, limit, params)
        chunks.append(chunk)


def env_proxy(url: str) -> str | None:
    """The proxy the environment names for ``url`` (``HTTPS_PROXY``, ``NO_PROXY``...), once."""
    from urllib.parse import urlsplit
    from urllib.request import getproxies, proxy_bypass

    parts = urlsplit(url)
    proxy = getproxies().get(parts.scheme)
    if not proxy or proxy_bypass(parts.netloc):
        return None
    return proxy


def _error_message(raw: bytes) -> str:
    """The server's error text (OpenAI's ``error.message`` and ``param`` when present)."""
    text = raw.decode("utf-8", "replace")
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return text[:MAX_ERROR_BODY]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        message = str(error.get("message") or text)
        if error.get("param"):
            message += f" (param: {error['param']})"
        return message[:MAX_ERROR_BODY]
    return str(error)[:MAX_ERROR_BODY]


def parse_completion(raw: bytes) -> Completion:
    """A :class:`Completion` from a chat completion body; raises MalformedResponseError."""
    try:
        data = json.loads(raw)
        choice = data["choices"][0]
        message = choice["message"]
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, IndexError, TypeError) as exc:
        preview = raw[:120].decode("utf-8", "replace")
        raise MalformedResponseError(
            f"the server's answer is not a chat completion ({type(exc).__name__}): "
            f"{preview!r}") from None
    content = message.get("content")
    if isinstance(content, list):  # content parts
        content = "".join(str(part.get("text", "")) for part in content
                          if isinstance(part, dict))
    usage = data.get("usage") or {}
    return Completion(text=content or "", finish_reason=choice.get("finish_reason"),
                      refusal=message.get("refusal") or None,
                      prompt_tokens=int(usage.get("prompt_tokens") or 0),
                      completion_tokens=int(usage.get("completion_tokens") or 0),
                      logprobs=openai_logprobs(choice.get("logprobs")))
