"""The scripted server's minimal OpenAI Batch API: ``/v1/files`` and ``/v1/batches``.

Upload (multipart, purpose ``batch``), file content, batch create and retrieve. A batch
completes after ``Script.batch_polls`` retrieves (the first ``Script.batch_retrieve_errors``
retrieves answer 503); then each input line is answered with the server's scripted chat
behaviour (its rules and default), written to an output file, or to an
error file for scripted error statuses. A scripted ``broken_body`` becomes a malformed output
line; a ``hang`` leaves the line out (as if it expired). For fault-injection tests only.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Protocol

Response = tuple[int, dict[str, str], bytes]


class BatchHost(Protocol):
    """What the batch endpoints use of the scripted app (scripted.py's ``ScriptedApp``), so
    this module need not import it (the app imports this one)."""

    script: Any
    batch_lines: int

    def choose(self, first_user: str) -> Any: ...

    async def _act(self, action: Any, request: dict[str, Any],
                   messages: list[dict[str, Any]]) -> tuple[int, dict[str, str], bytes]: ...


def _json(status: int, data: Any) -> Response:
    return status, {"Content-Type": "application/json"}, json.dumps(data).encode()


def multipart_fields(content_type: str, body: bytes) -> dict[str, bytes]:
    """The named parts of a ``multipart/form-data`` body."""
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode("latin-1") + body)
    fields: dict[str, bytes] = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            fields[str(name)] = part.get_payload(decode=True) or b""
    return fields


@dataclass
class ScriptedBatches:
    """Files and batches held in memory; ``calls`` counts each endpoint's use."""

    app: BatchHost
    files: dict[str, bytes] = field(default_factory=dict)
    batches: dict[str, dict[str, Any]] = field(default_factory=dict)
    polls: Counter[str] = field(default_factory=Counter)
    calls: Counter[str] = field(default_factory=Counter)

    def handles(self, path: str) -> bool:
        return "/files" in path or "/batches" in path

    async def handle(self, method: str, path: str, body: bytes,
                     headers: dict[str, str]) -> Response:
        parts = [p for p in path.split("?")[0].split("/") if p and p != "v1"]
        if method == "POST" and parts == ["files"]:
            return self._upload(headers.get("content-type", ""), body)
        if method == "GET" and len(parts) == 3 and parts[0] == "files" and parts[2] == "content":
            self.calls["files.content"] += 1
            if parts[1] not in self.files:
                return _json(404, {"error": {"message": f"no file {parts[1]}"}})
            return 200, {"Content-Type": "application/octet-stream"}, self.files[parts[1]]
        if method == "POST" and parts == ["batches"]:
            return self._create(body)
        if method == "GET" and len(parts) == 2 and parts[0] == "batches":
            return await self._retrieve(parts[1])
        return _json(404, {"error": {"message": f"no route {method} {path}"}})

    def _file_object(self, file_id: str, purpose: str) -> dict[str, Any]:
        return {"id": file_id, "object": "file", "bytes": len(self.files[file_id]),
                "created_at": int(time.time()), "filename": f"{file_id}.jsonl",
                "purpose": purpose, "status": "processed"}

    def _upload(self, content_type: str, body: bytes) -> Response:
        self.calls["files.create"] += 1
        fields = multipart_fields(content_type, body)
        if "file" not in fields or fields.get("purpose") != b"batch":
            return _json(400, {"error": {"message": "need a file part and purpose=batch"}})
        file_id = f"file-{len(self.files) + 1}"
        self.files[file_id] = fields["file"]
        return _json(200, self._file_object(file_id, "batch"))

    def _create(self, body: bytes) -> Response:
        self.calls["batches.create"] += 1
        request = json.loads(body)
        if request.get("input_file_id") not in self.files:
            return _json(400, {"error": {"message": "unknown input_file_id"}})
        batch_id = f"batch-{len(self.batches) + 1}"
        lines = self.files[request["input_file_id"]].decode().splitlines()
        self.batches[batch_id] = {
            "id": batch_id, "object": "batch", "endpoint": request.get("endpoint"),
            "input_file_id": request["input_file_id"],
            "completion_window": request.get("completion_window"), "status": "in_progress",
            "created_at": int(time.time()), "output_file_id": None, "error_file_id": None,
            "errors": None,
            "request_counts": {"total": len(lines), "completed": 0, "failed": 0}}
        return _json(200, self.batches[batch_id])

    async def _retrieve(self, batch_id: str) -> Response:
        self.calls["batches.retrieve"] += 1
        if self.calls["batches.retrieve"] <= self.app.script.batch_retrieve_errors:
            return _json(503, {"error": {"message": "scripted batch retrieve failure"}})
        batch = self.batches.get(batch_id)
        if batch is None:
            return _json(404, {"error": {"message": f"no batch {batch_id}"}})
        self.polls[batch_id] += 1
        if batch["status"] == "in_progress" and self.polls[batch_id] >= \
                self.app.script.batch_polls:
            await self._complete(batch)
        return _json(200, batch)

    async def _complete(self, batch: dict[str, Any]) -> None:
        outputs: list[str] = []
        errors: list[str] = []
        for number, line in enumerate(self.files[batch["input_file_id"]].decode().splitlines()):
            request = json.loads(line)
            body = request["body"]
            messages = body["messages"]
            first_user = next((str(m.get("content")) for m in messages
                               if m.get("role") == "user"), "")
            action = self.app.choose(first_user)
            self.app.batch_lines += 1
            head = {"id": f"batch_req_{number}", "custom_id": request["custom_id"]}
            if action.kind == "hang":
                continue
            if action.kind == "broken_body":
                outputs.append(json.dumps(head)[:-1] + ', "response": {"status_code": 200, '
                               '"body": {"id": "chatcmpl-x", "choi')
                continue
            status, _, payload = await self.app._act(action, body, messages)
            record = {**head, "response": {"status_code": status,
                                           "body": json.loads(payload)}, "error": None}
            (outputs if status == 200 else errors).append(json.dumps(record))
        for name, lines in (("output_file_id", outputs), ("error_file_id", errors)):
            if lines:
                file_id = f"file-{len(self.files) + 1}"
                self.files[file_id] = ("\n".join(lines) + "\n").encode()
                batch[name] = file_id
        batch["status"] = "completed"
        batch["request_counts"] = {"total": len(outputs) + len(errors),
                                   "completed": len(outputs), "failed": len(errors)}
