"""Runs that must not exit 0: every LLM call failed, or the budget stopped the run."""

from __future__ import annotations

from typing import Any

from irforge.core.errors import AllCallsFailed, BudgetStopped, IrforgeError


def stop_error(engine: Any) -> IrforgeError | None:
    """The error a CLI verb ends with after ``engine``'s runs, or None when they went well.

    Every item failing with ``error`` (none answered, none skipped) is :class:`AllCallsFailed`
    (exit 5); a budget stop is :class:`BudgetStopped` (exit 4). See docs/failures.md.
    """
    total = engine.total
    statuses = total.statuses
    errors = statuses.get("error", 0)
    if total.items and errors == total.items:
        return AllCallsFailed(
            f"every LLM call failed ({errors} of {total.items} items); {engine.summary()}. "
            "First error is in failures.jsonl; check --model, --api-base, the API key and "
            "the server, then re-run (answers already received are cached)")
    if getattr(engine, "budget_stopped", False):
        return BudgetStopped(
            f"the budget of ${engine.budget_usd} stopped the run: "
            f"{statuses.get('skipped', 0)} items were not attempted; {engine.summary()}. "
            "Re-run with a higher --budget to finish them (completed answers are cached)")
    return None
