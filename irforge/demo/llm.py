"""Demo stage: one structured call through the engine on one sample document."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from irforge.demo import DemoContext

DEMO_TEXT_CHARS = 600


class DocKeywords(BaseModel):
    """A one-sentence summary and a few keywords of one document."""

    summary: str = Field(max_length=300)
    keywords: list[str] = Field(min_length=1, max_length=5)


def stage_llm(ctx: DemoContext) -> str:
    """Summarise the first corpus document with the configured (default: embedded) model."""
    from irforge.cli.options import grade_note
    from irforge.core.jsonl import write_json
    from irforge.data.sample import sample_docs
    from irforge.llm import Engine

    bench = ctx.bench
    docs = list(bench.corpus()) if bench.corpus_path.exists() else sample_docs()
    if not docs:
        return "no documents to summarise (run the corpus stage first)"
    doc = docs[0]
    with Engine(ctx.model, api_base=ctx.api_base, cache_path=ctx.out / ".irforge" / "cache.sqlite",
                max_tokens=160) as engine:
        [result] = engine.run([{"title": doc.title, "text": doc.text[:DEMO_TEXT_CHARS]}],
                              "demo.keywords", DocKeywords, step="demo.llm")
        bench.record_step("demo.llm", engine.manifest_entry())
    write_json(ctx.out / "demo" / "llm_keywords.json", {"doc_id": doc.doc_id,
                                                        **result.to_dict()})
    if result.status != "ok":
        return f"{doc.doc_id}: {result.status} ({result.error}){grade_note(result.demo_grade)}"
    return (f"{doc.doc_id}: {result.value.summary!r} keywords={result.value.keywords} "
            f"({result.prompt_tokens}+{result.completion_tokens} tokens, "
            f"cached={result.cached}){grade_note(result.demo_grade)}")
