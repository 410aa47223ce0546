"""SQLite (WAL) response cache: a re-run makes no provider call and a killed run resumes.

Each answered request is committed as soon as it arrives, so ``kill -9`` loses at most the
requests in flight. Only answers are stored (text, finish reason, token counts, cost, the
prompt id and step); never API keys, endpoints or headers.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from irforge.llm.completion import Completion, logprobs_from_json, logprobs_json

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

    def get(self, key: str) -> Completion | None:
        """The stored answer for ``key`` or None; a hit is counted (written back on flush)."""
        with self._lock:
            row = self._conn.execute(
                "SELECT text, finish_reason, refusal, prompt_tokens, completion_tokens, cost_usd,"
                " logprobs FROM responses WHERE key = ?", (key,)).fetchone()
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
        with self._lock:
            return self._conn.execute("SELECT 1 FROM responses WHERE key = ?",
                                      (key,)).fetchone() is not None

    def put(self, key: str, model: str, completion: Completion, prompt_id: str = "",
            step: str = "") -> None:
        """Store one answer and commit at once (the resume guarantee depends on it)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO responses (key, model, text, finish_reason, refusal,"
                " prompt_tokens, completion_tokens, cost_usd, prompt_id, step, created, hits,"
                " logprobs) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?)",
                (key, model, completion.text, completion.finish_reason, completion.refusal,
                 completion.prompt_tokens, completion.completion_tokens, completion.cost_usd,
                 prompt_id, step, time.time(), logprobs_json(completion.logprobs)))

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
        """Write the hit counts gathered since the last flush (one transaction)."""
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
        with self._lock:
            self._pending_hits.clear()
            deleted = self._conn.execute(f"DELETE FROM responses{where}", args).rowcount
        if not clauses:
            with self._lock:
                self._conn.execute("VACUUM")
        return deleted

    def close(self) -> None:
        self.flush_hits()
        with self._lock:
            self._conn.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
