"""A benchmark folder: the BEIR files plus judgments, failures and the manifest.

Every stage reads and writes plain files here, so any stage can be re-run or replaced::

    bench/
      corpus.jsonl  queries.jsonl  qrels/test.tsv
      judgments.jsonl  failures.jsonl  manifest.json
"""

from __future__ import annotations

import json
import platform
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from irforge import __version__, beir
from irforge.errors import FormatError, Problem
from irforge.jsonl import OnProblem, write_json
from irforge.records import Doc, Failure, Judgment, Qrel, Query, qrels_to_dict


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

    # writers -----------------------------------------------------------------
    def write_corpus(self, docs: Iterable[Doc]) -> int:
        return beir.write_corpus(self.corpus_path, docs)

    def write_queries(self, queries: Iterable[Query]) -> int:
        return beir.write_queries(self.queries_path, queries)

    def write_qrels(self, qrels: Iterable[Qrel], split: str = "test") -> int:
        return beir.write_qrels(self.qrels_path(split), qrels)

    def add_judgments(self, judgments: Iterable[Judgment]) -> int:
        """Append judgments; rows identical to logged ones are skipped, so re-runs add no copies."""
        new = _unlogged(self.judgments(), judgments, beir.judgment_row)
        return beir.append_judgments(self.judgments_path, new)

    def add_failures(self, failures: Iterable[Failure]) -> int:
        """Append failures; rows identical to logged ones are skipped, so re-runs add no copies."""
        new = _unlogged(self.failures(), failures, asdict)
        return beir.append_failures(self.failures_path, new)

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
        data = self.manifest()
        data.setdefault("irforge_version", __version__)
        data.setdefault("created", _now())
        data["updated"] = _now()
        data["python"] = platform.python_version()
        steps = data.setdefault("steps", {})
        steps[step] = {**dict(entry), "finished": _now()}
        write_json(self.manifest_path, data)
        return data


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
