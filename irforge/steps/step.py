"""One declarative :class:`Step` per LLM generation step, and the one runner that executes it.

A step names its prompt template, its output model, how an item becomes template variables,
the validators of its output (pure functions returning reasons) and how an accepted output
becomes a value or records. :func:`run_step` sends every item through the engine, turns every
non-ok result and every rejection into a :class:`~irforge.core.records.Failure` in the one failure
format, and returns the accepted values plus a :class:`StepYield` (attempted / accepted /
rejected by reason). Nothing is dropped silently: every item is accepted or has a Failure.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from irforge.core.records import Failure, Judgment
from irforge.steps.failures import FINAL_STATUSES, Rejected, failure_from_result, rejection
from irforge.steps.gates import QueryGates

if TYPE_CHECKING:
    from irforge.llm.protocol import EngineLike

ItemT = TypeVar("ItemT")
OutT = TypeVar("OutT")

# (item, parsed output) -> reasons to reject; an empty sequence accepts
Validator = Callable[[Any, Any], Sequence[str]]


def _no_metadata(item: Any) -> Mapping[str, Any]:
    return {}


def _keep_value(item: Any, value: Any) -> Any:
    return value


@dataclass(frozen=True)
class Step(Generic[ItemT, OutT]):
    """One LLM step: prompt, output model, inputs, validators and what an accepted output becomes.

    ``output_model`` is a model class, or a function of the item returning one (for outputs
    whose shape depends on the item, such as "exactly k conditions"). ``accept`` may raise
    :class:`~irforge.steps.failures.Rejected` when building the records finds a problem the
    validators could not see (a sentence that is not in the source, say).
    """

    name: str
    template: str
    output_model: type | Callable[[ItemT], type]
    variables: Callable[[ItemT], Mapping[str, Any]]
    item_id: Callable[[ItemT], str]
    validators: tuple[Validator, ...] = ()
    accept: Callable[[ItemT, Any], OutT] = _keep_value
    metadata: Callable[[ItemT], Mapping[str, Any]] = _no_metadata
    log_accepted: bool = True
    # Steps whose accepted output holds queries say which texts are queries and what passage
    # (title, text) they were written from, so the runner's query gates can check them.
    queries_of: Callable[[ItemT, OutT], Sequence[str]] | None = None
    source_of: Callable[[ItemT], tuple[str, str]] | None = None
    # the accepted query's metadata the validators read (intent, answer, evidence...)
    query_metadata: Callable[[ItemT, OutT], Mapping[str, Any]] | None = None
    # the output token limit: a number, a function of the item (sized from the words its
    # prompt asks for: word_budget.py), or None to size it to the output model's schema
    max_tokens: int | Callable[[ItemT], int] | None = None

    def token_limit(self, item: ItemT) -> int:
        """The output token limit of ``item``'s request."""
        from irforge.llm.degeneration import schema_token_limit
        from irforge.llm.structured import output_schema

        limit = self.max_tokens
        if callable(limit):
            return int(limit(item))
        return limit or schema_token_limit(output_schema(self.model_for(item)))

    def model_for(self, item: ItemT) -> type:
        """The output model of ``item``."""
        model = self.output_model
        return model if isinstance(model, type) else model(item)  # type: ignore[call-arg]


@dataclass
class StepYield:
    """How many items one step attempted, accepted and rejected, with rejections by reason."""

    step: str
    attempted: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    samples: int = 0  # LLM samples drawn (best-of-n: an item may take several)

    @property
    def failed(self) -> int:
        return sum(self.rejected.values())

    def add(self, other: StepYield) -> None:
        """Fold another run of the same step into this one."""
        self.attempted += other.attempted
        self.accepted += other.accepted
        self.rejected.update(other.rejected)
        self.samples += other.samples

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "attempted": self.attempted, "accepted": self.accepted,
                "samples": self.samples, "rejected": dict(self.rejected.most_common())}

    def line(self) -> str:
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.rejected.most_common(3))
        return (f"{self.step}: {self.accepted}/{self.attempted} accepted"
                + (f" (rejected: {reasons})" if reasons else ""))


@dataclass
class StepOutcome(Generic[OutT]):
    """What :func:`run_step` returns: accepted values by item id (input order), the rest.

    ``results`` keeps each item's last engine result (an ``LLMResult``: raw text, model,
    log-probs), accepted or not, so callers read what the parsed value does not carry.
    """

    accepted: dict[str, OutT]
    failures: list[Failure]
    judgments: list[Judgment]
    yield_: StepYield
    results: dict[str, Any] = field(default_factory=dict)


KEY_WORDS = 8  # the most words of a reason a yield table counts under one key


_QUOTED = re.compile(r"(?<!\w)'[^']*'(?!\w)|\"[^\"]*\"")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")


