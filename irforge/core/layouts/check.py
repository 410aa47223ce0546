"""The files ``irforge check --judge-model`` adds to a benchmark folder (plain ``check`` writes
nothing)."""

from __future__ import annotations

from irforge.core.layout import Layout

LAYOUT = Layout("check", "irforge check --judge-model", {
    "verdicts": "check/judge.jsonl",  # the judge's verdict and reason on every judged query
    "controls": "check/judge_controls.jsonl",  # the judge's answers on its control items
})
