"""Input checks of ``irforge eval``: each problem is an error or a warning with counts, never a
silent change of a score (issue 15)."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from irforge.eval.metrics import EvaluationInputError
from irforge.eval.metrics.ranking import RunDict
from irforge.eval.metrics.registry import Measure

_DEPTH_MEASURES = ("recall", "success")


def _examples(ids: Sequence[str], limit: int = 3) -> str:
    shown = ", ".join(repr(i) for i in list(ids)[:limit])
    return shown + (", ..." if len(ids) > limit else "")


def require_corpus(doc_count: int, corpus_path: Path) -> None:
    """An empty corpus is an error: nothing can be retrieved."""
    if doc_count == 0:
        raise EvaluationInputError(f"{corpus_path} holds no documents: there is nothing to "
                                   "retrieve (write the corpus first: irforge corpus ...)")


def require_plain_ids(ids: Collection[str], what: str, path: Path) -> None:
    """Ids with whitespace cannot be written to (or read back from) TREC run files."""
    bad = sorted(i for i in ids if not i or any(c.isspace() for c in i))
    if bad:
        raise EvaluationInputError(
            f"{path}: {len(bad)} {what} id(s) are empty or hold whitespace ({_examples(bad)}); "
            "TREC run files cannot hold them (fix: rename the ids, e.g. spaces to '_')")


def cutoff_warnings(measures: Sequence[Measure], doc_count: int) -> list[str]:
    """A cutoff at or above the corpus size measures nothing about ranking depth."""
    return [f"{m} on a corpus of {doc_count} documents: every run holds the whole corpus "
            f"within the cutoff, so {m} cannot separate systems by depth"
            for m in measures if m.name in _DEPTH_MEASURES and m.cutoff is not None
            and m.cutoff >= doc_count]


def non_finite(run: RunDict) -> int:
    """Scores that are nan or infinite (ranked last by the metrics)."""
    return sum(1 for docs in run.values() for v in docs.values() if not math.isfinite(v))


def unique_name(name: str, taken: Mapping[str, object] | Collection[str], source: str
                ) -> tuple[str, str | None]:
    """``name``, or ``run:name`` (then ``run:name#2``...) when a system already has it, with
    the warning that says so."""
    if name not in taken:
        return name, None
    candidate, n = f"run:{name}", 2
    while candidate in taken:
        candidate, n = f"run:{name}#{n}", n + 1
    return candidate, (f"{source}: its tag {name!r} is already a system's name; scored as "
                       f"{candidate!r}")
