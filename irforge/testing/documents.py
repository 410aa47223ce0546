"""A folder of real documents in every format the corpus stage reads, written with each
format's own library, for tests and benchmarks (``irforge[corpus]`` installs the writers).

Every document carries sentences found nowhere else (so a test can find each file's passages)
and the web page carries navigation, a cookie banner, an advert and a footer (so a test can
check that boilerplate stays out of the corpus). :data:`BOILERPLATE` lists those strings.
"""

from __future__ import annotations

import json
from pathlib import Path

BOILERPLATE = ("News archive", "Contact us", "We use cookies", "Accept all cookies",
               "cheap sandbags", "Limited offer", "Copyright 2026", "Privacy policy")

MARKDOWN = """---
author: county office
---
# Flood plan for Millbrook

The Millbrook flood plan names the people who open the floodgates when the gauge passes
three metres, and the order in which streets are warned.

## Shelters

The primary school on Orchard Lane takes families with small children first, and the
chapel hall on Quarry Road takes everyone else until it holds ninety people.

## Supplies

Each shelter keeps bottled water for two days, blankets, a battery radio and a first aid
kit checked by the parish nurse every spring.
"""

RST = """Volunteer handbook
==================

Volunteers sign in at the library desk and collect a yellow vest before any shift starts.

Radio rules
-----------

Keep messages under twenty seconds, say the call sign of the station you want first, and
repeat grid references digit by digit.
"""

HTML = """<!DOCTYPE html><html><head><meta charset="utf-8">
<title>Heatwave advice for Dunmore</title></head><body>
<nav><ul><li><a href="/">Home</a></li><li><a href="/news">News archive</a></li>
<li><a href="/contact">Contact us</a></li></ul></nav>
<div id="cookie-banner" class="cookie-consent">We use cookies to improve your experience.
<button>Accept all cookies</button></div>
<div class="advert">Buy cheap sandbags now! Limited offer.</div>
<main><article><h1>Heatwave advice for Dunmore</h1>
<p>During the heatwave the Dunmore health board asks residents to check on elderly neighbours
twice a day and to keep curtains closed on sunny windows.</p>
<h2>Cooling centres</h2>
<p>The Dunmore swimming baths and the museum basement open as cooling centres from noon until
eight in the evening, with water and seating for anyone who needs it.</p>
<p>Buses to the cooling centres are free for pensioners while the amber warning lasts.</p>
</article></main>
<footer>Copyright 2026 Dunmore Council. Privacy policy. Terms of use.</footer></body></html>
"""

LATIN1 = ("Note du Café du Pont\n\nLe Café du Pont sert de point de rassemblement : "
          "l'évacuation des riverains commence dès que la crue dépasse la digue.")
UTF8 = ("Landslide watch\n\nAfter three days of rain the geologists of Kestrel Ridge close "
        "the upper trail and measure the cracks near the water tower every morning.")
UTF16 = ("Storm log\n\nThe harbour master of Pellow Bay doubles the mooring lines and sends "
         "the pilot boat to shelter behind the breakwater before the gale arrives.")
BEIR_ROWS = [
    {"_id": "beir-001", "title": "Tsunami sirens", "text": "Tsunami sirens on the Wexcombe "
     "seafront sound a rising tone for ten minutes and then stop, which means go uphill now."},
    {"_id": "beir-002", "title": "Ash fall", "text": "After volcanic ash fall, Hollin valley "
     "farmers keep livestock indoors and cover the water troughs with boards."},
]
DOCX_TEXT = ("The Ravensworth briefing asks every district to report road closures to the "
             "control room within fifteen minutes of a bridge being shut.")
PPTX_SLIDES = [
    ("Evacuation routes", "Route A leaves the Tolland estate by the ring road and crosses the "
                          "canal at the lifting bridge."),
    ("Assembly points", "Families from Tolland gather at the rugby club car park where the "
                        "marshals wear orange armbands."),
]
XLSX_ROWS = [("Depot", "Sandbags", "Pumps"), ("Harrow depot", 1200, 4), ("Kilby depot", 800, 2)]
EPUB_CHAPTERS = [
    ("Before the storm", "Tie down garden furniture in Ashcombe, clear the gutters and charge "
                         "every torch in the house before the wind rises."),
    ("After the storm", "Ashcombe residents should photograph damage for insurers before any "
                        "repair and keep away from fallen power lines."),
]
PDF_PARAGRAPHS = [
    "The Fenmoor drought order limits garden watering to the evening hours between seven and "
    "nine while reservoir levels stay under forty per cent.",
    "Farmers in Fenmoor may draw from the river only with a permit stamped by the water board "
    "office in the market square.",
]


def write_markdown(path: Path) -> Path:
    path.write_text(MARKDOWN, encoding="utf-8")
    return path


def write_docx(path: Path) -> Path:
    import docx

    document = docx.Document()
    document.core_properties.title = "Ravensworth briefing"
    document.add_heading("Ravensworth briefing", level=1)
    document.add_heading("Road closures", level=2)
    document.add_paragraph(DOCX_TEXT)
    table = document.add_table(rows=2, cols=2)
    for row, values in zip(table.rows, (("Bridge", "Status"), ("Mill bridge", "closed")),
                           strict=True):
        for cell, value in zip(row.cells, values, strict=True):
            cell.text = value
    document.save(str(path))
    return path


def write_pptx(path: Path) -> Path:
    import pptx

    deck = pptx.Presentation()
    for title, body in PPTX_SLIDES:
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = title
        slide.placeholders[1].text = body
    deck.save(str(path))
    return path


