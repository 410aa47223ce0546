"""The ComLQ stage of ``make demo``: a few logical queries from the shipped sample corpus."""

from __future__ import annotations

from pathlib import Path

DEMO_TYPES = ("1p", "2i", "pin")


def demo_stage(out: Path, model: str | None) -> str:
    """``make demo``: a few queries from the shipped sample corpus, cut into titled passages."""
    from irforge.cli_options import grade_note
    from irforge.generators.logical.build import LogicalConfig, build_logical
    from irforge.llm import Engine
    from irforge.sample import sample_docs

    config = LogicalConfig(types=DEMO_TYPES, per_type=1, max_passages=2, passage_sentences=4,
                           hypothetical=True)
    with Engine(model, max_tokens=512) as engine:
        summary = build_logical(out, sample_docs(), config, engine)
        note = grade_note(engine.demo_grade)
    return f"{summary.line()} -> {out}{note}"
