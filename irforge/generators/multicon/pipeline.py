"""The MultiConIR generator: documents -> LLM steps 1-3 -> validators -> step 4 -> records.

Every LLM call goes through the engine (``engine.run(items, template, OutputModel, step)``);
every result is validated by plain code; every item that fails becomes a Failure with the
reason and the raw output, and every accepted one is logged as a Judgment with its provenance.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from irforge.generators.common import Rejected, rejection_failure, result_failure
from irforge.generators.multicon import models
from irforge.generators.multicon.assembly import DEFAULT_FILLER, plan_padding
from irforge.generators.multicon.domains import STRATEGIES, Domain
from irforge.generators.multicon.sentences import Located, split_sentences
from irforge.generators.multicon.tasks import (
    SourceParts,
    build_documents,
    build_qrels,
    build_queries,
    build_task_rows,
    query_id,
    source_row,
)
from irforge.generators.multicon.validators import (
    render_instruction,
    validate_adaptive,
    validate_conditions,
    validate_descriptive,
    validate_hard_negative,
    validate_instruction,
)
from irforge.records import Doc, Failure, Judgment, Qrel, Query

STEP = "multicon"
HARD_NEGATIVE_TEMPLATES: dict[str, tuple[str, type]] = {
    "modify": ("multicon.hard_negative_modify", models.HardNegativeSentence),
    "keyword": ("multicon.hard_negative_keyword", models.KeywordHardNegative),
}


class EngineLike(Protocol):
    """The part of ``irforge.llm.Engine`` the generator uses."""

    def run(self, items: Sequence[Mapping[str, Any]], template_name: str, output_model: type,
            step: str) -> list[Any]: ...


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

    def __post_init__(self) -> None:
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
        return {"domain": self.domain.name, "n": self.n, "strategy": self.hard_negative_strategy,
                "pad_to": self.pad_to, "seed": self.seed, "threshold": self.threshold,
                "fixed_size": list(self.fixed_size), "adaptive": self.adaptive}


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


@dataclass
class _Run:
    """Mutable state of one build: the engine, the config and what was produced so far."""

    engine: EngineLike
    config: MulticonConfig
    out: MulticonOutput

    def call(self, keys: Sequence[str], items: Sequence[Mapping[str, Any]], template: str,
             model: type, step: str, validate: Callable[[str, Any], Any],
             source_of: Callable[[str], str]) -> dict[str, Any]:
        """Run one engine step; returns validated values by key, logs every failure."""
        if not items:
            return {}
        results = self.engine.run(list(items), template, model, step=step)
        accepted: dict[str, Any] = {}
        for key, result in zip(keys, results, strict=True):
            meta = {"source_doc": source_of(key)}
            failure = result_failure(result, step, key, meta)
            if failure is not None:
                self.out.failures.append(failure)
                continue
            try:
                accepted[key] = validate(key, result.value)
            except Rejected as exc:
                self.out.failures.append(rejection_failure(exc, step, key, result.raw, meta))
                continue
            self.out.accepted.append(Judgment(
                query_id=key, doc_id=source_of(key), label=1.0, source="llm",
                prompt_id=getattr(result, "prompt_id", None) or template,
                model=getattr(result, "model", None), raw_output=result.raw, task=step,
                metadata={"demo_grade": bool(getattr(result, "demo_grade", False))}))
        return accepted


def generate(docs: Sequence[Doc], engine: EngineLike, config: MulticonConfig,
             given: Mapping[str, Sequence[str]] | None = None) -> MulticonOutput:
    """Build the MultiConIR tasks for ``docs`` of one domain.

    ``given`` maps doc ids to condition sentences chosen beforehand (by people, or an earlier
    run); they pass the same validator and skip step 1 for those documents.
    """
    run = _Run(engine, config, MulticonOutput())
    by_id = {doc.doc_id: doc for doc in docs}
    given = dict(given or {})
    conditions = _given_conditions(run, [d for d in docs if d.doc_id in given], given)
    conditions.update(_conditions(run, [d for d in docs if d.doc_id not in given]))
    instruction, descriptive = _queries(run, by_id, conditions)
    negatives = _hard_negatives(run, conditions, instruction)
    adaptive = _adaptive(run, instruction) if config.adaptive else {}
    for source, located in conditions.items():
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
    config, domain = run.config, run.config.domain
    keys, items = [], []
    for doc in docs:
        count = len(split_sentences(doc.text))
        if count < config.n:
            run.out.failures.append(Failure(
                step=f"{STEP}.conditions", item_id=doc.doc_id, metadata={"source_doc": doc.doc_id},
                reason=f"document has {count} sentence(s), fewer than n={config.n}"))
            continue
        keys.append(doc.doc_id)
        items.append({"domain": domain.name, "entity": domain.entity,
                      "features": list(domain.features), "n": config.n, "document": doc.text})
    texts = {doc.doc_id: doc.text for doc in docs}
    return run.call(keys, items, "multicon.conditions",
                    models.condition_sentences_model(config.n), f"{STEP}.conditions",
                    lambda key, value: validate_conditions(value.sentences, texts[key], config.n,
                                                           config.threshold),
                    lambda key: key)


def _queries(run: _Run, by_id: Mapping[str, Doc], conditions: Mapping[str, list[Located]]
             ) -> tuple[dict[str, dict[int, list[str]]], dict[str, dict[int, str]]]:
    domain, n = run.config.domain, run.config.n
    instruction: dict[str, dict[int, list[str]]] = {}
    descriptive: dict[str, dict[int, str]] = {}
    for k in range(1, n + 1):
        keys = [query_id(source, k, "instruction") for source in conditions]
        items = [{"entity": domain.entity, "k": k,
                  "sentences": [c.span.text for c in located[:k]]}
                 for located in conditions.values()]
        sources = dict(zip(keys, conditions, strict=True))
        got = run.call(keys, [{**item, "examples": list(domain.instruction_examples)}
                              for item in items],
                       "multicon.instruction_query", models.instruction_query_model(k),
                       f"{STEP}.instruction_query",
                       lambda key, value, k=k: validate_instruction(value.conditions, k),
                       sources.__getitem__)
        for key, phrases in got.items():
            instruction.setdefault(sources[key], {})[k] = phrases
        keys = [query_id(source, k, "descriptive") for source in conditions]
        sources = dict(zip(keys, conditions, strict=True))
        got = run.call(keys, [{**item, "examples": list(domain.descriptive_examples)}
                              for item in items],
                       "multicon.descriptive_query", models.DescriptiveQuery,
                       f"{STEP}.descriptive_query",
                       lambda key, value, k=k: validate_descriptive(value.query, k),
                       sources.__getitem__)
        for key, text in got.items():
            descriptive.setdefault(sources[key], {})[k] = text
    return instruction, descriptive


def _condition_query(phrases: Mapping[int, Sequence[str]], index: int, sentence: str) -> str:
    """The short phrase for condition ``index`` from the largest query that has it."""
    for k in sorted(phrases, reverse=True):
        if k >= index:
            return phrases[k][index - 1]
    return sentence


def _hard_negatives(run: _Run, conditions: Mapping[str, list[Located]],
                    instruction: Mapping[str, Mapping[int, Sequence[str]]]) -> dict[str, str]:
    strategy = run.config.hard_negative_strategy
    template, model = HARD_NEGATIVE_TEMPLATES[strategy]
    examples = [example.model_dump() for example in run.config.domain.hard_negative_examples]
    keys, items, originals = [], [], {}
    for source, located in conditions.items():
        for index, condition in enumerate(located, start=1):
            key = f"{source}:c{index}"
            keys.append(key)
            originals[key] = condition.span.text
            items.append({"query": _condition_query(instruction.get(source, {}), index,
                                                    condition.span.text),
                          "sentence": condition.span.text, "examples": examples})

    def validate(key: str, value: Any) -> str:
        return validate_hard_negative(originals[key], value.sentence, strategy,
                                      getattr(value, "key_terms", ()))[0]

    return run.call(keys, items, template, model, f"{STEP}.hard_negative", validate,
                    lambda key: key.rsplit(":c", 1)[0])


def _adaptive(run: _Run, instruction: Mapping[str, Mapping[int, Sequence[str]]]
              ) -> dict[str, dict[int, list[dict[str, Any]]]]:
    domain = run.config.domain
    keys, items, sources, sizes = [], [], {}, {}
    for source, phrases in instruction.items():
        for k, conditions in phrases.items():
            if k < 2:
                continue
            key = query_id(source, k, "instruction")
            keys.append(key)
            sources[key], sizes[key] = source, k
            items.append({"query": render_instruction(domain.instruction_text, conditions),
                          "conditions": list(conditions)})
    got = run.call(keys, items, "multicon.adaptive_decomposition", models.AdaptiveDecomposition,
                   f"{STEP}.adaptive_decomposition",
                   lambda key, value: validate_adaptive(value.subqueries, sizes[key]),
                   sources.__getitem__)
    out: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for key, subqueries in got.items():
        out.setdefault(sources[key], {})[sizes[key]] = [s.model_dump() for s in subqueries]
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
