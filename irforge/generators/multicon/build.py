"""The MultiConIR build: documents -> LLM steps 1-3 (``steps.py``) -> step 4 assembly -> records.

Every LLM step runs through :func:`irforge.steps.run_step`: every item that fails becomes a
Failure with the reason and the raw output, every accepted one is logged as a Judgment with
its provenance, and each step's yield is kept for the manifest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from irforge.core.records import Doc, Failure, Judgment, Qrel, Query
from irforge.generators.multicon.assembly import DEFAULT_FILLER, plan_padding
from irforge.generators.multicon.domains import STRATEGIES, Domain
from irforge.generators.multicon.sentences import MIN_WORDS, Located
from irforge.generators.multicon.steps import (
    PHRASE_MODES,
    STEP,
    HardNegativeItem,
    PhraseItem,
    QueryItem,
    candidate_sentences,
    condition_phrase_step,
    conditions_step,
    descriptive_query_step,
    duplicate_phrases,
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
from irforge.llm.protocol import EngineLike
from irforge.steps import Rejected, Step, StepOutcome, StepYield, reason_key, run_step
from irforge.steps.assembled import AssembledQuery, gate_assembled
from irforge.steps.decomposition import DecompositionItem, adaptive_step
from irforge.steps.failures import rejection_failure
from irforge.steps.gates import QueryGates, corpus_language
from irforge.steps.yields import YieldTable


@dataclass(frozen=True)
class MulticonConfig:
    """Parameters of one build; recorded in the manifest."""

    domain: Domain
    n: int = 10
    strategy: str | None = None
    pad_to: int | None = None
    seed: int = 0
    threshold: float = 90.0
    fixed_size: tuple[int, int] = (2, 3)
    adaptive: bool = False
    filler: tuple[str, ...] = DEFAULT_FILLER
    language: str | None = None  # queries' expected language; None: detected from the corpus
    phrases: str = "write"  # condition phrases: "write" (the model writes) or "pick" (key terms)

    def __post_init__(self) -> None:
        if self.phrases not in PHRASE_MODES:
            raise ValueError(f"unknown phrases mode {self.phrases!r}; use one of {PHRASE_MODES}")
        if self.n < 1:
            raise ValueError(f"n must be at least 1, got {self.n}")
        if self.strategy is not None and self.strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {self.strategy!r}; use one of {STRATEGIES}")
        if self.pad_to is not None and self.pad_to < 1:
            raise ValueError(f"pad_to must be a positive word count, got {self.pad_to}")
        if not 0 < self.threshold <= 100:
            raise ValueError(f"threshold is a rapidfuzz score in (0, 100], got {self.threshold}")

    @property
    def hard_negative_strategy(self) -> str:
        return self.strategy or self.domain.strategy

    def params(self) -> dict[str, Any]:
        return {"domain": self.domain.name, "entity": self.domain.entity,
                "features": list(self.domain.features), "n": self.n,
                "strategy": self.hard_negative_strategy,
                "pad_to": self.pad_to, "seed": self.seed, "threshold": self.threshold,
                "fixed_size": list(self.fixed_size), "adaptive": self.adaptive,
                "language": self.language, "phrases": self.phrases}


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
class _Run:
    """Mutable state of one build: the engine, the config and what was produced so far."""

    engine: EngineLike
    config: MulticonConfig
    out: MulticonOutput
    gates: QueryGates

    def run(self, step: Step, items: Sequence[Any]) -> dict[str, Any]:
        """Run one step through the shared runner; keeps its failures, provenance and yield."""
        return self.keep(step.name, run_step(self.engine, step, items, self.gates))

    def keep(self, name: str, outcome: StepOutcome) -> dict[str, Any]:
        """Record one step's failures, provenance and yield; returns its accepted values."""
        self.out.failures.extend(outcome.failures)
        self.out.accepted.extend(outcome.judgments)
        self.out.yields.setdefault(name, StepYield(name)).add(outcome.yield_)
        return outcome.accepted


def generate(docs: Sequence[Doc], engine: EngineLike, config: MulticonConfig,
             given: Mapping[str, Sequence[str]] | None = None,
             gates: QueryGates | None = None) -> MulticonOutput:
    """Build the MultiConIR tasks for ``docs`` of one domain.

    ``given`` maps doc ids to condition sentences chosen beforehand (by people, or an earlier
    run); they pass the same validator and skip step 1 for those documents. ``gates`` carries
    queries other builds of the same benchmark already hold (default: fresh gates in the
    configured language, else the corpus's).
    """
    if gates is None:
        from irforge.check.generation import validating_gates

        language = config.language or corpus_language(doc.text for doc in docs)
        gates = validating_gates(docs, language)
    run = _Run(engine, config, MulticonOutput(language=gates.language), gates)
    by_id = {doc.doc_id: doc for doc in docs}
    given = dict(given or {})
    conditions = _given_conditions(run, [d for d in docs if d.doc_id in given], given)
    conditions.update(_conditions(run, [d for d in docs if d.doc_id not in given]))
    instruction, descriptive = _queries(run, conditions, by_id)
    negatives = _hard_negatives(run, conditions, instruction)
    adaptive = _adaptive(run, instruction) if config.adaptive else {}
    for source, located in conditions.items():
        if not instruction.get(source) and not descriptive.get(source):
            run.out.failures.append(Failure(
                step=f"{STEP}.documents", item_id=source, metadata={"source_doc": source},
                reason="no query passed the checks and gates; the source document and its "
                       "hard negatives are left out"))
            continue
        wanted = [f"{source}:c{i}" for i in range(1, len(located) + 1)]
        missing = [key.rsplit(":c", 1)[1] for key in wanted if key not in negatives]
        if missing:
            run.out.failures.append(Failure(
                step=f"{STEP}.documents", item_id=source, metadata={"source_doc": source},
                reason=f"no hard-negative sentence for condition(s) {', '.join(missing)}; "
                       "its hard-negative documents and queries are left out"))
            continue
        _assemble(run, by_id[source], located, [negatives[key] for key in wanted],
                  instruction.get(source, {}), descriptive.get(source, {}),
                  adaptive.get(source, {}))
    return run.out


