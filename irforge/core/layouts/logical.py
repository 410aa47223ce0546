"""The files of a ComLQ logical folder (docs/logical.md) besides the BEIR ones."""

from __future__ import annotations

from irforge.core.layout import Layout

LAYOUT = Layout("logical", "irforge build logical", {
    "negation_labels": "logical/negation_labels.jsonl",  # V(d) per negation query, for LSNC
    "controls": "logical/controls.jsonl",  # the structure judge's answers on its controls
})
