"""SQLite (WAL) response cache: a re-run makes no provider call and a killed run resumes.

Each answered request is committed as soon as it arrives, so ``kill -9`` loses at most the
requests in flight. Inside an event loop a put only queues the answer (readable at once
through this object) and wakes a writer thread that commits everything queued in one
transaction (group commit): the event loop never waits for the disk, and the window a
``kill -9`` can lose is the queue, a few milliseconds at most. Outside an event loop every
put commits at once; :meth:`flush` (called at the end of every engine run) and
:meth:`close` commit what is queued.
Only answers are stored (text, finish reason, token counts, cost, the
prompt id and step); never API keys, endpoints or headers.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from irforge.core.faults import write_point
from irforge.core.redact import redact
from irforge.llm.completion import Completion, logprobs_from_json, logprobs_json

WRITER_IDLE_SECONDS = 1.0
GATHER_SECONDS = 0.002

SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    text TEXT NOT NULL,
    finish_reason TEXT,
    refusal TEXT,
    prompt_tokens INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    cost_usd REAL NOT NULL DEFAULT 0,
    prompt_id TEXT,
    step TEXT,
    created REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0,
    logprobs TEXT
)
"""

# provider batches submitted and not yet downloaded: a re-run polls these instead of resubmitting
BATCH_SCHEMA = """
CREATE TABLE IF NOT EXISTS batches (
    batch_id TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    step TEXT,
    keys TEXT NOT NULL,
    status TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL
)
"""


