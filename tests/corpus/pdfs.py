"""Real PDFs for the extraction tests, written with reportlab and fpdf2."""

from __future__ import annotations

import io
from pathlib import Path

LEFT = [
    "Flood warnings reach residents through sirens and text messages.",
    "The county evac-",
    "uation plan names three shelters on high ground.",
    "Volunteers check on elderly neighbours first.",
]
RIGHT = [
    "Earthquake drills teach people to drop, cover and hold on.",
    "Schools repeat the drill every term.",
    "Emergency kits hold water, a radio and a torch.",
]
HEADER = "Regional Resilience Bulletin"


def two_column_pdf(path: Path, pages: int = 3) -> Path:
    """Pages with a running header, a full-width title, two columns and a page-number footer."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    width, height = A4
    pdf = canvas.Canvas(str(path), pagesize=A4)
    for number in range(1, pages + 1):
        pdf.setFont("Helvetica", 9)
        pdf.drawString(72, height - 40, HEADER)
        pdf.drawString(width / 2 - 20, 30, f"Page {number} of {pages}")
        pdf.setFont("Helvetica-Bold", 14)
        pdf.drawString(72, height - 100, f"Section {number}: preparing households for hazards "
                                         "before the season starts")
        pdf.setFont("Helvetica", 10)
        for column_x, lines in ((72, LEFT), (320, RIGHT)):
            y = height - 140
            for line in lines:
                pdf.drawString(column_x, y, line)
                y -= 14
        pdf.showPage()
    pdf.save()
    return path


def table_pdf(path: Path) -> Path:
    """A paragraph, a ruled table of numbers, and a closing paragraph (reportlab platypus)."""
    from reportlab.lib import colors
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.styles import getSampleStyleSheet
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

    styles = getSampleStyleSheet()
    rows = [["District", "Shelters", "Beds"], ["Northfield", "4", "1200"],
            ["Riverside", "7", "2350"], ["Hillcrest", "2", "480"]]
    table = Table(rows)
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 1, colors.black)]))
    body = styles["BodyText"]
    story = [Paragraph("Shelter capacity was reviewed after the spring floods.", body),
             Spacer(1, 12), table, Spacer(1, 12),
             Paragraph("Riverside needs more beds before the autumn storms.", styles["BodyText"])]
    SimpleDocTemplate(str(path), pagesize=A4).build(story)
    return path


def encrypted_pdf(path: Path) -> Path:
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path), encrypt="open-sesame")
    pdf.drawString(72, 720, "Confidential evacuation roster for the coastal districts.")
    pdf.save()
    return path


def truncated_pdf(path: Path, source: Path) -> Path:
    data = source.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def _png() -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def image_only_pdf(path: Path) -> Path:
    """A scanned-looking page: one picture, no text layer."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path))
    pdf.drawImage(ImageReader(io.BytesIO(_png())), 72, 400, width=300, height=300)
    pdf.save()
    return path


def text_then_image_pdf(path: Path) -> Path:
    """Page 1 has text, page 2 only a picture."""
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    pdf = canvas.Canvas(str(path))
    pdf.drawString(72, 720, "Wildfire smoke harms people with asthma; keep windows closed.")
    pdf.showPage()
    pdf.drawImage(ImageReader(io.BytesIO(_png())), 72, 400, width=300, height=300)
    pdf.save()
    return path


def fpdf_report(path: Path, bodies: list[str]) -> Path:
    """A multi-page fpdf2 report whose header() and footer() repeat on every page."""
    from fpdf import FPDF

    class Report(FPDF):
        def header(self) -> None:
            self.set_font("Helvetica", size=8)
            self.cell(0, 8, "Civil Protection Agency - Annual Review", align="C")
            self.ln(12)

        def footer(self) -> None:
            self.set_y(-15)
            self.set_font("Helvetica", size=8)
            self.cell(0, 8, f"Page {self.page_no()}", align="C")

    pdf = Report()
    pdf.set_font("Helvetica", size=11)
    for body in bodies:
        pdf.add_page()
        pdf.multi_cell(0, 6, body)
    pdf.output(str(path))
    return path
