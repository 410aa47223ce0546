"""A build that kept nothing fails loudly, even when some of its steps accepted items."""

from __future__ import annotations

from irforge.steps import StepYield
from irforge.steps.yields import YieldTable, require_yield


def require_kept(table: YieldTable, kept: int, what: str, where: str = "") -> None:
    """Raise :class:`~irforge.core.errors.EmptyResultError` when a build kept no ``what``.

    Items accepted by an early step but lost later still leave the build empty, so the check
    counts the final output and the message names the rejections of every step.
    """
    if kept:
        return
    nothing = YieldTable().extend(StepYield(y.step, y.attempted, 0, y.rejected)
                                  for y in table.steps.values())
    require_yield(nothing, what, where)