class ResponseCache:
    """Get/put provider answers by request key; counts hits and misses for this process."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._conn = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False,
                                     isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=NORMAL")
        self._conn.execute(SCHEMA)
        self._conn.execute(BATCH_SCHEMA)
        columns = {row[1] for row in self._conn.execute("PRAGMA table_info(responses)")}
        if "logprobs" not in columns:  # a cache written before log-probs were stored
            self._conn.execute("ALTER TABLE responses ADD COLUMN logprobs TEXT")
        self.hits = 0
        self.misses = 0
        self._pending_hits: Counter[str] = Counter()
        self._unwritten: dict[str, tuple[Any, ...]] = {}  # key -> row, awaiting the commit
        self._queue_lock = threading.Lock()  # guards _unwritten (never held during I/O)
        self._wake = threading.Event()
        self._writer: threading.Thread | None = None
        self._writer_lock = threading.Lock()
        self._stopping = False
        self.write_error: str | None = None  # the last failed group commit, if any

    def get(self, key: str) -> Completion | None:
        """The stored answer for ``key`` or None; a hit is counted (written back on flush)."""
        with self._queue_lock:
            unwritten = self._unwritten.get(key)
        if unwritten is not None:
            row = (*unwritten[2:8], unwritten[11])
        else:  # committed before it left the queue, so one of the two has it
            with self._lock:
                row = self._conn.execute(
                    "SELECT text, finish_reason, refusal, prompt_tokens, completion_tokens,"
                    " cost_usd, logprobs FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        self._pending_hits[key] += 1
        return Completion(text=row[0], finish_reason=row[1], refusal=row[2],
                          prompt_tokens=row[3], completion_tokens=row[4], cost_usd=row[5],
                          logprobs=logprobs_from_json(row[6]))

    def get_many(self, keys: list[str]) -> dict[str, Completion]:
        """Stored answers for many keys in few queries; hits and misses are counted."""
        self.flush()
        found: dict[str, Completion] = {}
        for start in range(0, len(keys), 500):
            chunk = keys[start:start + 500]
            marks = ",".join("?" * len(chunk))
            with self._lock:
                rows = self._conn.execute(
                    "SELECT key, text, finish_reason, refusal, prompt_tokens, completion_tokens,"
                    f" cost_usd, logprobs FROM responses WHERE key IN ({marks})",
                    chunk).fetchall()
            for row in rows:
                found[row[0]] = Completion(text=row[1], finish_reason=row[2], refusal=row[3],
                                           prompt_tokens=row[4], completion_tokens=row[5],
                                           cost_usd=row[6], logprobs=logprobs_from_json(row[7]))
        self.hits += sum(1 for key in keys if key in found)
        self.misses += sum(1 for key in keys if key not in found)
        self._pending_hits.update(key for key in keys if key in found)
        return found

    def contains(self, key: str) -> bool:
        """Whether ``key`` is stored, without counting a hit (used by estimates)."""
        with self._queue_lock:
            if key in self._unwritten:
                return True
        with self._lock:
            return self._conn.execute("SELECT 1 FROM responses WHERE key = ?",
                                      (key,)).fetchone() is not None

    def put(self, key: str, model: str, completion: Completion, prompt_id: str = "",
            step: str = "") -> None:
        """Store one answer: committed at once, or inside an event loop by the writer thread
        within milliseconds (the resume guarantee depends on it)."""
        row = (key, model, redact(completion.text), completion.finish_reason,
               redact(completion.refusal),
               completion.prompt_tokens, completion.completion_tokens, completion.cost_usd,
               prompt_id, step, time.time(), logprobs_json(completion.logprobs))
        with self._queue_lock:
            self._unwritten[key] = row
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        if self._writer is not None and self._wake.is_set():
            return  # the writer is running and already woken: it will take this one too
        with self._writer_lock:
            if self._writer is None:
                self._writer = threading.Thread(target=self._write_queued, daemon=True,
                                                name=f"irforge-cache-writer {self.path.name}")
                self._writer.start()
            self._wake.set()

    def _write_queued(self) -> None:
        """The writer thread: commit the queue whenever woken; ends after a quiet second."""
        while True:
            woken = self._wake.wait(WRITER_IDLE_SECONDS)
            with self._writer_lock:
                if self._stopping or (not woken and not self._wake.is_set()):
                    self._writer = None
                    return
                self._wake.clear()
            time.sleep(GATHER_SECONDS)  # let the answers arriving meanwhile join this commit
            try:
                self.flush()
            except sqlite3.Error as exc:  # kept queued; the next flush tries again
                self.write_error = f"{type(exc).__name__}: {exc}"
                time.sleep(0.05)

    def flush(self) -> None:
        """Commit every queued answer in one transaction."""
        with self._lock:
            with self._queue_lock:
                if not self._unwritten:
                    return
                rows = dict(self._unwritten)
            try:
                self._conn.execute("BEGIN")
                self._conn.executemany(
                    "INSERT OR REPLACE INTO responses (key, model, text, finish_reason,"
                    " refusal, prompt_tokens, completion_tokens, cost_usd, prompt_id, step,"
                    " created, logprobs, hits) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
                    list(rows.values()))
                self._conn.execute("COMMIT")
            except sqlite3.Error:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            with self._queue_lock:  # a newer answer for a key stays queued
                for key, row in rows.items():
                    if self._unwritten.get(key) is row:
                        del self._unwritten[key]
            self.write_error = None

    def record_batch(self, batch_id: str, model: str, step: str, keys: list[str]) -> None:
        """Remember a submitted provider batch and the request keys it answers (for resume)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO batches (batch_id, model, step, keys, status, created)"
                " VALUES (?, ?, ?, ?, 'submitted', ?)",
                (batch_id, model, step, json.dumps(keys), time.time()))

    def open_batches(self, model: str) -> list[tuple[str, list[str]]]:
        """Batches of ``model`` submitted but not yet downloaded: (batch id, keys), oldest first."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT batch_id, keys FROM batches WHERE model = ? AND finished IS NULL"
                " ORDER BY created", (model,)).fetchall()
        return [(row[0], json.loads(row[1])) for row in rows]

    def close_batch(self, batch_id: str, status: str) -> None:
        """Mark a batch downloaded (its answers are already stored as responses)."""
        with self._lock:
            self._conn.execute("UPDATE batches SET status = ?, finished = ? WHERE batch_id = ?",
                               (status, time.time(), batch_id))

    def flush_hits(self) -> None:
        """Write unwritten answers, then the hit counts gathered since the last flush."""
        self.flush()
        if not self._pending_hits:
            return
        with self._lock:
            pending, self._pending_hits = self._pending_hits, Counter()
            self._conn.execute("BEGIN")
            self._conn.executemany("UPDATE responses SET hits = hits + ? WHERE key = ?",
                                   [(count, key) for key, count in pending.items()])
            self._conn.execute("COMMIT")

    def stats(self) -> dict[str, Any]:
        """Entries, size, stored tokens and cost, recorded hits, per model and per step."""
        self.flush_hits()
        with self._lock:
            total = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(prompt_tokens), 0),"
                " COALESCE(SUM(completion_tokens), 0), COALESCE(SUM(cost_usd), 0),"
                " COALESCE(SUM(hits), 0) FROM responses").fetchone()
            by_model = self._conn.execute(
                "SELECT model, COUNT(*), COALESCE(SUM(hits), 0) FROM responses"
                " GROUP BY model ORDER BY model").fetchall()
            by_step = self._conn.execute(
                "SELECT COALESCE(step, ''), COUNT(*) FROM responses"
                " GROUP BY step ORDER BY step").fetchall()
        size = sum(p.stat().st_size for p in self.path.parent.glob(self.path.name + "*")
                   if p.is_file())
        return {
            "path": str(self.path), "entries": total[0], "bytes": size,
            "prompt_tokens": total[1], "completion_tokens": total[2],
            "stored_cost_usd": round(total[3], 6), "recorded_hits": total[4],
            "session_hits": self.hits, "session_misses": self.misses,
            "by_model": {model: {"entries": n, "hits": h} for model, n, h in by_model},
            "by_step": {step: n for step, n in by_step},
        }

    def stored_keys(self) -> set[str]:
        """Every stored key (tests and resume checks)."""
        self.flush()
        with self._lock:
            return {row[0] for row in self._conn.execute("SELECT key FROM responses")}

    def clear(self, model: str | None = None, step: str | None = None) -> int:
        """Delete all entries, or those of one model and/or step; returns how many."""
        clauses, args = [], []
        if model is not None:
            clauses.append("model = ?")
            args.append(model)
        if step is not None:
            clauses.append("step = ?")
            args.append(step)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        self.flush()
        with self._lock:
            self._pending_hits.clear()
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                deleted = self._conn.execute(f"DELETE FROM responses{where}", args).rowcount
                write_point()  # the crash tests kill here: the delete is not committed yet
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        if not clauses:
            write_point()
            with self._lock:
                self._conn.execute("VACUUM")
        return deleted

    def close(self) -> None:
        with self._writer_lock:
            writer, self._stopping = self._writer, True
            self._wake.set()
        if writer is not None:
            writer.join(30)
        self.flush_hits()
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
