"""The truth first: per method, what was kept, what the validators rejected, how the judges did
on their control items, and a one-line verdict, before any score.

Read from the folder's files only (queries, failures.jsonl, the manifest's yields and
``judge_controls.json``), so it describes any folder irforge wrote.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from irforge.core.bench import Benchmark
from irforge.core.trust import read_judges, status_of, trust_lines
from irforge.steps.step import reason_key

DEMO_LABEL = "DEMO GRADE (embedded SmolLM2-135M): not for citing"
HAND = "hand-written"


@dataclass
class MethodVerdict:
    """One method of a folder: kept queries, rejections by validator, judges, the verdict."""

    method: str
    kept: int = 0
    rejected: Counter = field(default_factory=Counter)
    judges: dict[str, str] = field(default_factory=dict)  # judge -> status
    demo_grade: bool = False
    verdict: str = ""

    def line(self) -> str:
        rejected = sum(self.rejected.values())
        top = ", ".join(f"{reason} {n}" for reason, n in self.rejected.most_common(3))
        judges = ", ".join(f"{name} {status}" for name, status in self.judges.items()) \
            or "no LLM judge"
        grade = f" [{DEMO_LABEL}]" if self.demo_grade else ""
        return (f"{self.method}: kept {self.kept}, rejected {rejected}"
                f"{f' ({top})' if top else ''}; judges: {judges} -> {self.verdict}{grade}")


def _method_of(metadata: dict, folder_method: str = "unknown") -> str:
    if metadata.get("hand_written") or metadata.get("source") == HAND:
        return HAND
    return str(metadata.get("generated_by") or metadata.get("method") or folder_method)


def folder_method(bench: Benchmark) -> str:
    """The method that built a folder, for queries that do not name it (logical, MultiConIR
    and InfoSearch queries): the manifest's one step entry that is no judge; else
    ``unknown``."""
    judges = set(read_judges(bench.root)) | {"relevance"}
    built = [name for name in bench.manifest().get("steps", {}) if name not in judges]
    return built[0] if len(built) == 1 else "unknown"


def verdict_text(kept: int, judges: dict[str, str]) -> str:
    """``usable`` or ``not usable`` and why, from the kept count and the judges' statuses."""
    if not kept:
        return "not usable: no query kept"
    failed = [name for name, status in judges.items() if status == "untrusted"]
    if failed:
        return f"not usable: judge {', '.join(failed)} failed its control items"
    unverified = [name for name, status in judges.items() if status == "untested"]
    if unverified:
        return f"usable with care: judge {', '.join(unverified)} not verified (too few controls)"
    return "usable"


def method_verdicts(folder: Path, split: str = "test") -> list[MethodVerdict]:
    """One verdict per method whose queries have qrels in ``split`` (or whose steps ran)."""
    bench = Benchmark(folder)
    judged = set(bench.qrels_dict(split)) if bench.qrels_path(split).is_file() else set()
    methods: dict[str, MethodVerdict] = {}
    if bench.queries_path.is_file():
        default = folder_method(bench)
        for query in bench.queries():
            name = _method_of(query.metadata or {}, default)
            entry = methods.setdefault(name, MethodVerdict(name))
            entry.kept += int(query.query_id in judged)
            entry.demo_grade = entry.demo_grade or bool((query.metadata or {}).get("demo_grade"))
    for failure in bench.failures() if bench.failures_path.is_file() else ():
        name = failure.step.split(".")[0]
        if name in methods:
            methods[name].rejected[reason_key(failure.reason)] += 1
    judges = {name: entry for name, entry in read_judges(folder).items()
              if split in entry.get("qrels_splits", [])}
    for verdict in methods.values():  # a judge's labels are the qrels of every method
        verdict.judges = {name: status_of(entry) for name, entry in judges.items()}
        verdict.demo_grade = verdict.demo_grade or any(
            bool(entry.get("demo_grade")) for entry in judges.values())
        verdict.verdict = verdict_text(verdict.kept, verdict.judges)
    return sorted(methods.values(), key=lambda v: (v.method == HAND, v.method))


def truth_lines(folder: Path, split: str = "test") -> list[str]:
    """Judges' control figures and one verdict per method: what a report prints first."""
    return [*trust_lines(folder, split),
            *(verdict.line() for verdict in method_verdicts(folder, split))]
