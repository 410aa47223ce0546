"""The ComLQ stage of ``make demo``: one-hop logical queries from the shipped sample corpus."""

from __future__ import annotations

from pathlib import Path

# One-hop queries over single three-sentence passages: the shape the embedded model can fill
# (the schema enumerates the passage's sentences, names and the type's variables).
DEMO_TYPES = ("1p",)
DEMO_PER_TYPE = 2
DEMO_SENTENCES = 3


def demo_stage(out: Path, model: str | None = None, api_base: str | None = None) -> str:
    """``make demo``: a few queries from the shipped sample corpus, cut into titled passages,
    built by ``Method.run``; prints the yield table and fails (exit 3) when no query was
    accepted."""
    import typer

    from irforge.cli.options import grade_note
    from irforge.data.sample import sample_corpus_dir, sample_docs
    from irforge.generators.logical.method import METHOD, Config
    from irforge.llm import Engine
    from irforge.steps.method import Inputs
    from irforge.steps.runner import BuildRunner

    config = Config(types=list(DEMO_TYPES), per_type=DEMO_PER_TYPE, max_passages=1,
                    passage_sentences=DEMO_SENTENCES)
    inputs = Inputs(sample_corpus_dir(), docs=tuple(sample_docs()))
    with Engine(model, api_base=api_base, cache_path=Path(out).parent / ".irforge" / "cache.sqlite",
                max_tokens=256) as engine:
        built = METHOD.run(BuildRunner.open(engine, out, "logical"), config, inputs,
                           lambda done: typer.echo(done.report.yields.render()))
        note = grade_note(engine.demo_grade)
    return f"{built.report.line()} -> {out}{note}"
