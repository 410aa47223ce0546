from __future__ import annotations

from pathlib import Path

from irforge.corpus.extract import ExtractSettings, extract, extract_file
from irforge.corpus.layout import Block, Line, reading_order
from irforge.corpus.state import CorpusWork
from irforge.scale.executor import LocalExecutor

SETTINGS = ExtractSettings()


def _row(pdf_dir: Path, name: str) -> dict:
    return extract_file((pdf_dir / name, SETTINGS))


def test_two_columns_are_read_column_by_column(pdf_dir: Path) -> None:
    row = _row(pdf_dir, "columns.pdf")
    assert row["status"] == "ok"
    page_one = row["text"][row["pages"][0][1]:row["pages"][0][2]]
    title = page_one.index("Section 1: preparing households")
    left_first = page_one.index("Flood warnings reach residents")
    left_last = page_one.index("Volunteers check on elderly neighbours first.")
    right_first = page_one.index("Earthquake drills teach people")
    assert title < left_first < left_last < right_first
    assert "The county evacuation plan names three shelters" in page_one  # hyphen joined


def test_repeated_headers_footers_and_page_numbers_are_removed(pdf_dir: Path) -> None:
    row = _row(pdf_dir, "columns.pdf")
    assert "Regional Resilience Bulletin" not in row["text"]
    assert "Page 2 of 3" not in row["text"] and "of 3" not in row["text"]
    assert row["removed"]["header_footer_lines"] == 6
    report = _row(pdf_dir, "report.pdf")
    assert "Civil Protection Agency" not in report["text"]
    assert "Page 2" not in report["text"]
    for zone in ("north", "south", "east"):
        assert f"Storm surge maps for zone {zone} show which streets flood first." in report["text"]


def test_table_text_is_removed_and_surrounding_text_kept(pdf_dir: Path) -> None:
    row = _row(pdf_dir, "table.pdf")
    assert row["text"] == ("Shelter capacity was reviewed after the spring floods.\n\n"
                           "Riverside needs more beds before the autumn storms.")
    assert row["removed"]["tables"] == 1
    kept = extract_file((pdf_dir / "table.pdf", ExtractSettings(remove_tables=False)))
    assert "2350" in kept["text"] and "Northfield" in kept["text"]


def test_page_provenance_maps_offsets_to_pages(pdf_dir: Path) -> None:
    row = _row(pdf_dir, "columns.pdf")
    assert [span[0] for span in row["pages"]] == [1, 2, 3]
    for number, start, end in row["pages"]:
        assert row["text"][start:end].startswith(f"Section {number}:")


def test_unreadable_files_are_skipped_with_a_reason(pdf_dir: Path) -> None:
    reasons = {name: _row(pdf_dir, name) for name in
               ("encrypted.pdf", "truncated.pdf", "scan.pdf", "zero.pdf", "garbage.pdf")}
    assert {name: row["status"] for name, row in reasons.items()} == dict.fromkeys(reasons,
                                                                                   "skipped")
    assert reasons["encrypted.pdf"]["reason"].startswith("encrypted:")
    assert reasons["truncated.pdf"]["reason"].startswith("truncated:")
    assert reasons["scan.pdf"]["reason"].startswith("image-only:")
    assert reasons["zero.pdf"]["reason"].startswith("empty:")
    assert reasons["garbage.pdf"]["reason"].split(":")[0] in {"broken", "empty"}


def test_image_only_page_is_listed_and_text_page_kept(pdf_dir: Path) -> None:
    row = _row(pdf_dir, "mixed.pdf")
    assert row["status"] == "ok"
    assert row["text"] == "Wildfire smoke harms people with asthma; keep windows closed."
    assert row["skipped_pages"] == [{"page": 2, "reason": "image-only"}]


def test_extract_stage_logs_every_file_and_resumes(pdf_dir: Path, tmp_path: Path) -> None:
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    first = extract(work, pdf_dir, workers=2)
    assert first["documents"] == 4  # columns, table, mixed, report
    assert first["skipped"] == 5
    assert first["skip_reasons"]["encrypted"] == 1
    again = extract(work, pdf_dir, workers=1)
    assert again["newly_extracted"] == 0 and again["documents"] == 4
    rows = list(work.log("extract", "documents.jsonl").rows())
    assert sorted(row["file"] for row in rows) == sorted(p.name for p in pdf_dir.iterdir())


