"""The kept set: what the model wrote against what the checks kept, per form, length and
category, and what each check removed."""

from __future__ import annotations

import json

from irforge.steps.kept_set import kept_set, length_bucket, query_form, written_query


def test_forms_lengths_and_the_query_inside_a_rejected_answer() -> None:
    assert query_form("em vs en dash when use") == "keyword"
    assert query_form("When does the pool open?") == "question"
    assert query_form("Aljotta is a traditional Greek fish soup.") == "claim"
    assert length_bucket("one two three four five") == "5-9 words"
    assert written_query('{"instructed_query": "Q? I want forum posts."}') == \
        "Q? I want forum posts."
    assert written_query('{"needs": ["x"]}') is None and written_query("not json") is None


def test_written_against_kept_with_removals() -> None:
    kept = [{"_id": "q1", "text": "When does the pool open?", "metadata": {"category": "pools"}}]
    rejected = [
        {"step": "intents.query", "reason": "rejected: form.intent_type: not a question",
         "raw_output": json.dumps({"query": "pool opening hours weekend"}),
         "metadata": {"category": "pools"}},
        {"step": "intents.query", "reason": "rejected: grounding.query: ungrounded",
         "raw_output": json.dumps({"query": "Aljotta is a traditional Greek fish soup."})},
        {"step": "intents.query", "reason": "llm invalid: not JSON", "raw_output": "{"},
        {"step": "intents.needs", "reason": "rejected: no need", "raw_output": '{"needs": []}'},
    ]
    table = kept_set(kept, rejected)
    data = table.to_json()
    assert data["form"] == {"claim": {"written": 1, "kept": 0},
                            "keyword": {"written": 1, "kept": 0},
                            "question": {"written": 1, "kept": 1}}
    assert data["category"]["pools"] == {"written": 2, "kept": 1}
    assert data["category"]["unknown"] == {"written": 1, "kept": 0}
    assert data["removed_by"] == {"rejected: form.intent_type": 1,
                                  "rejected: grounding.query": 1}
    assert data["rejected_without_query"] == 1  # the broken answer; the needs step is no query
    text = table.markdown()
    assert "| keyword | 1 | 0 | 0% |" in text and "| question | 1 | 1 | 100% |" in text
