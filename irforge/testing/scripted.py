"""A scripted OpenAI-compatible server on 127.0.0.1, for fault injection tests and benchmarks.

It answers ``POST /v1/chat/completions`` from a :class:`Script`: requests whose last user
message contains a rule's ``match`` text get that rule's actions in order (the last one
repeats); others get the default action. Actions: a normal answer, an HTTP error status
(optionally with ``Retry-After``), a hang, a body that is not JSON, an answer cut off with
``finish_reason=length``, a refusal. Optional rate limits answer with OpenAI's
``x-ratelimit-*`` headers and 429 once spent (scripted_limits.py); optional ``unsupported``
parameters are refused with 400 as strict servers do. Every request is logged. A minimal
OpenAI Batch API (``/v1/files``, ``/v1/batches``) answers batch lines by the same rules
(scripted_batch.py).
It is not a model: it exists to make failures happen on purpose, through the real HTTP path.

Run it in a thread (:class:`ScriptedServer`) or as a process:
``python -m irforge.testing.scripted --script script.json --latency 0.05`` (prints the port).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
import time
from collections import Counter
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from irforge.testing.scripted_batch import ScriptedBatches
from irforge.testing.scripted_limits import ScriptedLimits

REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           429: "Too Many Requests",
           500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable"}


@dataclass(frozen=True)
class Action:
    """What the server does with one request."""

    # answer | status | hang | broken_body | truncated | refusal | echo | echo_answer
    kind: str = "answer"
    content: str = ""
    status: int = 200
    retry_after: float | None = None
    seconds: float = 0.0

    @classmethod
    def answer(cls, content: str | dict[str, Any]) -> Action:
        text = content if isinstance(content, str) else json.dumps(content)
        return cls("answer", text)

    @classmethod
    def error(cls, status: int, retry_after: float | None = None) -> Action:
        return cls("status", status=status, retry_after=retry_after)

    @classmethod
    def hang(cls, seconds: float = 3600.0) -> Action:
        return cls("hang", seconds=seconds)

    @classmethod
    def echo_headers(cls, status: int = 500) -> Action:
        """An error whose message repeats the request headers (as some proxies do)."""
        return cls("echo", status=status)

    @classmethod
    def echo_in_answer(cls, content: str | dict[str, Any]) -> Action:
        """A normal answer in which ``{authorization}`` becomes the request's Authorization
        header (a server leaking the caller's key into the data)."""
        text = content if isinstance(content, str) else json.dumps(content)
        return cls("echo_answer", text)

    @classmethod
    def broken_body(cls) -> Action:
        return cls("broken_body")

    @classmethod
    def truncated(cls, content: str) -> Action:
        return cls("truncated", content)

    @classmethod
    def refusal(cls, content: str = "I can't help with that.") -> Action:
        return cls("refusal", content)


@dataclass(frozen=True)
class Rule:
    """Requests whose first user message contains ``match`` get ``actions`` in order.

The first user message is the item's prompt, so re-asks of one item follow its rule too.
"""

    match: str
    actions: tuple[Action, ...]


@dataclass(frozen=True)
class Script:
    """The whole behaviour of a server: rules, a default action and a fixed latency (plus,
    with ``jitter``, a random 0 to ``jitter`` seconds per answer drawn from ``jitter_seed``,
    so answers come back in a shuffled order)."""

    default: Action = field(default_factory=lambda: Action.answer({"ok": True}))
    rules: tuple[Rule, ...] = ()
    latency: float = 0.0
    jitter: float = 0.0
    jitter_seed: int = 0
    batch_polls: int = 1  # retrieves of a batch until it completes (scripted_batch.py)
    batch_retrieve_errors: int = 0  # the first N batch retrieves answer 503
    api_key: str | None = None  # when set, other bearer keys get 401 (like a real provider)
    rate_requests: int = 0  # requests per rate_window (0: unlimited), see scripted_limits.py
    rate_tokens: int = 0  # tokens per rate_window (0: unlimited)
    rate_window: float = 60.0
    unsupported: tuple[str, ...] = ()  # request fields answered with 400 "unsupported"

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Script:
        data = json.loads(text)
        rules = tuple(Rule(r["match"], tuple(Action(**a) for a in r["actions"]))
                      for r in data.get("rules", []))
        return cls(default=Action(**data.get("default", {})), rules=rules,
                   latency=float(data.get("latency", 0.0)),
                   jitter=float(data.get("jitter", 0.0)),
                   jitter_seed=int(data.get("jitter_seed", 0)),
                   batch_polls=int(data.get("batch_polls", 1)),
                   batch_retrieve_errors=int(data.get("batch_retrieve_errors", 0)),
                   rate_requests=int(data.get("rate_requests", 0)),
                   rate_tokens=int(data.get("rate_tokens", 0)),
                   rate_window=float(data.get("rate_window", 60.0)),
                   unsupported=tuple(data.get("unsupported", ())),
                   api_key=data.get("api_key"))


@dataclass(frozen=True)
class LoggedRequest:
    """One request the server received: what it asked and what the script did."""

    number: int
    first_user: str
    action: str
    messages: list[dict[str, Any]]
    received: float = 0.0  # time.monotonic() when it arrived
    params: dict[str, Any] = field(default_factory=dict)  # the body without the messages
    authorization: str = ""  # the Authorization header as received (tests check keys)


class ScriptedApp:
    """The protocol logic, independent of how the server runs."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.log: list[LoggedRequest] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._seen: Counter[str] = Counter()
        self._jitter = random.Random(script.jitter_seed)
        self.batch_lines = 0  # batch requests answered (they are not in ``log``)
        self.batches = ScriptedBatches(self)
        self.limits = (ScriptedLimits(script.rate_requests, script.rate_tokens,
                                      script.rate_window)
                       if script.rate_requests or script.rate_tokens else None)

    def choose(self, first_user: str) -> Action:
        for rule in self.script.rules:
            if rule.match in first_user:
                index = self._seen[rule.match]
                self._seen[rule.match] += 1
                return rule.actions[min(index, len(rule.actions) - 1)]
        return self.script.default

    def count(self, match: str) -> int:
        """How many logged requests had ``match`` in their first user message."""
        return sum(1 for entry in self.log if match in entry.first_user)

    async def handle(self, method: str, path: str, body: bytes,
                     headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], bytes]:
        if self.batches.handles(path):
            return await self.batches.handle(method, path, body, headers or {})
        if method == "GET" and path.rstrip("/").endswith("/models"):
            return _json(200, {"object": "list", "data": [{"id": "scripted", "object": "model"}]})
        if method == "GET" and path == "/_stats":
            return _json(200, {"requests": len(self.log),
                               "actions": dict(Counter(e.action for e in self.log))})
        if method != "POST" or not path.rstrip("/").endswith("/chat/completions"):
            return _json(404, {"error": {"message": f"no route {method} {path}"}})
        try:
            request = json.loads(body)
            messages = request["messages"]
        except (json.JSONDecodeError, KeyError, TypeError):
            return _json(400, {"error": {"message": "body must be a chat completion request"}})
        first_user = next((str(m.get("content")) for m in messages
                           if m.get("role") == "user"), "")
        params = {k: v for k, v in request.items() if k != "messages"}
        authorization = (headers or {}).get("authorization", "")

        def log(kind: str) -> None:
            self.log.append(LoggedRequest(len(self.log) + 1, first_user, kind, messages,
                                          time.monotonic(), params, authorization))

        refused = self._refuse(request)
        if refused is not None:
            kind, reply = refused
            log(kind)
            return reply
        limit_headers: dict[str, str] = {}
        if self.limits is not None:
            allowed, limit_headers = self.limits.admit(request)
            if not allowed:
                log("rate_limited")
                status, base, payload = _json(429, {"error": {
                    "message": "scripted rate limit reached", "type": "requests",
                    "code": "rate_limit_exceeded"}})
                return status, {**base, **limit_headers}, payload
        action = self.choose(first_user)
        headers = headers or {}
        if self.script.api_key and headers.get("authorization") != f"Bearer {self.script.api_key}":
            action = Action("status", status=401)
        elif action.kind == "echo":
            action = Action("echo", status=action.status,
                            content=json.dumps({k: v for k, v in headers.items()}))
        elif action.kind == "echo_answer":
            action = Action("answer", content=action.content.replace(
                "{authorization}", headers.get("authorization", "")))
        log(action.kind)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            delay = self.script.latency + (self._jitter.uniform(0, self.script.jitter)
                                           if self.script.jitter else 0.0)
            if delay:
                await asyncio.sleep(delay)
            status, out_headers, payload = await self._act(action, request, messages)
            return status, {**out_headers, **limit_headers}, payload
        finally:
            self.in_flight -= 1

    def _refuse(self, request: dict[str, Any]) -> tuple[str, tuple[int, dict[str, str],
                                                                   bytes]] | None:
        """A 400 for a request field the script declares unsupported, as OpenAI words it."""
        for param in self.script.unsupported:
            if param in request:
                return "unsupported", _json(400, {"error": {
                    "message": f"Unsupported parameter: '{param}' is not supported with this "
                               "model.", "type": "invalid_request_error", "param": param,
                    "code": "unsupported_parameter"}})
        return None

    async def _act(self, action: Action, request: dict[str, Any],
                   messages: list[dict[str, Any]]) -> tuple[int, dict[str, str], bytes]:
        if action.kind == "hang":
            await asyncio.sleep(action.seconds)
            return _json(504, {"error": {"message": "scripted hang ended"}})
        if action.kind == "status":
            headers = {} if action.retry_after is None else {
                "Retry-After": f"{action.retry_after:g}"}
            status, base, body = _json(action.status, {"error": {
                "message": f"scripted status {action.status}", "type": "scripted",
                "code": action.status}})
            return status, {**base, **headers}, body
        if action.kind == "echo":
            return _json(action.status, {"error": {
                "message": f"upstream failed; request headers were {action.content}",
                "type": "scripted", "code": action.status}})
        if action.kind == "broken_body":
            return 200, {"Content-Type": "application/json"}, b'{"id": "chatcmpl-x", "choi'
        finish = {"truncated": "length"}.get(action.kind, "stop")
        message: dict[str, Any] = {"role": "assistant", "content": action.content}
        if action.kind == "refusal":
            message = {"role": "assistant", "content": None, "refusal": action.content}
        prompt_tokens = sum(len(str(m.get("content", ""))) for m in messages) // 4 + 1
        completion_tokens = len(action.content) // 4 + 1
        return _json(200, {
            "id": f"chatcmpl-{len(self.log)}", "object": "chat.completion",
            "created": int(time.time()), "model": str(request.get("model", "scripted")),
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                      "total_tokens": prompt_tokens + completion_tokens}})


def _json(status: int, data: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, json.dumps(data).encode()


async def _serve_connection(app: ScriptedApp, reader: asyncio.StreamReader,
                            writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            method, path, _ = lines[0].split(" ", 2)
            headers = {k.strip().lower(): v.strip() for k, _, v in
                       (line.partition(":") for line in lines[1:] if line)}
            body = await reader.readexactly(int(headers.get("content-length", "0")))
            status, out_headers, payload = await app.handle(method, path, body, headers)
            reason = REASONS.get(status, "Status")
            extra = "".join(f"{k}: {v}\r\n" for k, v in out_headers.items())
            writer.write(f"HTTP/1.1 {status} {reason}\r\nContent-Length: {len(payload)}\r\n"
                         f"{extra}Connection: keep-alive\r\n\r\n".encode("latin-1") + payload)
            await writer.drain()
    except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError,
            ValueError, asyncio.CancelledError):
        pass  # client went away, bad request line, or the server is stopping
    finally:
        writer.close()


class ScriptedServer:
    """The scripted server on 127.0.0.1 (a free port), in a background thread; stoppable."""

    def __init__(self, script: Script | None = None, port: int = 0) -> None:
        self.app = ScriptedApp(script or Script())
        self._port = port
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: asyncio.base_events.Server | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    @property
    def url(self) -> str:
        """The ``api_base`` to give an OpenAI-compatible client."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def log(self) -> list[LoggedRequest]:
        return self.app.log

    def count(self, match: str) -> int:
        return self.app.count(match)

    def start(self) -> ScriptedServer:
        self._thread = threading.Thread(target=self._run, name="scripted-llm", daemon=True)
        self._thread.start()
        if not self._ready.wait(10):
            raise RuntimeError("scripted server did not start")
        return self

    def _run(self) -> None:
        self._loop = asyncio.new_event_loop()
        asyncio.set_event_loop(self._loop)
        self._server = self._loop.run_until_complete(asyncio.start_server(
            lambda r, w: _serve_connection(self.app, r, w), "127.0.0.1", self._port,
            backlog=1024))
        self.port = self._server.sockets[0].getsockname()[1]
        self._ready.set()
        self._loop.run_forever()
        pending = asyncio.all_tasks(self._loop)
        for task in pending:
            task.cancel()
        self._loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        self._loop.close()

    def stop(self) -> None:
        if self._loop is None or self._server is None:
            return

        def shutdown() -> None:
            assert self._server is not None and self._loop is not None
            self._server.close()
            self._loop.stop()

        self._loop.call_soon_threadsafe(shutdown)
        if self._thread is not None:
            self._thread.join(10)

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main(argv: list[str] | None = None) -> None:
    """Run the server in the foreground; prints ``PORT <n>`` once it listens."""
    import argparse
    from pathlib import Path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", type=Path, help="JSON file of a Script")
    parser.add_argument("--latency", type=float, default=None, help="seconds per answer")
    parser.add_argument("--answer", help="JSON text of the default answer")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    script = Script.from_json(args.script.read_text()) if args.script else Script()
    default = Action.answer(args.answer) if args.answer else script.default
    latency = script.latency if args.latency is None else args.latency
    script = replace(script, default=default, latency=latency)
    server = ScriptedServer(script, port=args.port).start()
    print(f"PORT {server.port}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
