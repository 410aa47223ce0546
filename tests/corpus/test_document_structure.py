"""Issue 33: documents as people publish them. Titles from the best source each format has,
front matter parsed into metadata (never text), template debris and navigation panels and
Project Gutenberg boilerplate removed, stub pages skipped with a reason, headings kept as the
passage's section and never glued to its first sentence. Every rule is tried on a small file
shaped like the real thing (a Jekyll page, a redirect stub, a latex2html page, ...)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from irforge.cli.app import build_app
from irforge.core.bench import Benchmark
from irforge.corpus.extract import ExtractSettings, extract_data, title_from_name
from irforge.corpus.formats.debris import strip_template_tags
from irforge.corpus.formats.frontmatter import split_front_matter
from irforge.corpus.formats.structure import Part
from irforge.corpus.formats.stubs import Page, entry_list
from irforge.corpus.sentences import sentence_spans

SETTINGS = ExtractSettings()

RECIPE = b"""---
title: Lentil curry with sumac
date: 2024-03-02
tags: [vegan, quick]
layout: recipe
---
{% include recipe-header.html %}

## Ingredients

- 200 g green lentils
- 1/2 cup rice
- 2 tsp sumac

## Method

Rinse the lentils and simmer them for 25 minutes. Stir in the sumac just before serving, and
see [the spice guide]({{ "/spices/sumac/" | relative_url }}) for where to buy it.
"""

REDIRECT = b"""---
title: Avoid duplication
permalink: /our-approach/avoid-duplication/
layout: redirect
redirect: /our-style/avoid-duplication/
---
"""

EMPTY_BODY = b"""---
title: Opening hours
published: false
---
"""

LINKS_ONLY = b"""---
title: Resources
---
- [Plain language guide](https://example.invalid/plain)
- [Accessibility guide](https://example.invalid/a11y)
- [Content guide](https://example.invalid/content)
- [Brand guide](https://example.invalid/brand)
"""

CONTENTS = b"""# Table of contents

1. Getting started
2. Installing the system
3. Configuring the network
4. Users and groups
5. Printing
6. Backups
7. Shell scripts
8. Troubleshooting
9. Glossary
"""

INDEX = b"""# Index

- aliases, 12
- backups, 40-42
- cron, 33
- dpkg, 18, 21
- filesystems, 9
- groups, 27
- printing, 51
- shell variables, 60
- tar, 41
"""

LATEX2HTML = b"""<!--Converted with LaTeX2HTML 2K.1beta (1.48)-->
<HTML><HEAD><TITLE>What Is Free Software? </TITLE>
<LINK REL="next" HREF="node11.html"></HEAD>
<BODY>
<DIV CLASS="navigation"><!--Navigation Panel-->
<A HREF="node11.html"><IMG ALT="next" SRC="next.png"></A>
<A HREF="node7.html"><IMG ALT="up" SRC="up.png"></A>
<A HREF="node9.html"><IMG ALT="previous" SRC="prev.png"></A>
<BR>
<B> Next:</B> <A HREF="node11.html">About This Book</A>
<B> Up:</B> <A HREF="node7.html">Introduction</A>
<B> Previous:</B> <A HREF="node9.html">A Multiuser, Multitasking Operating</A>
<BR></DIV>
<!--End of Navigation Panel-->
<H1>What Is Free Software?</H1>
<P>When the developers of a free operating system talk about free software, they mean the
freedom to run, study, change and share the programs, not their price. Anyone may read the
source code of every program and give copies of it to friends.</P>
<P>The licence guarantees these rights to every user, and the developers who release their
work under it cannot take them back later on a whim.</P>
<HR>
<DIV CLASS="navigation">
<B> Next:</B> <A HREF="node11.html">About This Book</A>
<B> Up:</B> <A HREF="node7.html">Introduction</A>
<B> Previous:</B> <A HREF="node9.html">A Multiuser, Multitasking Operating</A>
</DIV>
<ADDRESS>This document was generated using the LaTeX2HTML translator Version 2K.1beta</ADDRESS>
</BODY></HTML>
"""

GUTENBERG = b"""<html><head>
<title>The Project Gutenberg eBook of How to Hear a Symphony, by A. Writer</title></head>
<body>
<pre>The Project Gutenberg EBook of How to Hear a Symphony, by A. Writer

This eBook is for the use of anyone anywhere at no cost and with almost no restrictions
whatsoever. You may copy it, give it away or re-use it under the terms of the Project
Gutenberg License included with this eBook or online at www.gutenberg.org

*** START OF THIS PROJECT GUTENBERG EBOOK HOW TO HEAR A SYMPHONY ***
</pre>
<h1>How to Hear a Symphony</h1>
<div class="blockquot"><p><i>Transcriber's Note:</i> The music images in this e-text were
made with a music engraver; click a link after each image to hear it.</p></div>
<h2>CHAPTER I. THE ORCHESTRA</h2>
<p>An orchestra of the classical period has four families of instruments: strings,
woodwinds, brass and percussion. The strings carry the melody most of the time, and the
first violins sit at the conductor's left hand.</p>
<p>A listener who learns to pick out the oboe from the clarinet hears twice as much in the
slow movement of a symphony as one who hears only a single mass of sound.</p>
<pre>*** END OF THIS PROJECT GUTENBERG EBOOK HOW TO HEAR A SYMPHONY ***

Updated editions will replace the previous one. Creating the works from public domain print
editions means that no one owns a United States copyright in these works. Section 1. General
Terms of Use and Redistributing Project Gutenberg-tm electronic works.</pre>
</body></html>
"""


def _read(name: str, data: bytes) -> dict:
    return extract_data(name, data, SETTINGS)


def test_front_matter_is_parsed_into_metadata_and_never_into_text() -> None:
    row = _read("recipes/lentil-curry.md", RECIPE)
    assert row["status"] == "ok", row
    assert row["title"] == "Lentil curry with sumac"
    assert row["metadata"]["tags"] == ["vegan", "quick"]
    assert row["metadata"]["date"] == "2024-03-02"  # a YAML date, kept as ISO text
    for debris in ("layout:", "title:", "---", "{%", "{{", "relative_url", "include"):
        assert debris not in row["text"], debris
    assert "Rinse the lentils" in row["text"] and "the spice guide" in row["text"]
    assert row["removed"]["template_tags"] == 2


def test_toml_front_matter_and_a_broken_block_are_cut_from_the_text() -> None:
    toml = split_front_matter('+++\ntitle = "Repair caf\u00e9"\ncount = 3\n+++\nBody text.\n')
    assert toml.data == {"title": "Repair caf\u00e9", "count": 3} and toml.body == "Body text.\n"
    broken = split_front_matter("---\ntitle: [unclosed\n---\nThe body stays.\n")
    assert broken.present and broken.data == {} and "not valid YAML" in broken.warning
    assert broken.body == "The body stays.\n"
    plain = split_front_matter("A page --- with dashes.\n")
    assert not plain.present and plain.body == "A page --- with dashes.\n"


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("our-approach/avoid-duplication.md", REDIRECT, "stub: a redirect page"),
    ("about/hours.md", EMPTY_BODY, "stub: no body after the front matter"),
    ("resources.md", LINKS_ONLY, "stub: only links"),
    ("toc.md", CONTENTS, "stub: a table of contents"),
    ("book-index.md", INDEX, "stub: an index"),
    ("moved.html", b'<html><head><meta http-equiv="refresh" content="0; url=/new/">'
                   b"<title>Moved</title></head><body></body></html>", "stub: a redirect page"),
])
def test_stub_pages_are_skipped_with_their_reason(name: str, data: bytes, reason: str) -> None:
    row = _read(name, data)
    assert row["status"] == "skipped" and row["reason"].startswith(reason), row


def test_a_short_recipe_with_an_ingredient_list_is_not_a_stub() -> None:
    """Known-good: a list of short lines beside a few sentences is a document."""
    assert _read("recipes/lentil-curry.md", RECIPE)["status"] == "ok"


def test_latex2html_navigation_panels_and_credits_are_removed() -> None:
    row = _read("node10.html", LATEX2HTML)
    assert row["status"] == "ok", row
    assert row["title"] == "What Is Free Software?"
    for debris in ("Next:", "Previous:", "Up:", "About This Book", "LaTeX2HTML"):
        assert debris not in row["text"], debris
    assert row["text"].count("freedom to run") == 1


def test_project_gutenberg_header_licence_and_footer_are_removed() -> None:
    row = _read("symphony.html", GUTENBERG)
    assert row["status"] == "ok", row
    assert row["title"] == "How to Hear a Symphony"  # the book's title, not the etext's
    assert "four families of instruments" in row["text"]
    for debris in ("Project Gutenberg", "START OF", "END OF", "no restrictions",
                   "Redistributing", "Transcriber", "music engraver"):
        assert debris not in row["text"], debris
    assert row["removed"]["gutenberg_boilerplate"] >= 1
    assert row["removed"]["transcriber_notes"] == 1


def test_a_note_that_only_mentions_a_transcriber_is_content() -> None:
    """Known-good: a paragraph about transcribers is the book's own text."""
    from irforge.corpus.formats.debris import drop_transcriber_notes
    from irforge.corpus.formats.structure import Part

    about = Part("The transcriber's notes of the 1890 edition list every misprint.")
    assert drop_transcriber_notes([about]) == ([about], 0)


def test_template_tags_and_shortcodes_are_removed_but_their_text_kept() -> None:
    text, count = strip_template_tags(
        'Hi {{ user.name }}! {% if a %}Shown.{% endif %} {{< figure src="x.png" >}} '
        '[caption id="c1" align="left"]A caption.[/caption] {# note #} Keep [brackets].')
    assert count == 7
    assert "{" not in text and "caption id" not in text and "[/caption]" not in text
    assert "Shown." in text and "A caption." in text and "[brackets]" in text


def test_every_document_gets_a_title_from_the_best_source_it_has() -> None:
    h1 = _read("notes/plan.md", b"# Flood plan\n\nThe plan has three stages and a budget.\n")
    assert h1["title"] == "Flood plan"
    bare = _read("notes/river-levels_2024.md", b"Levels rose by 2 m in a day at the weir.\n")
    assert bare["title"] == "River levels 2024" and bare["title_from"] == "file name"
    assert title_from_name("docs/how-to-listen-to-music.htm") == "How to listen to music"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """A small Jekyll-like site through ``corpus build``."""
    root = tmp_path_factory.mktemp("site")
    source = root / "site"
    (source / "recipes").mkdir(parents=True)
    (source / "recipes/lentil-curry.md").write_bytes(RECIPE)
    (source / "redirect.md").write_bytes(REDIRECT)
    (source / "toc.md").write_bytes(CONTENTS)
    (source / "node10.html").write_bytes(LATEX2HTML)
    (source / "style.md").write_text(
        "---\ntitle: Style guide\n---\n# Style guide\n\n## Colons\n\nCapitalize the first word "
        "after a colon only when a full sentence follows it.\n\n## Numbers\n\nSpell out one to "
        "nine and use numerals for 10 and above.\n", encoding="utf-8")
    out = root / "bench"
    result = CliRunner().invoke(build_app(), [
        "corpus", "build", str(out), "--input", str(source), "--tokenizer", "words",
        "--max-tokens", "64", "--min-tokens", "2", "--skip-passage-dedup", "--workers", "1"])
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in
            (out / "corpus_work/extract/documents.jsonl").read_text().splitlines()]
    return {"docs": list(Benchmark(out).corpus()), "rows": rows}


def test_built_passages_have_titles_sections_and_front_matter(site: dict) -> None:
    docs = site["docs"]
    assert docs and all(doc.title.strip() for doc in docs)
    curry = [doc for doc in docs if doc.metadata["file"] == "recipes/lentil-curry.md"]
    assert {doc.title for doc in curry} == {"Lentil curry with sumac"}
    assert all(doc.metadata["front_matter"]["layout"] == "recipe" for doc in curry)
    skipped = {row["file"]: row["reason"] for row in site["rows"] if row["status"] == "skipped"}
    assert skipped["redirect.md"].startswith("stub: a redirect page")
    assert skipped["toc.md"].startswith("stub: a table of contents")


def test_headings_are_the_section_path_and_never_glued_to_a_sentence(site: dict) -> None:
    style = [doc for doc in site["docs"] if doc.metadata["file"] == "style.md"]
    assert {doc.metadata.get("section") for doc in style} >= {"Style guide > Colons"}
    for doc in style:
        assert "Colons" not in doc.text and "Numbers Spell" not in doc.text, doc.text
        first = doc.text[slice(*sentence_spans(doc.text)[0])]
        assert first.startswith(("Capitalize", "Spell")), first


def test_tables_and_slide_decks_are_not_lists_of_entries() -> None:
    """Known-good: short lines are the content of a price table, a deck or a workbook."""
    table = "# Prices\n\n| tool | day | week |\n|---|---|---|\n" + "".join(
        f"| tool {i} | ${i} | ${i * 5} |\n" for i in range(12))
    assert _read("prices.md", table.encode())["status"] == "ok"
    entries = [Part(f"entry {i}") for i in range(12)]
    assert entry_list(Page(entries)) is not None
    assert entry_list(Page(entries, paged=True)) is None
