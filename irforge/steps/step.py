"""One declarative :class:`Step` per LLM generation step, and the one runner that executes it.

A step names its prompt template, its output model, how an item becomes template variables,
the validators of its output (pure functions returning reasons) and how an accepted output
becomes a value or records. :func:`run_step` sends every item through the engine, turns every
non-ok result and every rejection into a :class:`~irforge.records.Failure` in the one failure
format, and returns the accepted values plus a :class:`StepYield` (attempted / accepted /
rejected by reason). Nothing is dropped silently: every item is accepted or has a Failure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from irforge.records import Failure, Judgment
from irforge.steps.failures import Rejected, failure_from_result, rejection

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

    @property
    def failed(self) -> int:
        return sum(self.rejected.values())

    def add(self, other: StepYield) -> None:
        """Fold another run of the same step into this one."""
        self.attempted += other.attempted
        self.accepted += other.accepted
        self.rejected.update(other.rejected)

    def to_dict(self) -> dict[str, Any]:
        return {"step": self.step, "attempted": self.attempted, "accepted": self.accepted,
                "rejected": dict(self.rejected.most_common())}

    def line(self) -> str:
        reasons = ", ".join(f"{reason} {count}" for reason, count in self.rejected.most_common(3))
        return (f"{self.step}: {self.accepted}/{self.attempted} accepted"
                + (f" (rejected: {reasons})" if reasons else ""))


@dataclass
class StepOutcome(Generic[OutT]):
    """What :func:`run_step` returns: accepted values by item id (input order), the rest."""

    accepted: dict[str, OutT]
    failures: list[Failure]
    judgments: list[Judgment]
    yield_: StepYield


def reason_key(reason: str) -> str:
    """The short form of a failure reason counted in yield tables: ``llm <status>`` or the
    validator's first words (``rejected: not verbatim``)."""
    head, _, rest = reason.partition(":")
    if head.startswith("llm "):
        return head
    words = rest.strip().split(":")[0].split()
    return f"{head}: {' '.join(words[:4])}" if words else head


def run_step(engine: EngineLike, step: Step[ItemT, OutT], items: Sequence[ItemT]) -> StepOutcome:
    """Run ``step`` over ``items``: one engine call per output model, then validate and accept."""
    outcome: StepOutcome[OutT] = StepOutcome({}, [], [], StepYield(step.name))
    if not items:
        return outcome
    groups: dict[type, list[int]] = {}
    for index, item in enumerate(items):
        groups.setdefault(step.model_for(item), []).append(index)
    results: list[Any] = [None] * len(items)
    for model, indexes in groups.items():
        answers = engine.run([dict(step.variables(items[i])) for i in indexes], step.template,
                             model, step=step.name)
        for index, answer in zip(indexes, answers, strict=True):
            results[index] = answer
    for item, result in zip(items, results, strict=True):
        _settle(step, item, result, outcome)
    return outcome


def _settle(step: Step, item: Any, result: Any, outcome: StepOutcome) -> None:
    """Accept one result or record why not; counts it in the yield."""
    key, meta = step.item_id(item), dict(step.metadata(item))
    outcome.yield_.attempted += 1
    failure: Failure | None = None
    if result.status != "ok" or result.value is None:
        failure = failure_from_result(step.name, key, result, meta)
    else:
        reasons = [reason for check in step.validators for reason in check(item, result.value)]
        if reasons:
            failure = rejection(step.name, key, reasons, result.raw, meta)
        else:
            try:
                outcome.accepted[key] = step.accept(item, result.value)
            except Rejected as exc:
                failure = rejection(step.name, key, [str(exc)], result.raw, meta)
    if failure is not None:
        outcome.failures.append(failure)
        outcome.yield_.rejected[reason_key(failure.reason)] += 1
        return
    outcome.yield_.accepted += 1
    if step.log_accepted:
        outcome.judgments.append(Judgment(
            query_id=key, doc_id=str(meta.get("source_doc", key)), label=1.0, source="llm",
            prompt_id=getattr(result, "prompt_id", None) or step.template,
            model=getattr(result, "model", None) or None, raw_output=result.raw, task=step.name,
            metadata={"demo_grade": bool(getattr(result, "demo_grade", False))}))
