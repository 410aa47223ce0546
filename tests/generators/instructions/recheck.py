"""One accepted InfoSearch output of judgments.jsonl checked again by its step's own check
(the demo's instructions test and the embedded-model e2e test share it)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from irforge.core.records import Judgment
from irforge.generators.instructions.pairs import Pair
from irforge.generators.instructions.steps import (
    check_hard_negative,
    check_instruction,
    check_keyword,
    check_reversal,
    check_rewrite,
)


def recheck(judgment: Judgment, pairs: Sequence[Pair], dims: Mapping,
            positives: Callable[[str], list[str]]) -> None:
    """Assert ``judgment``'s output passes its step's check on ``pairs``; ``positives`` gives
    the documents a hard negative of a query id must not answer like."""
    texts = {p.doc.doc_id: p.doc.text for p in pairs}
    queries = {p.query_id: p.query for p in pairs}
    meta, raw = judgment.metadata, json.loads(judgment.raw_output)
    if judgment.task == "instructions.keyword":
        others = [p.doc.text for p in pairs if p.query_id == judgment.query_id
                  and p.doc.doc_id != judgment.doc_id]
        assert check_keyword(raw["keyword"], queries[judgment.query_id],
                             texts[judgment.doc_id], others) == []
    elif judgment.task == "instructions.rewrite":
        condition = dims[meta["dimension"]].value(meta["condition"])
        assert check_rewrite(raw["document"], texts[meta["source_doc_id"]], condition) == []
    elif judgment.task in ("instructions.instruction", "instructions.reverse"):
        core = judgment.query_id.split("-")[0]
        condition = dims[meta["dimension"]].value(meta["condition"])
        if judgment.task == "instructions.instruction":
            assert check_instruction(raw["instructed_query"], queries[core], condition) == []
        else:
            assert check_reversal(raw["reversed_query"], "", queries[core], condition) == []
    elif judgment.task == "instructions.hard_negative":
        assert check_hard_negative(raw["document"], queries[judgment.query_id],
                                   positives(judgment.query_id)) == []
