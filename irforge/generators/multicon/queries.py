"""MultiConIR queries of one build: each source's condition phrases, the instruction-style
q_k assembled from phrases 1..k (through the same query gates), and the descriptive q_k
the model writes (paper section 3, step 3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from irforge.core.records import Doc, Failure
from irforge.generators.multicon.sentences import Located
from irforge.generators.multicon.steps import (
    STEP,
    PhraseItem,
    QueryItem,
    condition_phrase_step,
    descriptive_query_step,
    duplicate_phrases,
    render_instruction,
)
from irforge.generators.multicon.task_files import query_id
from irforge.steps.assembled import AssembledQuery

if TYPE_CHECKING:
    from irforge.generators.multicon.config import MulticonConfig
    from irforge.steps.runner import BuildRunner


class BuildState(Protocol):
    """What query assembly reads of a build's state (multicon.build.BuildState)."""

    runner: BuildRunner
    config: MulticonConfig


def _phrases(run: BuildState, conditions: Mapping[str, list[Located]]) -> dict[str, list[str]]:
    """Each source's condition phrases 1..m: the longest run from condition 1 whose phrases
    were all accepted and differ from each other (q_k needs phrases 1..k)."""
    items = [PhraseItem(f"{source}:p{index}", source, index, condition.span.text)
             for source, located in conditions.items()
             for index, condition in enumerate(located, start=1)]
    got = run.runner.run(condition_phrase_step(run.config.domain, run.config.phrases), items)
    out: dict[str, list[str]] = {}
    for source, located in conditions.items():
        phrases: list[str] = []
        for index in range(1, len(located) + 1):
            phrase = got.get(f"{source}:p{index}")
            if phrase is None:
                break
            repeats = duplicate_phrases([*phrases, phrase])
            if repeats:  # a document-level decision: the phrase itself passed its step
                run.runner.ledger.note(Failure(
                    step=f"{STEP}.documents", item_id=source, raw_output=phrase,
                    reason=f"{'; '.join(repeats)}; its queries stop at q_{len(phrases)}",
                    metadata={"source_doc": source, "condition": index}))
                break
            phrases.append(phrase)
        out[source] = phrases
    return out


def queries_of(run: BuildState, conditions: Mapping[str, list[Located]], docs: Mapping[str, Doc]
             ) -> tuple[dict[str, dict[int, list[str]]], dict[str, dict[int, str]]]:
    domain, n = run.config.domain, run.config.n
    phrases = _phrases(run, conditions)
    assembled = [AssembledQuery(query_id(source, k, "instruction"),
                                render_instruction(domain.instruction_text, own[:k]),
                                (docs[source].title, docs[source].text),
                                {"source_doc": source, "k": k,
                                 "condition_phrases": list(own[:k]),
                                 "conditions": [c.span.text for c in conditions[source][:k]]})
                 for source, own in phrases.items() for k in range(1, len(own) + 1)]
    kept = run.runner.gate(f"{STEP}.instruction_query", assembled)
    missing = [Failure(step=f"{STEP}.instruction_query", item_id=query_id(source, k, "instruction"),
                       reason=f"missing: no usable phrase for condition {len(own) + 1} "
                              f"(see {source}:p{len(own) + 1})",
                       metadata={"source_doc": source, "k": k})
               for source, own in phrases.items()  # q_k past the last usable phrase
               for k in range(len(own) + 1, len(conditions[source]) + 1)]
    run.runner.ledger.count(f"{STEP}.instruction_query", len(missing), missing)
    instruction: dict[str, dict[int, list[str]]] = {}
    for query in assembled:
        if query.key in kept:
            source, k = query.metadata["source_doc"], query.metadata["k"]
            instruction.setdefault(source, {})[k] = phrases[source][:k]
    descriptive: dict[str, dict[int, str]] = {}
    for k in range(1, n + 1):
        items = [QueryItem(query_id(source, k, "descriptive"), source, k,
                           tuple(c.span.text for c in located[:k]), docs[source].title,
                           docs[source].text, tuple(phrases[source][:k])
                           if len(phrases[source]) >= k else ())
                 for source, located in conditions.items()]
        for key, text in run.runner.run(descriptive_query_step(domain), items).items():
            descriptive.setdefault(_source(items, key), {})[k] = text
    return instruction, descriptive


def _source(items: Sequence[QueryItem], key: str) -> str:
    return next(item.source for item in items if item.key == key)
