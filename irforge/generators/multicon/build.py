"""The MultiConIR build: documents -> LLM steps 1-3 (``steps.py``) -> step 4 assembly -> records.

Every LLM step runs through :func:`irforge.steps.run_step`: every item that fails becomes a
Failure with the reason and the raw output, every accepted one is logged as a Judgment with
its provenance, and each step's yield is kept for the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from irforge.check.generation import attach_validators
from irforge.check.query_rules import corpus_language
from irforge.core.bench import Benchmark
from irforge.core.records import Doc, Failure, Judgment, Qrel, Query
from irforge.generators.multicon.assembly import plan_padding
from irforge.generators.multicon.config import MulticonConfig
from irforge.generators.multicon.queries import queries_of
from irforge.generators.multicon.sentences import MIN_WORDS, Located
from irforge.generators.multicon.steps import (
    STEP,
    HardNegativeItem,
    candidate_sentences,
    conditions_step,
    domain_examples,
    hard_negative_step,
    render_instruction,
    validate_conditions,
)
from irforge.generators.multicon.task_files import (
    SourceParts,
    build_documents,
    build_qrels,
    build_queries,
    build_task_rows,
    query_id,
    source_row,
)
from irforge.llm.profile import profile_of
from irforge.llm.protocol import EngineLike
from irforge.steps import Rejected, StepYield
from irforge.steps.decomposition import DecompositionItem, adaptive_step
from irforge.steps.failures import rejection_failure
from irforge.steps.gates import QueryGates
from irforge.steps.runner import BuildRunner
from irforge.steps.yields import YieldTable


@dataclass
class MulticonOutput:
    """What a build produced, ready to be written to a benchmark folder."""

    docs: list[Doc] = field(default_factory=list)
    queries: list[Query] = field(default_factory=list)
    qrels: list[Qrel] = field(default_factory=list)
    tasks: dict[str, list[dict[str, Any]]] = field(
        default_factory=lambda: {"task1": [], "task2": [], "task3": []})
    sources: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    accepted: list[Judgment] = field(default_factory=list)
    yields: dict[str, StepYield] = field(default_factory=dict)
    language: str | None = None  # the language the query gates expected

    def yield_table(self) -> YieldTable:
        """Per step: attempted, accepted, rejected by reason (console, manifest, report)."""
        return YieldTable().extend(self.yields.values())


@dataclass
class BuildState:
    """One build's state: the shared runner (steps, gates, ledger), the config, the records."""

    runner: BuildRunner
    config: MulticonConfig
    out: MulticonOutput


def generate(docs: Sequence[Doc], engine: EngineLike, config: MulticonConfig,
             given: Mapping[str, Sequence[str]] | None = None,
             gates: QueryGates | None = None, runner: BuildRunner | None = None
             ) -> MulticonOutput:
    """Build the MultiConIR tasks for ``docs`` of one domain.

    ``given`` maps doc ids to condition sentences chosen beforehand (by people, or an earlier
    run); they pass the same validator and skip step 1 for those documents. ``runner`` is the
    build runner (its gates know the benchmark's queries); without one, ``gates`` (default:
    fresh gates in the configured language, else the corpus's) and nothing is written.
    """
    if runner is None:
        runner = BuildRunner(engine, Benchmark(Path()), STEP, gates or QueryGates(
            language=config.language or corpus_language(doc.text for doc in docs)))
    # a build rewrites the folder's queries.jsonl whole: its earlier queries are no duplicates
    attach_validators(runner.use_gates((doc.text for doc in docs), config.language,
                                       keep=lambda query_id: False), docs,
                      target_k=runner.target_k, examples=domain_examples(config.domain),
                      profile=profile_of(runner.engine))
    ledger = runner.ledger
    run = BuildState(runner, config, MulticonOutput(
        failures=ledger.failures, accepted=ledger.judgments, yields=ledger.yields.steps,
        language=runner.language))
    by_id = {doc.doc_id: doc for doc in docs}
    given = dict(given or {})
    conditions = _given_conditions(run, [d for d in docs if d.doc_id in given], given)
    conditions.update(_conditions(run, [d for d in docs if d.doc_id not in given]))
    instruction, descriptive = queries_of(run, conditions, by_id)
    negatives = _hard_negatives(run, conditions, instruction)
    adaptive = _adaptive(run, instruction) if config.adaptive else {}
    for source, located in conditions.items():
        if not instruction.get(source) and not descriptive.get(source):
            ledger.note(Failure(
                step=f"{STEP}.documents", item_id=source, metadata={"source_doc": source},
                reason="no query passed the checks and gates; the source document and its "
                       "hard negatives are left out"))
            continue
        wanted = [f"{source}:c{i}" for i in range(1, len(located) + 1)]
        missing = [key.rsplit(":c", 1)[1] for key in wanted if key not in negatives]
        if missing:
            ledger.note(Failure(
                step=f"{STEP}.documents", item_id=source, metadata={"source_doc": source},
                reason=f"no hard-negative sentence for condition(s) {', '.join(missing)}; "
                       "its hard-negative documents and queries are left out"))
            continue
        _assemble(run, by_id[source], located, [negatives[key] for key in wanted],
                  instruction.get(source, {}), descriptive.get(source, {}),
                  adaptive.get(source, {}))
    run.out.queries = runner.annotate(run.out.queries)  # each query's target ranks
    return run.out