def _clause(text: str) -> str:
    """The reason's first clause in whole words, item-specific values masked (a quoted value
    becomes ``'…'``, a number ``N``) so like reasons count together; it stops before a
    bracket or after a comma or semicolon, and ``…`` marks a cut at :data:`KEY_WORDS`."""
    text = _NUMBER.sub("N", _QUOTED.sub("'…'", text))
    kept: list[str] = []
    for word in text.split():
        if word[0] in "([{":
            break
        if len(kept) == KEY_WORDS:
            return " ".join(kept) + " …"
        kept.append(word.rstrip(",;"))
        if word[-1] in ",;":
            break
    return " ".join(kept)


def reason_key(reason: str) -> str:
    """The short form of a failure reason counted in yield tables: ``llm <status>`` or the
    validator's first clause (``rejected: not verbatim``), never cut inside a phrase."""
    head, _, rest = reason.partition(":")
    if head.startswith("llm "):
        return head
    clause = _clause(rest.strip().split(":")[0])
    return f"{head}: {clause}" if clause else head


def run_step(engine: EngineLike, step: Step[ItemT, OutT], items: Sequence[ItemT],
             gates: QueryGates | None = None, samples: int | None = None) -> StepOutcome:
    """Run ``step`` over ``items``: best-of-n samples per item until one passes.

    Each round sends the items still open through the engine (one call per output model),
    then checks every answer: engine status, validators, ``accept``, and the query gates when
    the step declares ``queries_of``. An item that fails is drawn again (sample 1, 2, ...: a
    higher temperature, its own cache entries) up to ``samples`` (default: the engine's
    ``samples``, else 1); its last failure is kept. ``gates`` carries the run's query index
    (pass one object to every step of a run, so duplicates across steps are caught).
    """
    judging = Judging(step.name, gates)
    if not items:
        return judging.outcome
    if gates is None and step.queries_of is not None:
        judging.gates = QueryGates()
    rounds = max(1, int(samples or getattr(engine, "samples", 1) or 1))

    def judge(index: int, result: Any) -> bool:
        return judging.judge(step, index, items[index], result)

    if _streams(engine):
        from irforge.llm.sync import run_sync
        from irforge.steps.stream import stream_answers

        run_sync(stream_answers(engine, step, items, rounds, judge,
                                step_limits([step] * len(items), items)))
    else:
        open_items = list(range(len(items)))
        for sample in range(rounds):
            if not open_items:
                break
            results = _ask(engine, [step] * len(items), items, open_items, sample)
            open_items = [index for index in open_items if judge(index, results[index])]
    return judging.settle([step] * len(items), items)


class Judging:
    """The judging of one step's answers: each item's accepted value or its failures, the
    yield's samples, and each item's last engine result; :meth:`settle` makes the outcome."""

    def __init__(self, name: str, gates: QueryGates | None) -> None:
        self.gates = gates
        self.outcome: StepOutcome[Any] = StepOutcome({}, [], [], StepYield(name))
        self.settled: dict[int, tuple[Any, Any]] = {}  # index -> (accepted value, result)
        self.failed: dict[int, list[Failure]] = {}

    def judge(self, step: Step, index: int, item: Any, result: Any) -> bool:
        """Judge one answer; True when it failed and another sample may fix it."""
        self.outcome.yield_.samples += 1
        self.outcome.results[step.item_id(item)] = result
        value, failure = _judge(step, item, result, self.gates)
        if failure is None:
            self.settled[index] = (value, result)
            return False
        self.failed.setdefault(index, []).append(failure)
        return result.status not in FINAL_STATUSES

    def settle(self, steps: Sequence[Step], items: Sequence[Any]) -> StepOutcome:
        """Every item's accepted value or last failure, in index order."""
        for index, (step, item) in enumerate(zip(steps, items, strict=True)):
            _settle(step, item, index, self.settled, self.failed, self.outcome)
        return self.outcome


def step_limits(steps: Sequence[Step], items: Sequence[Any]) -> dict[tuple[str, type], int]:
    """The output token limit of each (template, output model): the largest of its items',
    so a request's limit (part of its cache key) never depends on which items failed."""
    limits: dict[tuple[str, type], int] = {}
    for step, item in zip(steps, items, strict=True):
        key = (step.template, step.model_for(item))
        limits[key] = max(limits.get(key, 0), step.token_limit(item))
    return limits


def _streams(engine: EngineLike) -> bool:
    """Whether the engine reports each answer as it lands (``arun(..., on_result=)``), so a
    step judges answers while others are out (irforge/steps/stream.py); a batch-API engine
    answers whole batches and keeps the round-by-round loop."""
    return bool(getattr(engine, "streams_results", False)) \
        and not getattr(engine, "batch", False)


