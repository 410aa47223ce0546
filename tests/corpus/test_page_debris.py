"""Page furniture of HTML and e-book pages (author footers, page markers, footnote marks,
child-link lists, glued blocks) never reaches a passage, and each removal is counted."""

from __future__ import annotations

from collections import Counter

from lxml import html

from irforge.corpus.extract import ExtractSettings, extract_data
from irforge.corpus.formats.documents import _epub_chapter_parts
from irforge.corpus.formats.page_debris import clean_tree

SETTINGS = ExtractSettings()

LATEX2HTML_CHAPTER = b"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 3.2 Final//EN">
<HTML><HEAD><TITLE>The Shell</TITLE></HEAD><BODY>
<H1><A NAME="SECTION00500000000000000000">The Shell</A></H1>
<P>The shell reads the commands you type and runs them for you. It also expands wildcards,
keeps a history of what you ran, and lets you write small programs called scripts.
A boot loader<A NAME="tex2html16" HREF="footnode.html#foot238"><SUP>2.1</SUP></A> starts
the kernel before any shell runs.</P>
<BR><HR>
<!--Table of Child-Links-->
<A NAME="CHILD_LINKS"><STRONG>Subsections</STRONG></A>

<UL CLASS="ChildLinks">
<LI><A NAME="tex2html1241" HREF="node47.html">Typing Commands</A>
<UL><LI><A NAME="tex2html1242" HREF="node48.html">Command History</A></UL>
<LI><A NAME="tex2html1243" HREF="node49.html">Scripts</A>
</UL>
<!--End of Table of Child-Links-->
<HR>
<ADDRESS>
Ada Writer / Bo Editor
</ADDRESS>
</BODY></HTML>
"""

FOOTNOTES = b"""<HTML><HEAD><TITLE>Footnotes</TITLE></HEAD><BODY>
<DL>
<DT><A NAME="foot238">... loader</A><A NAME="foot238"
 HREF="node14.html#tex2html16"><SUP><SPAN CLASS="arabic">2</SPAN>.<SPAN
 CLASS="arabic">1</SPAN></SUP></A>
<DD>A boot loader is responsible for starting the operating system when the machine powers on.
<DT><A NAME="foot239">... drivers</A><A HREF="node15.html#tex2html17"><SUP>2.2</SUP></A>
<DD>See the manual of your hard drive for a description of these features and settings.
</DL>
</BODY></HTML>
"""

GUTENBERG_BOOK = b"""<html><head><title>How to Hear a Symphony</title></head><body>
<h2>CHAPTER I</h2>
<p>If the people who hear music were asked to describe it, they<span class="pagenum"><a
name="Page_4" id="Page_4">[Pg 4]</a></span> shall be accounted the class that the composer
wrote for, and the music shall be accoun<span class="pagenum">[Pg 5]</span>ted to them.</p>
<p>The orchestra of the classical period had four families of instruments, and each family
had its own colour.<span class="pagenum"><a name="Page_6">[Pg 6]</a></span></p>
<p>A listener<span epub:type="pagebreak" title="7">7</span> learns the sound of each family
first, then<span role="doc-pagebreak" aria-label="8"></span> how they blend.</p>
</body></html>
"""


def _read(name: str, data: bytes) -> dict:
    return extract_data(name, data, SETTINGS)


def test_address_footer_and_child_link_list_with_its_label_are_removed() -> None:
    row = _read("node46.html", LATEX2HTML_CHAPTER)
    assert row["status"] == "ok", row
    for debris in ("Ada Writer", "Bo Editor", "Subsections", "Typing Commands",
                   "Command History", "Scripts\n"):
        assert debris not in row["text"], debris
    assert "small programs called scripts" in row["text"]
    assert row["removed"]["address_blocks"] == 1
    assert row["removed"]["child_link_lists"] == 2  # the list and its "Subsections" label


def test_footnote_marks_go_and_footnote_labels_stay_apart_from_their_text() -> None:
    chapter = _read("node14.html", LATEX2HTML_CHAPTER)
    assert "A boot loader starts the kernel" in chapter["text"], chapter["text"]
    row = _read("footnode.html", FOOTNOTES)
    assert row["status"] == "ok", row
    assert "2.1" not in row["text"] and "loader2" not in row["text"]
    assert "... loader\n\nA boot loader is responsible" in row["text"], row["text"]
    assert row["removed"]["footnote_marks"] == 2


def test_page_markers_are_removed_and_the_words_around_them_joined() -> None:
    row = _read("symphony.html", GUTENBERG_BOOK)
    assert row["status"] == "ok", row
    text = row["text"]
    assert "[Pg" not in text and "Page_" not in text
    assert "they shall be accounted" in text  # a space where one belongs
    assert "shall be accounted to them" in text  # none inside a word split by a marker
    assert "its own colour." in text
    assert "A listener learns the sound" in text and "then how they blend" in text
    assert row["removed"]["page_markers"] == 5


def test_block_elements_are_separated_by_whitespace() -> None:
    tree = html.fromstring("<div><dl><dt>label<dd>text of it</dl><ul><li>one<li>two</ul>"
                           "<table><tr><td>cell</td><td>next</td></tr></table>"
                           "<div>a</div><div>b<p>c</p>d</div><h3>Head</h3>tail</div>")
    removed: Counter[str] = Counter()
    words = clean_tree(tree, removed).text_content().split()
    assert words == ["label", "text", "of", "it", "one", "two", "cell", "next", "a", "b", "c",
                     "d", "Head", "tail"]
    assert removed["glued_blocks"] > 0
    spaced = html.fromstring("<div><p>a</p>\n<p>b</p>\n</div>")
    untouched: Counter[str] = Counter()
    clean_tree(spaced, untouched)
    assert "glued_blocks" not in untouched  # nothing glued, nothing counted


def test_epub_chapters_lose_page_breaks_and_note_marks() -> None:
    chapter = (b'<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/'
               b'2007/ops"><body><h1>One</h1><p>The river<span epub:type="pagebreak" '
               b'id="p12">12</span> rose in spring<a epub:type="noteref" href="#n1">1</a>.</p>'
               b"<address>Printed by Somebody</address></body></html>")
    removed: Counter[str] = Counter()
    parts = list(_epub_chapter_parts(chapter, removed))
    assert [part.text.strip() for part in parts] == ["One", "The river rose in spring."]
    assert removed == Counter(page_markers=1, footnote_marks=1, address_blocks=1,
                              glued_blocks=1)  # <h1>One</h1><p>The: touching blocks


def test_a_list_of_outside_links_in_the_text_is_kept() -> None:
    """Known-good: a reading list pointing to other sites is content, not site navigation."""
    page = (b"<html><head><title>Further reading</title></head><body><p>These books explain "
            b"the shell in more depth than this guide can, and each one has exercises.</p>"
            b'<ul><li><a href="https://example.org/a">Learning the Shell</a></li>'
            b'<li><a href="https://example.net/b">Shell Scripting Basics</a></li></ul>'
            b"</body></html>")
    row = _read("reading.html", page)
    assert row["status"] == "ok", row
    assert "Learning the Shell" in row["text"] and "child_link_lists" not in row["removed"]