def test_process_pool_and_in_process_extraction_log_the_same_rows(pdf_dir: Path,
                                                                 tmp_path: Path) -> None:
    # a small job runs in this process; inline_seconds=0 forces the spawned pool (large corpora)
    logs = []
    for name, executor in (("inline", LocalExecutor(2)),
                           ("pool", LocalExecutor(2, inline_seconds=0))):
        work = CorpusWork(tmp_path / name / "corpus_work")
        extract(work, pdf_dir, executor=executor)
        logs.append(list(work.log("extract", "documents.jsonl").rows()))
    assert logs[0] == logs[1] and len(logs[0]) == len(list(pdf_dir.iterdir()))


def test_reading_order_keeps_single_column_top_to_bottom() -> None:
    def block(x0, y0, x1, text):
        return Block((x0, y0, x1, y0 + 10), (Line((x0, y0, x1, y0 + 10), text),))

    narrow_heading = block(72, 100, 200, "Heading")
    body = block(72, 120, 520, "Body paragraph")
    indented = block(100, 140, 500, "Indented list item")
    ordered = reading_order([indented, body, narrow_heading])
    assert [b.lines[0].text for b in ordered] == ["Heading", "Body paragraph",
                                                  "Indented list item"]


def test_pages_join_mid_sentence_with_a_space_else_a_paragraph_break() -> None:
    from irforge.corpus.formats.pdf import _page_join

    assert _page_join("the sirens on Quay", "Street and Mill Lane") == " "
    assert _page_join("the sirens sounded.", "Then the river rose.") == "\n\n"
    assert _page_join("Contents", "1 Introduction") == " "  # a known trade-off: see docs


def test_missing_input_folder_says_what_to_do(tmp_path: Path) -> None:
    import pytest

    from irforge.core.errors import IrforgeError

    with pytest.raises(IrforgeError, match="irforge corpus collect"):
        extract(CorpusWork(tmp_path / "w"), tmp_path / "nowhere")


def test_title_printed_on_page_one_is_not_repeated_in_the_text(tmp_path: Path) -> None:
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    from irforge.corpus.formats.pdf import leading_title_end

    path = tmp_path / "titled.pdf"
    _width, height = A4
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.setTitle("Flood Early-Warning Procedure")
    pdf.setFont("Helvetica-Bold", 16)
    pdf.drawString(72, height - 80, "Flood Early-Warning Procedure")
    pdf.setFont("Helvetica", 10)
    body = "The authority issues warnings when the river gauge passes two metres."
    for number in range(6):
        pdf.drawString(72, height - 130 - 14 * number, body)
    pdf.showPage()
    pdf.drawString(72, height - 80, "Page two repeats nothing of the title.")
    pdf.showPage()
    pdf.save()
    row = _row(tmp_path, "titled.pdf")
    assert row["status"] == "ok" and row["title"] == "Flood Early-Warning Procedure"
    assert row["title_removed_from_text"] is True
    assert row["text"].startswith("The authority issues warnings")
    assert "Flood Early-Warning" not in row["text"]
    (_, start, _end), (_, start2, end2) = row["pages"]
    assert start == 0 and row["text"][start2:end2] == "Page two repeats nothing of the title."
    lead = "  flood  EARLY-warning procedure: "
    assert leading_title_end(lead + "text", row["title"]) == len(lead)
    assert leading_title_end("Another start", row["title"]) == 0


def test_a_file_that_could_not_be_opened_is_read_again_by_the_next_run(tmp_path: Path) -> None:
    """Issue 37: a file skipped for a permission error stayed skipped after the fix, unless
    the run was started over with --fresh."""
    from irforge.core.jsonl import iter_jsonl, write_jsonl
    from irforge.corpus.extract import extract_data

    row = extract_data("locked.txt", tmp_path / "no-such-file.txt", ExtractSettings())
    assert row["status"] == "skipped" and row["reason"].startswith("unreadable: ")
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "locked.txt").write_text("Flood notes\n\nThe gauge is read every hour once the "
                                       "river passes the second mark.", encoding="utf-8")
    work = CorpusWork(tmp_path / "bench" / "corpus_work")
    extract(work, inputs, workers=1)
    log = work.stage_dir("extract") / "documents.jsonl"
    rows = [r for _, r in iter_jsonl(log)]
    write_jsonl(log, [{"file": "locked.txt", "status": "skipped",
                       "reason": "unreadable: Permission denied (fix it and re-run: ...)"}
                      if r["file"] == "locked.txt" else r for r in rows])
    again = extract(work, inputs, workers=1)  # a plain re-run, no --fresh
    assert again["documents"] == 1 and again["skipped"] == 0
    assert [r["status"] for _, r in iter_jsonl(log)] == ["ok"]
