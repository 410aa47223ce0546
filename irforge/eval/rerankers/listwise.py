"""Listwise reranking through the LLM engine: a RankGPT-style sliding window.

Windows of ``window`` passages move from the bottom of the candidate list to the top in steps
of ``step``, so a strong passage can climb all the way up. The model returns passage numbers
(template ``eval.listwise_rerank``); numbers that are invalid or repeated are dropped and
passages it left out keep their relative order after the ones it ranked. A window whose call
fails keeps its order, and is counted in :attr:`ListwiseReranker.failed_calls`. Documents
below the top k keep their first-stage order under the reranked head.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pydantic import BaseModel

from irforge.core.records import Doc, Query, Run
from irforge.eval.rerankers.base import candidates, with_tail
from irforge.retrievers.base import doc_text

TEMPLATE = "eval.listwise_rerank"


class WindowRanking(BaseModel):
    """What the model returns for one window: passage numbers, best first."""

    ranking: list[int]


def window_starts(length: int, window: int, step: int) -> list[int]:
    """Start offsets of the windows, bottom first (RankGPT's back-to-front pass)."""
    if length <= window:
        return [0]
    starts, end = [], length
    while True:
        start = max(0, end - window)
        starts.append(start)
        if start == 0:
            return starts
        end -= step


def apply_ranking(window_ids: Sequence[str], ranking: Sequence[int]) -> list[str]:
    """Reorder a window by 1-based numbers; bad or repeated numbers dropped, rest appended."""
    chosen: list[int] = []
    for number in ranking:
        if 1 <= number <= len(window_ids) and number - 1 not in chosen:
            chosen.append(number - 1)
    chosen.extend(i for i in range(len(window_ids)) if i not in chosen)
    return [window_ids[i] for i in chosen]


class ListwiseReranker:
    """Sliding-window listwise reranking with any model the LLM engine can reach."""

    def __init__(self, engine=None, window: int = 20, step: int = 10,
                 max_chars: int = 600) -> None:
        if step < 1 or step > window:
            raise ValueError(f"step must be between 1 and window ({window}), got {step}")
        if engine is None:
            from irforge.llm import Engine

            engine = Engine()
        self.engine, self.window, self.step, self.max_chars = engine, window, step, max_chars
        self.name = f"listwise-{engine.spec.name}"
        self.failed_calls = 0
        self.failure_reasons: dict[str, int] = {}

    @property
    def failed_windows(self) -> int:
        """Windows whose call failed (each kept its first-stage order)."""
        return self.failed_calls

    def rerank(self, queries: Sequence[Query], docs_by_id: Mapping[str, Doc], run: Run,
               k: int) -> Run:
        order = {q.query_id: candidates(run, q.query_id, k, docs_by_id) for q in queries}
        schedule = {q.query_id: window_starts(len(order[q.query_id]), self.window, self.step)
                    for q in queries}
        texts = {q.query_id: q.text for q in queries}
        for position in range(max((len(s) for s in schedule.values()), default=0)):
            jobs = [(query_id, starts[position]) for query_id, starts in schedule.items()
                    if position < len(starts) and order[query_id]]
            items = []
            for query_id, start in jobs:
                ids = order[query_id][start:start + self.window]
                items.append({"query": texts[query_id], "count": len(ids),
                              "passages": [" ".join(doc_text(docs_by_id[d])[:self.max_chars]
                                                    .split()) for d in ids]})
            results = self.engine.run(items, TEMPLATE, WindowRanking, step="eval.listwise")
            for (query_id, start), result in zip(jobs, results, strict=True):
                ids = order[query_id][start:start + self.window]
                if result.ok:
                    ids = apply_ranking(ids, result.value.ranking)
                else:
                    self.failed_calls += 1
                    reason = f"{result.status}: {(result.error or '')[:120]}"
                    self.failure_reasons[reason] = self.failure_reasons.get(reason, 0) + 1
                order[query_id][start:start + self.window] = ids
        scores = {query_id: with_tail({doc_id: float(len(ids) - rank)
                                       for rank, doc_id in enumerate(ids)},
                                      run.scores.get(query_id, {}))
                  for query_id, ids in order.items()}
        return Run(name=self.name, scores=scores)
