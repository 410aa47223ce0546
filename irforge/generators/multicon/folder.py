"""Build one MultiConIR benchmark folder on the build runner: choose the domain, read the
conditions chosen beforehand, generate, write. ``Method.run`` (``method.py``) finishes it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from irforge.core.errors import FormatError, IrforgeError, Problem
from irforge.core.jsonl import iter_jsonl
from irforge.core.records import Doc
from irforge.generators.multicon.build import MulticonConfig, generate
from irforge.generators.multicon.writer import write_output
from irforge.steps.runner import BuildRunner


def build_multicon(runner: BuildRunner, docs: list[Doc], config: MulticonConfig,
                   source: str = "", given: dict[str, list[str]] | None = None,
                   sources: dict[str, Any] | None = None) -> tuple[dict[str, int], int]:
    """Generate and write a MultiConIR benchmark on ``runner``; returns the counts stored in
    the manifest and the source documents kept (what ``Method.run`` finishes on)."""
    if not docs:
        raise IrforgeError("no documents to build from (is the corpus empty?)")
    output = generate(docs, runner.engine, config, given, runner=runner)
    counts = write_output(runner, output, config.params(),
                          {"source_corpus": source, "source_docs": len(docs),
                           **({"sources": sources} if sources is not None else {})})
    return counts, len(output.sources)


def choose_domain(name: str, docs: list[Doc], seed: int, domains: Path | None = None) -> Any:
    """The domain called ``name`` (built in or from the ``domains`` YAML file), or, for
    ``derived``, the corpus's own (term clusters, no model)."""
    from irforge.generators.multicon.domains import get_domain, load_domains

    extra = load_domains(domains) if domains is not None else {}
    try:
        if name == "derived" and name not in extra:
            return derived_domain(docs, seed)
        return get_domain(name, extra)
    except ValueError as exc:
        raise IrforgeError(str(exc)) from exc


def derived_domain(docs: list, seed: int):
    """The domain of a corpus no built-in domain is named for (term clusters, no model)."""
    from irforge.generators.domain_profile import derive_domain

    if not docs:
        raise ValueError("no documents to derive a domain from (is the corpus empty?)")
    return derive_domain(docs, seed)


def read_given_conditions(path: Path) -> dict[str, list[str]]:
    """Condition sentences chosen beforehand: JSONL rows ``{"doc_id", "conditions": [...]}``."""
    out: dict[str, list[str]] = {}
    for number, row in iter_jsonl(Path(path)):
        doc_id, conditions = row.get("doc_id"), row.get("conditions")
        if not isinstance(doc_id, str) or not doc_id:
            raise FormatError(Problem(Path(path), "missing or not a string", line=number,
                                      field="doc_id", hint="give the corpus id of the document"))
        if not isinstance(conditions, list) or not all(isinstance(c, str) for c in conditions):
            raise FormatError(Problem(Path(path), "must be a list of sentences", line=number,
                                      field="conditions",
                                      hint="copy N sentences from the document"))
        out[doc_id] = conditions
    return out
