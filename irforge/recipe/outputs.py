"""What each recipe stage must leave behind: a stage whose output is empty is failed, never done.

:data:`OUTPUTS` maps a stage-name prefix to the file it writes and the fix to print when that
file holds no rows; the corpus stage's fix names the most common reasons its inputs were
skipped or refused (from ``corpus_work/``), so the real cause is on the console.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

TOP_REASONS = 3


class Output(NamedTuple):
    """The file a stage writes (relative to the benchmark or method folder) and the fix."""

    path: Callable[[Path, str | None], Path]
    fix: Callable[[Path, str | None], str]


def rows(path: Path) -> int:
    """Non-blank lines of ``path`` (0 when it is missing)."""
    if not path.is_file():
        return 0
    with path.open("rb") as handle:
        return sum(1 for line in handle if line.strip())


def corpus_reasons(out: Path, top: int = TOP_REASONS) -> list[str]:
    """The commonest reasons ``corpus_work/`` logged for skipped or refused inputs."""
    counts: Counter[str] = Counter()
    example: dict[str, str] = {}
    work = out / "corpus_work"
    for log in sorted(work.rglob("*.jsonl")) if work.is_dir() else ():
        with log.open(encoding="utf-8", errors="replace") as handle:
            for line in handle:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                if isinstance(row, dict) and row.get("reason") and row.get("status") != "ok":
                    reason = str(row["reason"])[:160]
                    counts[reason] += 1
                    example.setdefault(reason, str(row.get("file") or row.get("url") or ""))
    return [f"{reason} ({n}x" + (f", e.g. {example[reason]})" if example[reason] else ")")
            for reason, n in counts.most_common(top)]


def _corpus_fix(out: Path, method: str | None) -> str:
    reasons = corpus_reasons(out)
    why = ("; most common reasons: " + "; ".join(reasons)) if reasons else (
        "; no input file gave any text (is corpus.input the right folder?)")
    return (f"0 passages in {out / 'corpus.jsonl'}{why}. Fix the inputs (every skipped file "
            f"and why: {out / 'corpus_work'}), then re-run")


def _method_fix(what: str) -> Callable[[Path, str | None], str]:
    def fix(out: Path, method: str | None) -> str:
        return f"0 {what} written; {method}/failures.jsonl lists every item and why"
    return fix


# stage-name prefix -> what it must write
OUTPUTS: dict[str, Output] = {
    "corpus": Output(lambda out, method: out / "corpus.jsonl", _corpus_fix),
    "build-": Output(lambda out, method: out / str(method) / "queries.jsonl",
                     _method_fix("queries")),
    "pool-": Output(lambda out, method: out / str(method) / "pool" / "candidates.jsonl",
                    _method_fix("pool candidates")),
    "label-": Output(lambda out, method: out / str(method) / "qrels" / "test.tsv",
                     _method_fix("qrels")),
}


def empty_output(name: str, method: str | None, out: Path) -> str | None:
    """Why stage ``name`` cannot count as done (its output is empty), or None when it can."""
    for prefix, output in OUTPUTS.items():
        if name.startswith(prefix):
            path = output.path(out, method)
            if rows(path) == 0:
                return output.fix(out, method)
            return None
    return None