def _given_conditions(run: BuildState, docs: Sequence[Doc], given: Mapping[str, Sequence[str]]
                      ) -> dict[str, list[Located]]:
    out: dict[str, list[Located]] = {}
    for doc in docs:
        try:
            out[doc.doc_id] = validate_conditions(list(given[doc.doc_id]), doc.text, run.config.n,
                                                  run.config.threshold)
        except Rejected as exc:
            run.runner.ledger.note(rejection_failure(
                exc, f"{STEP}.conditions", doc.doc_id, None,
                {"source_doc": doc.doc_id, "given": True}))
    return out


def _conditions(run: BuildState, docs: Sequence[Doc]) -> dict[str, list[Located]]:
    config = run.config
    usable = []
    for doc in docs:
        count = len(candidate_sentences(doc.text))
        if count < config.n:
            run.runner.ledger.note(Failure(
                step=f"{STEP}.conditions", item_id=doc.doc_id, metadata={"source_doc": doc.doc_id},
                reason=f"document has {count} sentence(s) of {MIN_WORDS}+ words, fewer than "
                       f"n={config.n}"))
            continue
        usable.append(doc)
    return run.runner.run(conditions_step(config.domain, config.n), usable)


def _condition_phrase(phrases: Mapping[int, Sequence[str]], index: int, sentence: str) -> str:
    """The phrase that asks for condition ``index`` (from the largest query that has it), or
    the sentence itself when no accepted query lists that condition."""
    for k in sorted(phrases, reverse=True):
        if k >= index:
            return phrases[k][index - 1]
    return sentence


def _hard_negatives(run: BuildState, conditions: Mapping[str, list[Located]],
                    instruction: Mapping[str, Mapping[int, Sequence[str]]]) -> dict[str, str]:
    items = [HardNegativeItem(f"{source}:c{index}", source,
                              _condition_phrase(instruction.get(source, {}), index,
                                                condition.span.text),
                              condition.span.text)
             for source, located in conditions.items()
             for index, condition in enumerate(located, start=1)]
    step = hard_negative_step(run.config.domain, run.config.hard_negative_strategy)
    return run.runner.run(step, items)


def _adaptive(run: BuildState, instruction: Mapping[str, Mapping[int, Sequence[str]]]
              ) -> dict[str, dict[int, list[dict[str, Any]]]]:
    domain = run.config.domain
    items = [DecompositionItem(query_id(source, k, "instruction"),
                               render_instruction(domain.instruction_text, conditions),
                               tuple(conditions), {"source_doc": source, "k": k})
             for source, phrases in instruction.items()
             for k, conditions in phrases.items() if k >= 2]
    got = run.runner.run(adaptive_step(f"{STEP}.adaptive_decomposition"), items)
    out: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for item in items:
        if item.key in got:
            out.setdefault(item.metadata["source_doc"], {})[item.metadata["k"]] = [
                s.model_dump() for s in got[item.key]]
    return out


def _assemble(run: BuildState, doc: Doc, located: list[Located], negatives: list[str],
              instruction: Mapping[int, list[str]], descriptive: Mapping[int, str],
              adaptive: Mapping[int, list[dict[str, Any]]]) -> None:
    config = run.config
    spans = [c.span for c in located]
    padding = (plan_padding(doc.text, spans, config.pad_to, f"{config.seed}:{doc.doc_id}",
                            config.filler) if config.pad_to else [])
    parts = SourceParts(
        doc=doc, domain=config.domain.name, strategy=config.hard_negative_strategy,
        conditions=located, hard_negatives=negatives, instruction=instruction,
        instruction_text={k: render_instruction(config.domain.instruction_text, phrases)
                          for k, phrases in instruction.items()},
        descriptive=descriptive, adaptive=adaptive, padding=padding,
        padded_to=config.pad_to)
    queries = build_queries(parts, config.fixed_size)
    run.out.docs.extend(build_documents(parts))
    run.out.queries.extend(queries)
    run.out.qrels.extend(build_qrels(parts, queries))
    for task, rows in build_task_rows(parts, queries).items():
        run.out.tasks[task].extend(rows)
    run.out.sources.append(source_row(parts))
