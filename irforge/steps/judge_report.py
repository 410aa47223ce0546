"""What a verb prints about its judge's control items, and the exit 8 when they failed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from irforge.core.errors import UntrustedLabels
from irforge.core.trust import ALLOW_FLAG


def raise_if_untrusted(entry: Mapping[str, Any], where: str, judge: str = "relevance",
                       log: str = "judge_controls.json") -> None:
    """Exit 8 with the figures when the labels failed their controls."""
    if entry.get("status") != "untrusted":
        return
    figures = "\n  ".join(entry.get("lines", []))
    raise UntrustedLabels(
        f"the {judge} judge failed its control items, so the labels in {where} are marked "
        f"untrusted (judge_controls.json):\n  {figures}\nfix: use a stronger model (--model), "
        f"check the prompts, or inspect {log}; irforge eval refuses these qrels unless "
        f"given {ALLOW_FLAG}")


def control_summary(judge: Mapping[str, Any], count: int) -> str:
    """The judge-controls block a verb prints: status, each step's figures, the reasons."""
    grade = " (DEMO GRADE model)" if judge.get("demo_grade") else ""
    head = {"trusted": "trusted", "untrusted": "UNTRUSTED",
            "untested": "NOT VERIFIED"}[judge["status"]]
    lines = [f"judge controls ({count} control pairs mixed in){grade}: {head}"]
    lines += [f"  {line}" for line in judge.get("lines", [])]
    if judge["status"] != "trusted":
        lines += [f"  reason: {reason}" for reason in judge.get("reasons", [])]
    return "\n".join(lines)