def _ask(engine: EngineLike, steps: Sequence[Step], items: Sequence[Any],
         indexes: Sequence[int], sample: int,
         limits: Mapping[tuple[str, type], int] | None = None) -> dict[int, Any]:
    """One engine call per (template, output model) for the items at ``indexes`` (item i's
    step is ``steps[i]``); results by index. ``limits`` holds the token limit of each
    (template, model), else an item's own; without it a call's limit is its items' largest.

    The calls go out together when the engine has ``arun`` (its one gate bounds what is in
    flight, irforge/llm/traffic.py): a step whose output model differs per item (a schema
    enumerating each item's choices) is not sent one item at a time. Results are by index,
    so what is judged, and in which order, does not depend on which answer came first.
    """
    groups: dict[tuple[str, type, int], list[int]] = {}
    for index in indexes:
        step, item = steps[index], items[index]
        model = step.model_for(item)
        limit = 0 if limits is None else \
            limits.get((step.template, model)) or step.token_limit(item)
        groups.setdefault((step.template, model, limit), []).append(index)
    calls = []
    for (template, model, limit), members in groups.items():
        options: dict[str, Any] = {"max_tokens": limit or max(
            steps[i].token_limit(items[i]) for i in members)}
        if sample:
            options["sample"] = sample
        calls.append(([dict(steps[i].variables(items[i])) for i in members], template,
                      model, steps[members[0]].name, options))
    arun = getattr(engine, "arun", None)
    if arun is None or len(calls) == 1 or getattr(engine, "batch", False):
        answers = [engine.run(variables, template, model, step=name, **options)
                   for variables, template, model, name, options in calls]
    else:
        from irforge.llm.sync import run_sync

        async def together() -> list[list[Any]]:
            return list(await asyncio.gather(*(
                arun(variables, template, model, step=name, **options)
                for variables, template, model, name, options in calls)))

        answers = run_sync(together())
    results: dict[int, Any] = {}
    for members, got in zip(groups.values(), answers, strict=True):
        results.update(zip(members, got, strict=True))
    return results


def _judge(step: Step, item: Any, result: Any, gates: QueryGates | None
           ) -> tuple[Any, Failure | None]:
    """(accepted value, None) or (None, the Failure saying why not) for one answer."""
    key, meta = step.item_id(item), dict(step.metadata(item))
    if result.status != "ok" or result.value is None:
        return None, failure_from_result(step.name, key, result, meta)
    reasons = [reason for check in step.validators for reason in check(item, result.value)]
    if reasons:
        return None, rejection(step.name, key, reasons, result.raw, meta)
    try:
        value = step.accept(item, result.value)
    except Rejected as exc:
        return None, rejection(step.name, key, [str(exc)], result.raw, meta)
    if gates is not None and step.queries_of is not None:
        queries = list(step.queries_of(item, value))
        source = step.source_of(item) if step.source_of is not None else None
        meta_of = step.query_metadata
        # what no other query affects is checked outside the run's lock (parallel methods
        # screen at once); the duplicate rule and the admit are one step under it, in the
        # methods' order, so parallel methods cannot both keep a query
        screened = gates.screen(queries, source, meta_of(item, value) if meta_of else None)
        reasons = gates.settle(queries, screened, f"{step.name} item {key}")
        if reasons:
            return None, rejection(step.name, key, reasons, result.raw, meta)
    return value, None


def _settle(step: Step, item: Any, index: int, settled: Mapping[int, tuple[Any, Any]],
            failed: Mapping[int, list[Failure]], outcome: StepOutcome) -> None:
    """Record one item's accepted value or its last failure; counts it in the yield."""
    key = step.item_id(item)
    outcome.yield_.attempted += 1
    tries = failed.get(index, [])
    if index not in settled:
        last = tries[-1]
        if len(tries) > 1:
            last.metadata["samples"] = len(tries)
            last.metadata["earlier_reasons"] = [f.reason for f in tries[:-1]]
        outcome.failures.append(last)
        outcome.yield_.rejected[reason_key(last.reason)] += 1
        return
    value, result = settled[index]
    outcome.accepted[key] = value
    outcome.yield_.accepted += 1
    if step.log_accepted:
        meta = dict(step.metadata(item))
        extra = {k: v for k, v in meta.items() if isinstance(v, str | int | float)}
        if isinstance(value, str):  # the accepted text (a rewritten sentence...) for reviewers
            extra["output"] = value
        outcome.judgments.append(Judgment(
            query_id=key, doc_id=str(meta.get("source_doc", key)), label=1.0, source="llm",
            prompt_id=getattr(result, "prompt_id", None) or step.template,
            model=getattr(result, "model", None) or None, raw_output=result.raw, task=step.name,
            metadata={**extra, "demo_grade": bool(getattr(result, "demo_grade", False)),
                      "sample": len(tries)}))
