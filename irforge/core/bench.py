"""A benchmark folder: the BEIR files plus judgments, failures and the manifest.

Every stage reads and writes plain files here, so any stage can be re-run or replaced::

    bench/
      corpus.jsonl  queries.jsonl  qrels/test.tsv
      judgments.jsonl  failures.jsonl  manifest.json
"""

from __future__ import annotations

import json
import platform
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from irforge.core import beir
from irforge.core.errors import FormatError, Problem
from irforge.core.jsonl import OnProblem, iter_jsonl, write_json, write_jsonl
from irforge.core.locks import FolderLock
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query, qrels_to_dict
from irforge.core.redact import redact, redact_data
from irforge.core.version import __version__


@dataclass(frozen=True)
class Benchmark:
    """Paths and loaders of one benchmark folder."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root))

    @property
    def corpus_path(self) -> Path:
        return self.root / "corpus.jsonl"

    @property
    def queries_path(self) -> Path:
        return self.root / "queries.jsonl"

    def qrels_path(self, split: str = "test") -> Path:
        return self.root / "qrels" / f"{split}.tsv"

    @property
    def judgments_path(self) -> Path:
        return self.root / "judgments.jsonl"

    @property
    def failures_path(self) -> Path:
        return self.root / "failures.jsonl"

    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def splits(self) -> list[str]:
        folder = self.root / "qrels"
        return sorted(p.stem for p in folder.glob("*.tsv")) if folder.is_dir() else []

    # readers -----------------------------------------------------------------
    def corpus(self, on_problem: OnProblem = None) -> Iterator[Doc]:
        return beir.read_corpus(self.corpus_path, on_problem)

    def queries(self, on_problem: OnProblem = None) -> Iterator[Query]:
        return beir.read_queries(self.queries_path, on_problem)

    def qrels(self, split: str = "test", on_problem: OnProblem = None) -> Iterator[Qrel]:
        return beir.read_qrels(self.qrels_path(split), on_problem)

    def qrels_dict(self, split: str = "test") -> dict[str, dict[str, int]]:
        return qrels_to_dict(self.qrels(split))

    def judgments(self) -> Iterator[Judgment]:
        if not self.judgments_path.exists():
            return iter(())
        return beir.read_judgments(self.judgments_path)

    def failures(self) -> Iterator[Failure]:
        if not self.failures_path.exists():
            return iter(())
        return beir.read_failures(self.failures_path)

    # writers (each holds the folder's writer lock, see irforge/core/locks.py) -------
    def writing(self, wait_s: float | None = None,
                dry_run: bool = False) -> AbstractContextManager[Any]:
        """The folder's writer lock: ``with bench.writing(): ...`` around a whole run (a
        dry run writes nothing, not even the lock file)."""
        return nullcontext() if dry_run else FolderLock(self.root, wait_s)

    def write_corpus(self, docs: Iterable[Doc]) -> int:
        with self.writing():
            return _unless_emptied(self.corpus_path, docs, beir.write_corpus)

    def write_queries(self, queries: Iterable[Query]) -> int:
        with self.writing():
            return _unless_emptied(self.queries_path, queries, beir.write_queries)

    def write_qrels(self, qrels: Iterable[Qrel], split: str = "test") -> int:
        with self.writing():
            return _unless_emptied(self.qrels_path(split), qrels, beir.write_qrels)

    def merge_queries(self, queries: Iterable[Query],
                      replaces: Callable[[Query], bool] = lambda query: False) -> int:
        """Write ``queries`` over the folder's: existing ones are kept unless ``replaces`` says
        the new run owns them or a new query has the same id (never drop another method's)."""
        with self.writing():
            existing = list(self.queries()) if self.queries_path.exists() else []
            return self.write_queries(merge_records(existing, queries, replaces,
                                                    lambda query: query.query_id))

    def add_judgments(self, judgments: Iterable[Judgment]) -> int:
        """Append judgments; rows identical to logged ones are skipped, so re-runs add no copies."""
        with self.writing():
            clean = [replace(j, raw_output=redact(j.raw_output),
                             metadata=redact_data(dict(j.metadata))) for j in judgments]
            new = _unlogged(self.judgments(), clean, beir.judgment_row)
            return beir.append_judgments(self.judgments_path, new)

    def add_failures(self, failures: Iterable[Failure]) -> int:
        """Append failures; rows identical to logged ones are skipped, so re-runs add no copies."""
        with self.writing():
            clean = [replace(f, reason=str(redact(f.reason)), raw_output=redact(f.raw_output),
                             metadata=redact_data(dict(f.metadata))) for f in failures]
            new = _unlogged(self.failures(), clean, asdict)
            return beir.append_failures(self.failures_path, new)

    def replace_logs(self, owner: str, failures: Iterable[Failure],
                     judgments: Iterable[Judgment]) -> int:
        """Replace the log rows a generator owns (``step``/``task`` starting with ``owner``)
        by this run's, redacted; other steps' rows stay. Returns the failures written."""
        with self.writing():
            for path, key in ((self.failures_path, "step"), (self.judgments_path, "task")):
                if path.exists():
                    kept = [row for _, row in iter_jsonl(path)
                            if not str(row.get(key) or "").startswith(owner)]
                    write_jsonl(path, kept)
            self.add_judgments(judgments)
            return self.add_failures(failures)

    def retire_failures(self, succeeded: Iterable[tuple[str, str]]) -> int:
        """Drop failure rows of ``(step, item_id)`` pairs that a later run produced; returns
        how many rows went (a budget-skipped item that a re-run answered is no failure)."""
        done = {(step, item) for step, item in succeeded if item}
        if not done or not self.failures_path.exists():
            return 0
        with self.writing():
            rows = list(self.failures())
            kept = [row for row in rows if (row.step, row.item_id) not in done]
            if len(kept) < len(rows):
                write_jsonl(self.failures_path, (asdict(row) for row in kept))
            return len(rows) - len(kept)

    # manifest ----------------------------------------------------------------
    def manifest(self) -> dict[str, Any]:
        if not self.manifest_path.exists():
            return {}
        try:
            data = json.loads(self.manifest_path.read_text(encoding="utf-8"))
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise FormatError(Problem(self.manifest_path, f"unreadable manifest: {exc}",
                                      hint="restore it or delete it to start a fresh one")) from exc
        if not isinstance(data, dict):
            raise FormatError(Problem(self.manifest_path, "manifest must be a JSON object"))
        return data

    def record_step(self, step: str, entry: Mapping[str, Any]) -> dict[str, Any]:
        """Merge one step's recipe, prompts, models, params, counts and cost into the manifest.

        Never store secrets here: callers pass settings without API keys.
        """
        with self.writing():
            return self._record_step(step, redact_data(dict(entry)))

    def _record_step(self, step: str, entry: Mapping[str, Any]) -> dict[str, Any]:
        data = self.manifest()
        data.setdefault("irforge_version", __version__)
        data.setdefault("created", _now())
        data["updated"] = _now()
        data["python"] = platform.python_version()
        steps = data.setdefault("steps", {})
        steps[step] = {**dict(entry), "finished": _now()}
        write_json(self.manifest_path, data)
        return data


def _unless_emptied(path: Path, records: Iterable[Any],
                    write: Callable[[Path, Iterable[Any]], int]) -> int:
    """Write ``records`` to ``path``, except nothing over a file that holds rows: a build that
    keeps nothing never truncates what an earlier build kept (it then fails with exit 3)."""
    rows = list(records)
    if not rows and _holds_rows(path):
        return 0
    return write(path, rows)


def _holds_rows(path: Path) -> bool:
    """Whether a JSONL or qrels file has a line beyond a qrels header."""
    if not path.is_file():
        return False
    with path.open("rb") as handle:
        lines = [line for line in (handle.readline(), handle.readline()) if line.strip()]
    return bool(lines) and not (len(lines) == 1 and lines[0].startswith(b"query-id\t"))


def merge_records(existing: Iterable[Any], new: Iterable[Any], replaces: Callable[[Any], bool],
                  record_id: Callable[[Any], str]) -> list[Any]:
    """``existing`` minus what ``replaces`` claims or a new record re-uses the id of, then
    ``new``: a generator re-run for some intents/methods keeps everyone else's records."""
    fresh = list(new)
    taken = {record_id(record) for record in fresh}
    kept = [record for record in existing
            if record_id(record) not in taken and not replaces(record)]
    return [*kept, *fresh]


def _unlogged(logged: Iterable[Any], rows: Iterable[Any], to_row) -> list[Any]:
    """Rows whose JSON form is not already in the log (and not repeated within ``rows``)."""
    def key(item: Any) -> str:
        return json.dumps(to_row(item), sort_keys=True, ensure_ascii=False)

    seen = {key(item) for item in logged}
    fresh = []
    for item in rows:
        item_key = key(item)
        if item_key not in seen:
            seen.add(item_key)
            fresh.append(item)
    return fresh


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
