"""The validator registry: one set of named validators run by generation and ``irforge check``.

A validator is a function of a :class:`Case` (a query with its fields, relevant passages and
source) and the :class:`Context` (the corpus, its aliases, the benchmark's other queries, the
prompt demonstrations) that yields :class:`Finding` s. :func:`validate` runs every registered
validator; ``irforge check`` calls it on each query of a folder and the generation gates
(:func:`irforge.check.generation.validating_gates`) on each generated query, so both apply
the same rules. docs/generation.md lists every validator, its threshold and its blind spots.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from irforge.check.base import (  # noqa: F401  (re-exported: the registry's types)
    CORPUS_VALIDATORS,
    VALIDATORS,
    Case,
    Context,
    Finding,
    Validator,
    source_of,
    validator,
)
from irforge.core.records import Doc, Query


def _load() -> None:
    """Import the modules that register validators (kept lazy: they pull stemmers, YAML)."""
    from irforge.check import (  # noqa: F401
        answer_grounding,
        echo,
        form,
        form_grounding,
        grounding,
        method_rules,
        specific,
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
    positives = tuple(docs[d] for d in positive_ids if d in docs)
    return Case(query, case_fields(query), positives, source_of(query, docs))
