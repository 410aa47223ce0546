"""The files of a DisastIR-style intents folder (docs/intents.md) besides the BEIR ones."""

from __future__ import annotations

from irforge.core.layout import Layout

LAYOUT = Layout("intents", "irforge build intents", {
    "tasks": "intents/tasks.jsonl",  # each (intent, category) task: queries asked and made
})
