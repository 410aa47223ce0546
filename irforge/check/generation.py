"""The generation hook: the validator registry inside the step runner's query gates.

:func:`attach_validators` gives the step runner's query gates
(:class:`~irforge.steps.gates.QueryGates`, :func:`~irforge.steps.gates.validating_gates`) a
``validate`` hook that runs :func:`~irforge.check.suite.validate` on every generated query,
with the passage it was written from as its relevant passage, the corpus for aliases and
retrievability, and the query's metadata (intent, answer, conditions) when the step declares
it. ``irforge check`` runs the same registry on the written folder, so a build keeps no query
its own check rejects. Each rejection reads ``validator <name>: <detail>`` in failures.jsonl
and the yield tables.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, TypeVar

from irforge.check.demonstrations import Demonstration
from irforge.check.suite import Case, Context, case_fields, validate
from irforge.core.records import Doc, Query

# validators the gates themselves already apply to the query text (same functions)
GATED = frozenset({"form.length", "form.language"})
GENERATED_ID = "(generated)"  # the query id a generated query is validated under


@dataclass
class GenerationValidator:
    """The ``QueryGates.validate`` hook: registry validators on one generated query."""

    context: Context

    def __post_init__(self) -> None:
        self._by_text = {(d.title.strip(), d.text.strip()): d for d in self.context.docs.values()}
        self._recorded: dict[str, Any] = {}

    def source_doc(self, source: tuple[str, str] | None) -> Doc | None:
        """The corpus passage a step names as its source (a stand-in when not in the corpus)."""
        if source is None or not (source[0] or source[1]):
            return None
        title, text = source
        found = self._by_text.get((title.strip(), text.strip()))
        return found if found is not None else Doc("(source passage)", text, title)

    def __call__(self, query: str, source: tuple[str, str] | None,
                 metadata: Mapping[str, Any]) -> list[str]:
        doc = self.source_doc(source)
        meta = dict(metadata)
        given = tuple(d for d in meta.pop("positive_passages", ()) if isinstance(d, Doc))
        core = meta.get("core_query")
        if isinstance(core, str) and core.strip() and core != query:
            meta.setdefault("instructed", query)  # an instructed query: core text + request
            query = core
        record = Query(GENERATED_ID, query, meta)
        positives = given or tuple(self._positives(metadata)) or ((doc,) if doc is not None
                                                                   else ())
        case = Case(record, case_fields(record), positives, doc)
        reasons = [finding.reason for finding in validate(case, self.context)]
        self.context.ranks.pop(GENERATED_ID, None)
        target = self.context.target_records.pop(GENERATED_ID, None)
        self._recorded = {"target": target} if target is not None else {}
        return reasons

    def recorded(self) -> Mapping[str, Any]:
        """What the last call's validators recorded: the ``target`` record (each
        retriever's rank of the positive, k, corpus size) when the target validator ran."""
        return dict(self._recorded)

    def settings(self) -> Mapping[str, Any]:
        """The target validator's depth k (and whether it was given or scaled), corpus size
        and retrievers: recorded in the manifest, printed by the build verbs."""
        return {"target": self.context.targets.settings()}

    def _positives(self, metadata: Mapping[str, Any]) -> Iterable[Doc]:
        ids = metadata.get("positive_doc_ids") or metadata.get("source_doc_ids") or ()
        return (self.context.docs[d] for d in ids if d in self.context.docs)


class Gates(Protocol):
    """What :func:`attach_validators` needs of the step runner's query gates
    (:class:`irforge.steps.gates.QueryGates`): their language and the validator hook."""

    language: str | None
    validate: Any


G = TypeVar("G", bound=Gates)


def attach_validators(gates: G, docs: Iterable[Doc], target_k: int | None = None,
                      prompts_dir: Path | None = None,
                      retrievers: tuple[str, ...] = ("bm25",),
                      examples: Iterable[str] = (), profile: str | None = None) -> G:
    """Give a build runner's gates (shared by every step of every method) the validator
    registry over ``docs`` (the corpus), so generation rejects what ``irforge check`` would;
    ``examples`` are worked examples the method shows besides its templates' (echoes);
    ``profile`` is the writing model's (a small model's queries are grounded word-strict)."""
    context = Context(docs={d.doc_id: d for d in docs}, language=gates.language,
                      target_k=target_k, prompts_dir=prompts_dir, retrievers=retrievers,
                      skip=GATED, extra_demonstrations=shown_examples(examples),
                      profile=profile)
    gates.validate = GenerationValidator(context)
    return gates


def shown_examples(examples: Iterable[str]) -> tuple[Demonstration, ...]:
    """A method's own worked examples as demonstrations the echo validator knows."""
    return tuple(Demonstration(text, "method's") for text in examples if text.strip())


def echo_check(examples: Iterable[str] = (), what: str = "text"
               ) -> Callable[[str, str], list[str]]:
    """The registry's ``echo`` validator for one generated piece that is not a whole query
    (a condition phrase): ``check(text, source_text) -> reasons``, so a step rejects an echo
    on the sample that wrote it (best-of-n) with the rule ``irforge check`` applies."""
    context = Context(extra_demonstrations=shown_examples(examples))

    def check(text: str, source: str) -> list[str]:
        case = Case(Query(GENERATED_ID, text), {what: text}, (Doc("(source)", source),))
        return [finding.reason for finding in validate(case, context, only=("echo",))]

    return check
