"""Issue 26 end to end: ``irforge run`` on a nested folder of Markdown, HTML (with navigation,
a cookie banner and an advert), Word, PowerPoint, EPUB and a BEIR corpus.jsonl, against the
scripted server: every format's passage is found by the method, and the run succeeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from irforge.testing.documents import BOILERPLATE
from irforge.testing.scripted import ScriptedServer
from tests.generators.intents.test_scenario import BREAD, _script

ROOT = Path(__file__).resolve().parents[2]
NAV = ('<nav><a href="/">Home</a> <a href="/news">News archive</a> <a href="/contact">'
       'Contact us</a></nav><div class="cookie-banner">We use cookies to improve your '
       'experience. <button>Accept all cookies</button></div><div class="advert">Buy cheap '
       'sandbags now! Limited offer.</div>')


def _write_bread_folder(folder: Path) -> dict[str, str]:
    """One BREAD passage per format, in nested folders; returns passage key -> file."""
    import docx
    import pptx
    from ebooklib import epub

    rows = {key: (title, text) for key, title, text, _, _ in BREAD}
    files = {"starter": "notes/starter.md", "kneading": "web/kneading.html",
             "proofing": "office/proofing.docx", "oven": "office/slides/oven.pptx",
             "flour": "books/flour.epub", "storage": "existing/corpus.jsonl"}
    for rel in files.values():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
    title, text = rows["starter"]
    (folder / files["starter"]).write_text(f"# {title}\n\n{text}\n", encoding="utf-8")
    title, text = rows["kneading"]
    (folder / files["kneading"]).write_text(
        f"<html><head><title>{title}</title></head><body>{NAV}<main><article><h1>{title}</h1>"
        f"<p>{text}</p></article></main><footer>Copyright 2026 Privacy policy</footer>"
        "</body></html>", encoding="utf-8")
    title, text = rows["proofing"]
    document = docx.Document()
    document.add_heading(title, level=1)
    document.add_paragraph(text)
    document.save(str(folder / files["proofing"]))
    title, text = rows["oven"]
    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = title
    slide.placeholders[1].text = text
    deck.save(str(folder / files["oven"]))
    title, text = rows["flour"]
    book = epub.EpubBook()
    book.set_identifier("flour")
    book.set_title(title)
    chapter = epub.EpubHtml(title=title, file_name="c1.xhtml")
    chapter.content = f"<html><body><h1>{title}</h1><p>{text}</p></body></html>"
    book.add_item(chapter)
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", chapter]
    epub.write_epub(str(folder / files["flour"]), book)
    title, text = rows["storage"]
    (folder / files["storage"]).write_text(json.dumps({"_id": "storage", "title": title,
                                                       "text": text}) + "\n", encoding="utf-8")
    return files


def test_run_builds_a_benchmark_from_a_folder_of_every_format(tmp_path: Path) -> None:
    files = _write_bread_folder(tmp_path / "docs")
    with ScriptedServer(_script(good=True)) as server:
        recipe = tmp_path / "recipe.yaml"
        recipe.write_text(f"""corpus: {{input: docs, passage_dedup: false}}
model: openai/scripted
api_base: {server.url}
methods:
  intents: {{intents: [QA], per_task: 1, taxonomy: lexical}}
pool: {{retrievers: [bm25], k: 3}}
label: {{strategies: [zero_shot]}}
eval: {{retrievers: [bm25], metrics: [ndcg@10]}}
""", encoding="utf-8")
        done = subprocess.run([sys.executable, "-m", "irforge", "run", str(tmp_path / "bench"),
                               "--recipe", str(recipe)], cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(ROOT)},
                              capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    corpus = [json.loads(line) for line in (tmp_path / "bench" / "corpus.jsonl").open()]
    by_file = {row["metadata"]["file"]: row for row in corpus}
    assert set(by_file) == set(files.values())  # one passage per file, every format
    assert by_file["existing/corpus.jsonl"]["_id"] == "storage"
    for key, _title, text, _, _ in BREAD:
        assert by_file[files[key]]["text"].endswith(text), key
    everything = " ".join(row["text"] + row["title"] for row in corpus)
    assert not any(phrase in everything for phrase in BOILERPLATE)
    queries = [json.loads(line) for line in
               (tmp_path / "bench" / "intents" / "queries.jsonl").open()]
    assert queries and {q["text"] for q in queries} <= {row[3] for row in BREAD}
    assert "[eval-intents] done" in done.stdout
