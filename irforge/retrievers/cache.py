"""On-disk embedding cache keyed by (model, text hash): re-evaluating a corpus is cheap."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np


def text_key(model_key: str, text: str) -> str:
    """sha256 of the model key and the exact text that is embedded (prefix included)."""
    return hashlib.sha256(f"{model_key}\x00{text}".encode()).hexdigest()


class EmbeddingCache:
    """SQLite table ``key -> float32 vector``; safe to share across runs and processes."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(self.path, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, dim INTEGER,"
                         " vector BLOB)")
        self.hits = self.misses = 0

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(keys), 500):
            chunk = list(keys[start:start + 500])
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})",
                                    chunk)
            found.update((key, np.frombuffer(blob, dtype=np.float32)) for key, blob in rows)
        return found

    def put_many(self, items: Sequence[tuple[str, np.ndarray]]) -> None:
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(key, int(v.shape[0]), np.asarray(v, np.float32).tobytes()) for key, v in items])

    def embed(self, model_key: str, texts: Sequence[str],
              encode: Callable[[list[str]], np.ndarray]) -> np.ndarray:
        """Vectors for ``texts``, computing only those not cached yet (in one encode call)."""
        keys = [text_key(model_key, text) for text in texts]
        found = self.get_many(list(dict.fromkeys(keys)))
        missing = list(dict.fromkeys(k for k in keys if k not in found))
        self.hits += len(keys) - sum(1 for k in keys if k not in found)
        self.misses += len(missing)
        if missing:
            first_text = {key: text for key, text in zip(keys, texts, strict=True)}
            vectors = encode([first_text[key] for key in missing])
            new = list(zip(missing, np.asarray(vectors, dtype=np.float32), strict=True))
            self.put_many(new)
            found.update(new)
        return np.stack([found[key] for key in keys]) if keys else np.zeros((0, 0), np.float32)

    def close(self) -> None:
        self._db.close()
