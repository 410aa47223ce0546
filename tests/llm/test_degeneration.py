"""Looping output is recognised early and classified as degenerate, not truncated."""

from __future__ import annotations

from pydantic import BaseModel

from irforge.llm.completion import Completion
from irforge.llm.degeneration import LOOP_FINISH_REASON, looping_tail
from irforge.llm.structured import judge


class Query(BaseModel):
    query: str


def test_loops_are_recognised_whatever_their_period():
    assert looping_tail('{"query": "a novel set on an island, on an island' + ", on an island" * 8)
    assert looping_tail('{"query": "' + "\n" * 70)
    assert looping_tail("x" * 70)


def test_ordinary_text_is_not_a_loop():
    assert looping_tail('{"query": "a 1987 novel by Ines Varga about a beekeeper"}') is None
    assert looping_tail("the the the") is None  # too short to call a loop
    assert looping_tail("") is None


def test_a_stopped_loop_is_degenerate_without_a_reask():
    text = '{"query": "island' + ", island" * 20
    verdict = judge(Completion(text, finish_reason=LOOP_FINISH_REASON), Query, 0, 2, 256)
    assert verdict.status == "degenerate" and "repeated" in (verdict.error or "")
    truncated = judge(Completion('{"query": "a nov', finish_reason="length"), Query, 0, 2, 256)
    assert truncated.status == "truncated"
