"""The validator registry: one set of named validators run by generation and ``irforge check``.

A validator is a function of a :class:`Case` (a query with its fields, relevant passages and
source) and the :class:`Context` (the corpus, its aliases, the benchmark's other queries, the
prompt demonstrations) that yields :class:`Finding` s. :func:`validate` runs every registered
validator; ``irforge check`` calls it on each query of a folder and the generation gates
(:func:`irforge.check.generation.validating_gates`) on each generated query, so both apply
the same rules. docs/generation.md lists every validator, its threshold and its blind spots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from irforge.core.records import Doc, Query


@dataclass(frozen=True)
class Finding:
    """One rejection: the validator's name, the field it read, what is wrong, how to fix it."""

    validator: str
    field: str
    detail: str
    fix: str

    @property
    def reason(self) -> str:
        """The one-line failure reason generation records (``validator <name>: <detail>``)."""
        return f"validator {self.validator}: {self.detail}"


@dataclass(frozen=True)
class Case:
    """One query as the validators see it.

    ``fields`` maps a field name (``text``, ``need``, ``instruction``, ``answer``,
    ``condition 2``...) to its text; ``positives`` are the relevant passages (highest grade);
    ``source`` the passage it was written from, when known.
    """

    query: Query
    fields: Mapping[str, str]
    positives: tuple[Doc, ...] = ()
    source: Doc | None = None

    @property
    def text(self) -> str:
        return self.query.text

    @property
    def meta(self) -> Mapping[str, Any]:
        return self.query.metadata

    @property
    def grounds(self) -> tuple[Doc, ...]:
        """The passages a query's words must come from: its positives, else its source."""
        if self.positives:
            return self.positives
        return (self.source,) if self.source is not None else ()


@dataclass
class Context:
    """What validators know beyond one query: the corpus and the run's settings.

    ``target_k`` overrides the retrievability depth (None: scaled to the corpus size);
    ``prompts_dir`` adds a user prompt folder to the harvested demonstrations.
    """

    docs: Mapping[str, Doc] = field(default_factory=dict)
    language: str | None = None
    target_k: int | None = None
    prompts_dir: Path | None = None
    skip: frozenset[str] = frozenset()
    retrievers: tuple[str, ...] = ("bm25",)
    ranks: dict[str, int | None] = field(default_factory=dict)

    @cached_property
    def vocabulary(self) -> frozenset[str]:
        """Every lower-case word of the corpus."""
        from irforge.check.text import words

        return frozenset(w for doc in self.docs.values() for text in (doc.title, doc.text)
                         for w in words(text))

    def expected_language(self) -> str | None:
        """The corpus language (detected once, on first need, when not given)."""
        if self.language is None and self.docs:
            from irforge.steps.gates import corpus_language

            self.language = corpus_language(doc.text for doc in self.docs.values())
        return self.language

    @cached_property
    def aliases(self) -> Any:
        from irforge.check.aliases import corpus_aliases

        return corpus_aliases(self.docs.values())

    @cached_property
    def demonstrations(self) -> Any:
        from irforge.check.demonstrations import harvest

        return harvest(self.prompts_dir)

    @cached_property
    def targets(self) -> Any:
        from irforge.check.target import TargetIndex

        return TargetIndex(list(self.docs.values()), self.target_k, self.retrievers)


Validator = Callable[[Case, Context], Iterable[Finding]]
VALIDATORS: dict[str, Validator] = {}
# validators that need the whole corpus (skipped where a caller has only one passage)
CORPUS_VALIDATORS = frozenset({"target"})


def validator(name: str) -> Callable[[Validator], Validator]:
    """Register a validator under ``name`` (``family.rule``, e.g. ``form.debris``)."""

    def register(function: Validator) -> Validator:
        if name in VALIDATORS:
            raise ValueError(f"validator {name!r} registered twice")
        VALIDATORS[name] = function
        return function

    return register


def _load() -> None:
    """Import the modules that register validators (kept lazy: they pull stemmers, YAML)."""
    from irforge.check import (  # noqa: F401
        echo,
        form,
        grounding,
        method_rules,
        target,
    )


def validator_names() -> list[str]:
    """Every registered validator, sorted."""
    _load()
    return sorted(VALIDATORS)


def validate(case: Case, context: Context, only: Sequence[str] | None = None) -> list[Finding]:
    """Every finding of every registered validator (or of ``only``) on one query."""
    _load()
    findings: list[Finding] = []
    for name in only or sorted(VALIDATORS):
        if name in context.skip or name.split(".")[0] in context.skip:
            continue
        findings.extend(VALIDATORS[name](case, context))
    return findings


# -- fields of a query -------------------------------------------------------------------------

# metadata keys whose text is written by a model and checked like the query (besides 'text')
TEXT_FIELDS = ("need", "instruction", "instructed", "reversed", "answer",
               "descriptive_query", "hypothesis")


def case_fields(query: Query) -> dict[str, str]:
    """The texts of a query that validators read: the query, its need, instruction, answer,
    conditions; list values get numbered names (``condition_phrases 1``)."""
    fields = {"text": query.text}
    meta = query.metadata
    for key in TEXT_FIELDS:
        value = meta.get(key)
        if isinstance(value, str) and value.strip():
            fields[key] = value
    for key in ("condition_phrases",):
        values = meta.get(key)
        if isinstance(values, list) and meta.get("phrase_source") != "condition_sentences":
            for number, value in enumerate(values, start=1):
                if isinstance(value, str):
                    fields[f"{key} {number}"] = value
    return fields


def make_case(query: Query, docs: Mapping[str, Doc],
              positive_ids: Iterable[str] = ()) -> Case:
    """A :class:`Case` for ``query`` with its relevant passages and source from ``docs``."""
    from irforge.check.queries import source_of

    positives = tuple(docs[d] for d in positive_ids if d in docs)
    return Case(query, case_fields(query), positives, source_of(query, docs))
