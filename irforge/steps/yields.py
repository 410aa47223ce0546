"""The yield table: per step, how many items were attempted, accepted and rejected by reason.

Every build verb ends with it on the console, in the manifest (``yield`` of its step entry) and
in the report; :func:`require_yield` turns a run that accepted nothing into an
:class:`~irforge.core.errors.EmptyResultError` naming the commonest reasons and what to do.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.core.errors import EmptyResultError
from irforge.steps.step import StepYield

# what to do about the commonest rejection kinds (matched on the reason's start)
ADVICE: tuple[tuple[str, str], ...] = (
    ("llm truncated", "raise --max-tokens, or use a larger model"),
    ("llm invalid", "the model does not follow the JSON schema: use a larger model or "
                    "raise the number of samples"),
    ("llm error", "check --model / --api-base and the server log (failures.jsonl has details)"),
    ("llm degenerate", "the model loops: keep --samples above 1 (later samples use a higher "
                       "temperature), or use a larger model"),
    ("rejected: gate", "generated queries fail the quality gates (docs/generation.md): use a "
                       "larger model or raise --samples; never loosen the gates"),
    ("llm refused", "the model refuses the prompt: try another model"),
    ("llm skipped", "the budget or a fatal error stopped sending: raise --budget or fix the "
                    "error and re-run (finished calls come from the cache)"),
    ("rejected", "outputs fail the quality checks: use a larger model, raise the number of "
                 "samples, or give more or longer documents"),
)


@dataclass
class YieldTable:
    """Step yields of one run, in the order the steps ran."""

    steps: dict[str, StepYield] = field(default_factory=dict)

    def add(self, step_yield: StepYield) -> None:
        """Fold one step's yield in (a step run twice adds up)."""
        self.steps.setdefault(step_yield.step, StepYield(step_yield.step)).add(step_yield)

    def extend(self, yields: Iterable[StepYield]) -> YieldTable:
        for step_yield in yields:
            self.add(step_yield)
        return self

    @property
    def attempted(self) -> int:
        return sum(y.attempted for y in self.steps.values())

    @property
    def accepted(self) -> int:
        return sum(y.accepted for y in self.steps.values())

    def reasons(self) -> Counter[str]:
        """Rejection counts by reason over every step."""
        total: Counter[str] = Counter()
        for step_yield in self.steps.values():
            total.update(step_yield.rejected)
        return total

    def to_manifest(self) -> list[dict[str, Any]]:
        return [y.to_dict() for y in self.steps.values()]

    @classmethod
    def from_manifest(cls, rows: Iterable[Mapping[str, Any]]) -> YieldTable:
        table = cls()
        for row in rows:
            table.add(StepYield(str(row["step"]), int(row["attempted"]), int(row["accepted"]),
                                Counter({str(k): int(v) for k, v in
                                         dict(row.get("rejected", {})).items()}),
                                int(row.get("samples", 0))))
        return table

    def rows(self) -> list[tuple[str, int, int, str]]:
        """(step, attempted, accepted, top rejection reasons) per step."""
        return [(y.step, y.attempted, y.accepted,
                 ", ".join(f"{r} x{n}" for r, n in y.rejected.most_common(3)) or "-")
                for y in self.steps.values()]

    def render(self) -> str:
        """A plain-text table for the console."""
        rows = self.rows()
        width = max([len("step"), *(len(r[0]) for r in rows)])
        lines = [f"{'step':<{width}}  attempted  accepted  rejected (top reasons)"]
        lines += [f"{step:<{width}}  {att:>9}  {acc:>8}  {why}" for step, att, acc, why in rows]
        return "\n".join(lines)

    def markdown(self) -> str:
        """The table as Markdown, for reports."""
        lines = ["| step | attempted | accepted | rejected (top reasons) |",
                 "|---|---:|---:|---|"]
        lines += [f"| {step} | {att} | {acc} | {why} |" for step, att, acc, why in self.rows()]
        return "\n".join(lines)


def advice_for(reason: str) -> str:
    """What to do about one rejection reason."""
    return next((text for start, text in ADVICE if reason.startswith(start)),
                "see failures.jsonl for every item and its reason")


def require_yield(table: YieldTable, what: str, where: str = "") -> None:
    """Raise :class:`EmptyResultError` when ``table`` accepted nothing (or attempted nothing)."""
    if table.accepted and table.attempted:
        return
    if not table.attempted:
        raise EmptyResultError(f"no {what} were attempted{where}: the inputs gave nothing to "
                               "generate from (check the corpus and the options)")
    lines = [f"0 {what} accepted{where} ({table.attempted} item(s) attempted). "
             "Most common reasons:"]
    for reason, count in table.reasons().most_common(3):
        lines.append(f"  - {reason} (x{count}): {advice_for(reason)}")
    raise EmptyResultError("\n".join(lines))


def folder_yield(folder: Path, skip: Collection[str] = ()) -> YieldTable:
    """Every step yield a benchmark folder's manifest records (step entries with ``yield``),
    but those of the entries named in ``skip``."""
    from irforge.core.bench import Benchmark

    table = YieldTable()
    if not (Path(folder) / "manifest.json").is_file():
        return table
    for name, entry in Benchmark(folder).manifest().get("steps", {}).items():
        if name in skip:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("yield"), list):
            table.extend(YieldTable.from_manifest(entry["yield"]).steps.values())
    return table
