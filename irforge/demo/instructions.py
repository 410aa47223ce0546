"""The ``make demo`` stage: an InfoSearch-style benchmark from a few shipped sample documents.

Sample documents are written in an expert register; each becomes one Audience pair (its title
as the core query, the document as the expert positive), so the stage shows rewriting into a
layman version, instructions, reversals, hard negatives and the three qrels files.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_DOCS = 2  # the embedded model is slow on CPU; two documents show every step
DEMO_WORDS = 80  # first words of each document, to keep prompts short


def demo_pairs(docs: list[Any], count: int = DEMO_DOCS) -> list[Any]:
    """Audience pairs from the first ``count`` sample documents, titles as core queries."""
    from irforge.generators.instructions.pairs import Pair
    from irforge.records import Doc

    pairs = []
    for doc in docs[:count]:
        text = " ".join(doc.text.split()[:DEMO_WORDS])
        pairs.append(Pair(doc.doc_id, doc.title or text[:80], Doc(doc.doc_id, text, doc.title),
                          "audience", "expert"))
    return pairs


def demo_stage(out: Path, model: str | None) -> str:
    """Build ``out/instructions-bench`` from sample documents; returns a one-line summary."""
    from irforge.generators.instructions.build import BuildSettings, build_instructions
    from irforge.generators.instructions.dimensions import load_dimensions
    from irforge.llm import Engine
    from irforge.sample import sample_docs

    pairs = demo_pairs(sample_docs())
    if not pairs:
        return "skipped: no sample documents found"
    target = Path(out) / "instructions-bench"
    with Engine(model, max_tokens=384) as engine:
        report = build_instructions(target, pairs, engine, load_dimensions(),
                                    BuildSettings(hard_negatives=1, seed=0),
                                    recipe={"input": "irforge sample corpus (demo)"})
        grade = " (embedded demo-grade model: expect most items rejected)" \
            if engine.demo_grade else ""
    return f"{target}: {report.summary()}{grade}"