def _given_conditions(run: _Run, docs: Sequence[Doc], given: Mapping[str, Sequence[str]]
                      ) -> dict[str, list[Located]]:
    out: dict[str, list[Located]] = {}
    for doc in docs:
        try:
            out[doc.doc_id] = validate_conditions(list(given[doc.doc_id]), doc.text, run.config.n,
                                                  run.config.threshold)
        except Rejected as exc:
            run.out.failures.append(rejection_failure(
                exc, f"{STEP}.conditions", doc.doc_id, None,
                {"source_doc": doc.doc_id, "given": True}))
    return out


def _conditions(run: _Run, docs: Sequence[Doc]) -> dict[str, list[Located]]:
    config = run.config
    usable = []
    for doc in docs:
        count = len(candidate_sentences(doc.text))
        if count < config.n:
            run.out.failures.append(Failure(
                step=f"{STEP}.conditions", item_id=doc.doc_id, metadata={"source_doc": doc.doc_id},
                reason=f"document has {count} sentence(s) of {MIN_WORDS}+ words, fewer than "
                       f"n={config.n}"))
            continue
        usable.append(doc)
    return run.run(conditions_step(config.domain, config.n), usable)


def _phrases(run: _Run, conditions: Mapping[str, list[Located]]) -> dict[str, list[str]]:
    """Each source's condition phrases 1..m: the longest run from condition 1 whose phrases
    were all accepted and differ from each other (q_k needs phrases 1..k)."""
    items = [PhraseItem(f"{source}:p{index}", source, index, condition.span.text)
             for source, located in conditions.items()
             for index, condition in enumerate(located, start=1)]
    got = run.run(condition_phrase_step(run.config.domain, run.config.phrases), items)
    out: dict[str, list[str]] = {}
    for source, located in conditions.items():
        phrases: list[str] = []
        for index in range(1, len(located) + 1):
            phrase = got.get(f"{source}:p{index}")
            if phrase is None:
                break
            repeats = duplicate_phrases([*phrases, phrase])
            if repeats:  # a document-level decision: the phrase itself passed its step
                run.out.failures.append(Failure(
                    step=f"{STEP}.documents", item_id=source, raw_output=phrase,
                    reason=f"{'; '.join(repeats)}; its queries stop at q_{len(phrases)}",
                    metadata={"source_doc": source, "condition": index}))
                break
            phrases.append(phrase)
        out[source] = phrases
    return out


def _queries(run: _Run, conditions: Mapping[str, list[Located]], docs: Mapping[str, Doc]
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
    outcome = gate_assembled(f"{STEP}.instruction_query", assembled, run.gates)
    for source, own in phrases.items():  # q_k past the last usable phrase: say why it is missing
        for k in range(len(own) + 1, len(conditions[source]) + 1):
            failure = Failure(
                step=f"{STEP}.instruction_query", item_id=query_id(source, k, "instruction"),
                reason=f"missing: no usable phrase for condition {len(own) + 1} "
                       f"(see {source}:p{len(own) + 1})", metadata={"source_doc": source, "k": k})
            outcome.failures.append(failure)
            outcome.yield_.attempted += 1
            outcome.yield_.rejected[reason_key(failure.reason)] += 1
    kept = run.keep(f"{STEP}.instruction_query", outcome)
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
        for key, text in run.run(descriptive_query_step(domain), items).items():
            descriptive.setdefault(_source(items, key), {})[k] = text
    return instruction, descriptive


def _source(items: Sequence[QueryItem], key: str) -> str:
    return next(item.source for item in items if item.key == key)


def _condition_phrase(phrases: Mapping[int, Sequence[str]], index: int, sentence: str) -> str:
    """The phrase that asks for condition ``index`` (from the largest query that has it), or
    the sentence itself when no accepted query lists that condition."""
    for k in sorted(phrases, reverse=True):
        if k >= index:
            return phrases[k][index - 1]
    return sentence


def _hard_negatives(run: _Run, conditions: Mapping[str, list[Located]],
                    instruction: Mapping[str, Mapping[int, Sequence[str]]]) -> dict[str, str]:
    items = [HardNegativeItem(f"{source}:c{index}", source,
                              _condition_phrase(instruction.get(source, {}), index,
                                                condition.span.text),
                              condition.span.text)
             for source, located in conditions.items()
             for index, condition in enumerate(located, start=1)]
    step = hard_negative_step(run.config.domain, run.config.hard_negative_strategy)
    return run.run(step, items)


def _adaptive(run: _Run, instruction: Mapping[str, Mapping[int, Sequence[str]]]
              ) -> dict[str, dict[int, list[dict[str, Any]]]]:
    domain = run.config.domain
    items = [DecompositionItem(query_id(source, k, "instruction"),
                               render_instruction(domain.instruction_text, conditions),
                               tuple(conditions), {"source_doc": source, "k": k})
             for source, phrases in instruction.items()
             for k, conditions in phrases.items() if k >= 2]
    got = run.run(adaptive_step(f"{STEP}.adaptive_decomposition"), items)
    out: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for item in items:
        if item.key in got:
            out.setdefault(item.metadata["source_doc"], {})[item.metadata["k"]] = [
                s.model_dump() for s in got[item.key]]
    return out


def _assemble(run: _Run, doc: Doc, located: list[Located], negatives: list[str],
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
