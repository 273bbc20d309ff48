"""The PDF writer's page breaks: a heading stays with what it introduces (keep-with-next)."""

from __future__ import annotations

import pytest

from analysis.report.model import Column, Heading, Paragraph, Report, Section, Table
from analysis.report.pdf import _PdfWriter

LEAD = ("Win rate of seat-games that used each card against those that did not, per bot. This is observational "
        "and biased: strong seats and long games use more, and a component may be used because a seat is already "
        "winning. Confirm a finding with an ablation on the same seeds.")


def _table(rows: int = 12) -> Table:
    return Table([Column("Card"), Column("Use rate", True)], [[f"card {i}", f"{i}.0%"] for i in range(rows)])


def _pages_of(section: Section, filler_mm: float) -> list[tuple[str, int]]:
    """(block type, page) of each block of ``section`` written after ``filler_mm`` of the first page is used."""
    writer = _PdfWriter(Report("run", "t", "", [section], ""))
    writer.pdf.add_page()
    writer.pdf.set_y(writer.pdf.t_margin + filler_mm)
    seen = []
    write_block = writer.block

    def block(b):
        page = writer.pdf.page_no()
        write_block(b)
        seen.append((type(b).__name__, page if not isinstance(b, Heading) else writer.pdf.page_no()))

    writer.block = block
    for i, b in enumerate(section.blocks):
        if isinstance(b, Heading):
            writer.keep_with_next(section.blocks, i)
        writer.block(b)
    writer.close()
    return seen


def test_a_heading_near_the_page_bottom_moves_to_the_next_page_with_its_table():
    section = Section("components", "Content", [Heading("The game's declared components (played), by bot"),
                                                Paragraph(LEAD, "lead"), _table()])
    usable = 297 - 18 - 18
    pages = _pages_of(section, usable - 45)  # 45 mm left: the heading and the lead fit, the table's start does not
    assert [p for _, p in pages] == [2, 2, 2]
    roomy = _pages_of(section, 40)
    assert [p for _, p in roomy] == [1, 1, 1]


def test_the_room_a_heading_needs_counts_its_paragraphs_and_the_table_start():
    writer = _PdfWriter(Report("run", "t", "", [], ""))
    writer.pdf.add_page()
    blocks = [Heading("H"), Paragraph(LEAD, "lead"), _table()]
    lead = writer._paragraph_height(blocks[1])
    assert 3 * 5 <= lead - 2 <= 5 * 5  # three to five lines of 5 mm at 10 pt
    room = writer.pdf.h - writer.pdf.b_margin
    writer.pdf.set_y(room - (3 + 5.5 + lead + 28) - 0.5)  # just enough: heading, lead, heading row and 4 rows
    writer.keep_with_next(blocks, 0)
    assert writer.pdf.page_no() == 1
    writer.pdf.set_y(room - (3 + 5.5 + lead + 28) + 1)  # 1 mm short
    writer.keep_with_next(blocks, 0)
    assert writer.pdf.page_no() == 2
    writer.close()


def test_a_figure_taller_than_a_page_is_shrunk_to_fit_one_page():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from analysis.report.model import Plot

    writer = _PdfWriter(Report("run", "t", "", [], ""))
    writer.pdf.add_page()
    usable = writer.pdf.h - writer.pdf.t_margin - writer.pdf.b_margin
    (width, height), whole = writer._plot_height(Plot("tall", Figure(figsize=(6.5, 26)), "A row per item and bot."))
    assert whole <= usable and height < 26 * 25.4 and width / height == pytest.approx(6.5 / 26)  # shrunk, same aspect
    (width, height), _ = writer._plot_height(Plot("short", Figure(figsize=(6.5, 3)), "caption"))
    assert (width, height) == (min(writer.width, 6.5 * 25.4), min(writer.width, 6.5 * 25.4) * 3 / 6.5)  # as before
    writer.close()


def test_a_table_too_wide_for_the_page_is_split_under_its_first_column():
    """Sixteen columns of unbreakable numbers (a card table with its held columns) crashed fpdf ('Not enough
    horizontal space'); the PDF now holds two tables, each starting with the item, the caption under the second."""
    pdfium = pytest.importorskip("pypdfium2", reason="the test extra installs it")
    from analysis.report.pdf import render_pdf

    columns = [Column("Item")] + [Column(f"Measure {i} with a long name", True) for i in range(15)]
    rows = [[f"card {r}"] + [f"+{r}.0 [+{r}.5, +{r + 9}.5]" for _ in range(15)] for r in range(6)]
    data = render_pdf(Report("run", "t", "", [Section("s", "S", [Table(columns, rows, caption="A wide table.")])], ""))
    document = pdfium.PdfDocument(data)
    text = "".join(document[i].get_textpage().get_text_range() for i in range(len(document)))
    document.close()
    parts = text.count("Item")  # as many tables as it takes, each with the items
    assert parts >= 2 and text.count("card 5") == parts and text.count("A wide table.") == 1
    assert text.index("Measure 14 with") < text.index("A wide table.")  # the caption after the last part
