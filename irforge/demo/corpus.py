"""The corpus pipeline's demo stage: the shipped sample corpus -> the demo's ``corpus.jsonl``.

A few sample documents are rendered to real PDFs (reportlab, with a running header and page
numbers for the extractor to remove), one of them twice with a small edit (a planted
near-duplicate for the MinHash-LSH stage); the rest stay ``.txt``. Then the whole pipeline runs
on that folder, so the demo exercises extract, dedup, chunk, passage dedup and write.
"""

from __future__ import annotations

import io
from pathlib import Path

from irforge.core.errors import require
from irforge.core.jsonl import atomic_open

RENDERED = 3  # how many sample documents become PDFs


def render_pdf(title: str, paragraphs: list[str], path: Path, header: str) -> Path:
    """Write a real multi-paragraph PDF with a running header and page-number footer."""
    require("reportlab", "corpus")
    from reportlab.lib.pagesizes import A5
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    styles = getSampleStyleSheet()
    body = ParagraphStyle("demo-body", parent=styles["BodyText"], fontSize=13, leading=18,
                          spaceAfter=8)

    def decorate(canvas, doc) -> None:
        canvas.saveState()
        canvas.setFont("Helvetica", 8)
        canvas.drawString(48, A5[1] - 28, header)
        canvas.drawString(A5[0] / 2, 24, f"Page {doc.page}")
        canvas.restoreState()

    story = [Paragraph(title, styles["Title"]), Spacer(1, 12)]
    story += [Paragraph(text, body) for text in paragraphs]
    pdf = io.BytesIO()
    SimpleDocTemplate(pdf, pagesize=A5, title=title, invariant=1, leftMargin=48,
                      rightMargin=48, topMargin=56, bottomMargin=56).build(
        story, onFirstPage=decorate, onLaterPages=decorate)
    _write(path, pdf.getvalue())
    return path


def _write(path: Path, data: bytes) -> None:
    """``data`` renamed into place at ``path`` (journaled: a killed demo leaves no source)."""
    with atomic_open(path, "wb") as handle:
        handle.write(data)


def prepare_sources(sample_dir: Path, target: Path) -> dict[str, int]:
    """Copy the sample .txt files into ``target``, rendering the first few as PDFs."""
    target.mkdir(parents=True, exist_ok=True)
    files = sorted(Path(sample_dir).glob("*.txt"))
    for index, path in enumerate(files):
        if index >= RENDERED:
            _write(target / path.name, path.read_bytes())
            continue
        title, _, body = path.read_text(encoding="utf-8").strip().partition("\n")
        paragraphs = [" ".join(p.split()) for p in body.split("\n\n") if p.strip()]
        render_pdf(title, paragraphs, target / f"{path.stem}.pdf", "irforge sample corpus")
        if index == 0:  # a planted near-duplicate: the same report with one line added
            render_pdf(title, [*paragraphs, "This copy was circulated to partner agencies."],
                       target / f"{path.stem}_copy.pdf", "irforge sample corpus")
    licence = Path(sample_dir) / "LICENSE.md"
    if licence.is_file():  # beside the inputs, where exports look for the corpus licence
        _write(target / licence.name, licence.read_bytes())
    return {"files": len(files) + 1, "pdfs": RENDERED + 1}


def stage_corpus_pipeline(ctx) -> str:
    """Demo stage: run ``irforge corpus build`` on the sample corpus into the demo folder."""
    from irforge.corpus.pipeline import CorpusConfig, build
    from irforge.data.sample import sample_corpus_dir

    sources = ctx.out / "corpus_sources"
    counts = prepare_sources(sample_corpus_dir(), sources)
    summaries = build(ctx.out, CorpusConfig(), input_dir=sources)
    extract, dedup = summaries["extract"], summaries["dedup"]
    passages, written = summaries["dedup_passages"], summaries["write"]
    return (f"{counts['files']} files ({counts['pdfs']} rendered to PDF) -> "
            f"{extract['documents']} documents, {dedup['duplicates']} near-duplicate removed "
            f"-> {passages['passages']} passages, {passages['removed']} near-duplicate removed "
            f"-> {written['passages']} passages (max {written['tokens']['max']} tokens) in "
            f"{ctx.bench.corpus_path}")
