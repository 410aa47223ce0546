"""The ``make demo`` stage: an InfoSearch-style benchmark from a few shipped sample documents.

The demo uses the Keyword dimension: two core queries ("fictional novels ...", "fictional films
...") with two sample documents each, cut to their first words. Keywords are picked from the
documents by construction, so the embedded model gets through every step; the Audience,
Length and Source dimensions rewrite whole documents and need a real model.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DEMO_WORDS = 60  # first words of each document, to keep prompts short
# core query id, core query, sample-corpus file-name marker of its positives
DEMO_QUERIES = (("novels", "fictional novels and their authors", "-novel-"),
                ("films", "fictional films and their directors", "-film-"))


def demo_pairs(docs: list[Any], per_query: int = 2) -> list[Any]:
    """Keyword pairs: each demo core query with its first ``per_query`` sample documents."""
    from irforge.core.records import Doc
    from irforge.generators.instructions.pairs import Pair

    pairs = []
    for query_id, query, marker in DEMO_QUERIES:
        for doc in [d for d in docs if marker in d.doc_id][:per_query]:
            text = " ".join(doc.text.split()[:DEMO_WORDS])
            pairs.append(Pair(query_id, query, Doc(doc.doc_id, text, doc.title), "keyword"))
    return pairs


def demo_stage(out: Path, model: str | None = None, api_base: str | None = None) -> str:
    """Build ``out/instructions-bench`` from sample documents by ``Method.run``; prints the
    yield table and fails (exit 3) when no unit was kept."""
    import typer

    from irforge.cli.options import grade_note
    from irforge.data.sample import sample_corpus_dir, sample_docs
    from irforge.generators.instructions.method import METHOD, Config
    from irforge.llm import Engine
    from irforge.steps.method import Inputs
    from irforge.steps.runner import BuildRunner

    pairs = demo_pairs(sample_docs())
    if not pairs:
        return "skipped: no sample documents found"
    target = Path(out) / "instructions-bench"
    with Engine(model, api_base=api_base, cache_path=Path(out) / ".irforge" / "cache.sqlite",
                max_tokens=160) as engine:
        built = METHOD.run(BuildRunner.open(engine, target, "instructions"),
                           Config(hard_negatives=1, seed=0),
                           Inputs(sample_corpus_dir(), pairs=tuple(pairs)),
                           lambda done: typer.echo(done.report.yields.render()))
        note = grade_note(engine.demo_grade)
    return f"{target}: {built.report.summary()}{note}"
