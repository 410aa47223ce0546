"""The files relevance labeling (``irforge label``) adds to a benchmark folder."""

from __future__ import annotations

from irforge.core.layout import Layout

LAYOUT = Layout("relevance", "irforge label", {
    "ensemble": "relevance/ensemble.jsonl",  # every pair's strategy labels and ensemble grade
    "flagged": "relevance/flagged.jsonl",  # generated passages the ensemble did not rate top
    "controls": "relevance/controls.jsonl",  # the judge's answers on its control items
})
