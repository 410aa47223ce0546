"""An httpx transport that reads no more of an answer than its request's token budget allows.

The litellm path hands OpenAI-compatible requests to an OpenAI SDK client that irforge builds
(``llm/backends.py``); its HTTP client uses :class:`CappedTransport`, which reads the body
itself, at most :func:`~irforge.llm.answer_size.body_limit` bytes for the request's
``max_tokens``, and past that answers 413 with the reason instead (not retried: the item fails
with the message), so a 10 MB answer is never held in memory whole.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from irforge.llm.answer_size import body_limit, too_large

TOO_LARGE_STATUS = 413


def request_params(request: httpx.Request) -> dict[str, Any]:
    """The JSON body of a chat request (its ``max_tokens``, ``logprobs``), or {}."""
    try:
        body = json.loads(request.content or b"{}")
    except (ValueError, httpx.RequestNotRead):
        return {}
    return body if isinstance(body, dict) else {}


class CappedTransport(httpx.AsyncBaseTransport):
    """Reads each response body up to the request's limit; a larger one becomes a 413."""

    def __init__(self, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self._inner = inner or httpx.AsyncHTTPTransport()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        params = request_params(request)
        limit = body_limit(params)
        response = await self._inner.handle_async_request(request)
        chunks: list[bytes] = []
        try:
            declared = response.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > limit:
                return _refusal(request, too_large("body (bytes)", int(declared), limit, params))
            size = 0
            async for chunk in response.stream:  # type: ignore[union-attr]
                size += len(chunk)
                if size > limit:
                    return _refusal(request, too_large("body (bytes)", size, limit, params))
                chunks.append(chunk)
        finally:
            await response.aclose()
        return httpx.Response(response.status_code, headers=response.headers,
                              content=b"".join(chunks), extensions=response.extensions,
                              request=request)

    async def aclose(self) -> None:
        await self._inner.aclose()


def _refusal(request: httpx.Request, reason: Exception) -> httpx.Response:
    return httpx.Response(TOO_LARGE_STATUS, request=request, json={"error": {
        "message": str(reason), "type": "answer_too_large", "code": TOO_LARGE_STATUS}})