def write_xlsx(path: Path) -> Path:
    import openpyxl

    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = "Stock"
    for row in XLSX_ROWS:
        sheet.append(row)
    book.create_sheet("Contacts").append(("Harrow depot manager", "Ms Okafor", "night shift"))
    book.save(str(path))
    return path


def write_epub(path: Path) -> Path:
    from ebooklib import epub

    book = epub.EpubBook()
    book.set_identifier("ashcombe-storm-guide")
    book.set_title("Ashcombe storm guide")
    book.set_language("en")
    chapters = []
    for number, (title, text) in enumerate(EPUB_CHAPTERS, 1):
        chapter = epub.EpubHtml(title=title, file_name=f"chapter{number}.xhtml", lang="en")
        chapter.content = f"<html><body><h1>{title}</h1><p>{text}</p></body></html>"
        book.add_item(chapter)
        chapters.append(chapter)
    book.toc = chapters
    book.add_item(epub.EpubNcx())
    book.add_item(epub.EpubNav())
    book.spine = ["nav", *chapters]
    epub.write_epub(str(path), book)
    return path


def write_pdf(path: Path) -> Path:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setTitle("Fenmoor drought order")
    _width, height = A4
    for paragraph in PDF_PARAGRAPHS:
        text = pdf.beginText(72, height - 100)
        words, line = paragraph.split(), ""
        for word in words:
            if len(line) + len(word) > 80:
                text.textLine(line)
                line = ""
            line = f"{line} {word}".strip()
        text.textLine(line)
        pdf.drawText(text)
        pdf.showPage()
    pdf.save()
    return path


def write_mixed_folder(folder: Path) -> dict[str, Path]:
    """The mixed fixture: nested folders, every format, two text encodings (three with
    UTF-16), a BEIR corpus.jsonl, plus a hidden folder and an unsupported file that must be
    skipped with a reason. Returns relative path -> path of each readable file."""
    folder = Path(folder)
    files = {
        "notes/plan.md": write_markdown,
        "notes/handbook.rst": lambda p: p.write_text(RST, encoding="utf-8"),
        "web/heatwave.html": lambda p: p.write_text(HTML, encoding="utf-8"),
        "reports/2026/briefing.docx": write_docx,
        "reports/routes.pptx": write_pptx,
        "reports/stock.xlsx": write_xlsx,
        "books/storm guide.epub": write_epub,
        "reports/drought.pdf": write_pdf,
        "text/landslide.txt": lambda p: p.write_text(UTF8, encoding="utf-8"),
        "text/cafe.txt": lambda p: p.write_bytes(LATIN1.encode("latin-1")),
        "text/storm-utf16.txt": lambda p: p.write_text(UTF16, encoding="utf-16"),
        "existing/corpus.jsonl": lambda p: p.write_text(
            "".join(json.dumps(row) + "\n" for row in BEIR_ROWS), encoding="utf-8"),
    }
    out = {}
    for rel, writer in files.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        writer(path)
        out[rel] = path
    (folder / ".drafts").mkdir(exist_ok=True)
    (folder / ".drafts" / "secret.md").write_text("# Draft\n\nNot for the corpus at all.\n")
    (folder / "misc").mkdir(exist_ok=True)
    (folder / "misc" / "photos.zip").write_bytes(b"PK\x05\x06" + b"\x00" * 18)
    return out


def write_pdf_bomb(path: Path, unpacked_mb: int = 200) -> Path:
    """A small PDF (well under 1 MB) whose one page's content stream unpacks to
    ``unpacked_mb`` MB of text-showing operators (the issue's 'PDF bomb')."""
    import zlib

    line = b"(" + b"flood " * 30 + b") Tj T* "
    block = line * (2**20 // len(line))
    packer = zlib.compressobj(9)
    stream = packer.compress(b"BT /F1 1 Tf 1 TL 10 800 Td ")
    stream += b"".join(packer.compress(block) for _ in range(unpacked_mb))
    stream += packer.compress(b"ET") + packer.flush()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 842] /Contents 4 0 R "
        b"/Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d /Filter /FlateDecode >>\nstream\n" % len(stream) + stream
        + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref)
    path.write_bytes(bytes(out))
    return path


def write_hostile_folder(folder: Path, huge_text_mb: int = 64, bomb_mb: int = 200
                         ) -> dict[str, str]:
    """The hostile corpus of issue 27: a PDF bomb, a huge one-line text file, binary junk
    under text and PDF names, a Latin-1 file, names with spaces and a newline, and one plain
    good file. Returns file name -> the reason prefix (or 'ok') the extract stage must give."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    write_pdf_bomb(folder / "bomb.pdf", bomb_mb)
    sentence = b"The levee on the east bank held while the water rose all night long "
    with (folder / "huge one line.txt").open("wb") as handle:
        for _ in range(huge_text_mb):
            handle.write(sentence * (2**20 // len(sentence)))
    junk = bytes((index * 7919 + 13) % 256 for index in range(65536))
    (folder / "junk.txt").write_bytes(junk)
    (folder / "junk.pdf").write_bytes(b"%PDF-1.7\n" + junk + b"\n%%EOF\n")
    (folder / "notes latin1.txt").write_bytes(LATIN1.encode("latin-1"))
    (folder / "two\nlines.md").write_text(MARKDOWN, encoding="utf-8")
    (folder / "good.txt").write_text(UTF8, encoding="utf-8")
    return {"bomb.pdf": "too-large", "huge one line.txt": "too-large", "junk.txt": "binary",
            "junk.pdf": "broken", "notes latin1.txt": "ok", "two\nlines.md": "ok",
            "good.txt": "ok"}
