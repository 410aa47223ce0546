"""The one bookkeeping of a build: step yields, failures, judgments and engine results.

Every method's steps report here through the :class:`~irforge.steps.runner.BuildRunner`; a
decision taken after a step (a judge score under the bar, a query missing for want of a phrase)
goes through :meth:`Ledger.reject` or :meth:`Ledger.count`, never by editing a yield by hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from irforge.core.records import Failure, Judgment
from irforge.steps.step import StepOutcome, StepYield, reason_key
from irforge.steps.yields import YieldTable


@dataclass
class Ledger:
    """What one build produced besides its records: yields, failures, judgments, results."""

    yields: YieldTable = field(default_factory=YieldTable)
    failures: list[Failure] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)
    # (step, item id) -> the engine's last result for that item (LLMResult: raw, log-probs)
    results: dict[tuple[str, str], Any] = field(default_factory=dict)
    # (step, item id) pairs that succeeded in this run (their older failure rows retire)
    succeeded: list[tuple[str, str]] = field(default_factory=list)

    def keep(self, step: str, outcome: StepOutcome, judgments: Iterable[Judgment] | None = None
             ) -> dict[str, Any]:
        """Fold one step's outcome in; returns its accepted values by item id."""
        self.failures.extend(outcome.failures)
        self.judgments.extend(outcome.judgments if judgments is None else judgments)
        self.yields.add(outcome.yield_ if outcome.yield_.step == step
                        else _renamed(outcome.yield_, step))
        self.results.update({(step, key): result for key, result in outcome.results.items()})
        self.succeeded.extend((step, key) for key in outcome.accepted)
        return outcome.accepted

    def count(self, step: str, attempted: int, failures: Iterable[Failure]) -> None:
        """A step of plain code (no LLM): ``attempted`` items, each failure one rejection."""
        failed = list(failures)
        self.failures.extend(failed)
        self.yields.add(StepYield(step, attempted, attempted - len(failed),
                                  _reasons(f.reason for f in failed)))

    def reject(self, step: str, failure: Failure) -> None:
        """An item ``step`` accepted is rejected by a later decision: one accepted becomes one
        rejected with the failure's reason."""
        self.failures.append(failure)
        self.yields.add(StepYield(step, 0, -1, _reasons([failure.reason])))
        self.succeeded = [pair for pair in self.succeeded if pair != (step, failure.item_id)]

    def note(self, failure: Failure) -> None:
        """A failure outside any step's yield (a document left out of the assembly, say)."""
        self.failures.append(failure)

    def result(self, step: str, item_id: str) -> Any:
        """The engine's last result for one item of ``step`` (None if never asked)."""
        return self.results.get((step, item_id))

    def accepted(self, step: str) -> int:
        found = self.yields.steps.get(step)
        return found.accepted if found is not None else 0


def _renamed(step_yield: StepYield, name: str) -> StepYield:
    return StepYield(name, step_yield.attempted, step_yield.accepted, step_yield.rejected,
                     step_yield.samples)


def _reasons(reasons: Iterable[str]) -> Any:
    from collections import Counter

    return Counter(reason_key(reason) for reason in reasons)


def merge_metadata(judgment: Judgment, extra: Mapping[str, Any]) -> Judgment:
    """A judgment with ``extra`` metadata under its own."""
    from dataclasses import replace

    return replace(judgment, metadata={**dict(extra), **dict(judgment.metadata)})
