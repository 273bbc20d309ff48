"""The PDF writer (fpdf2): real text, tables that carry their headings over page breaks, figures as PNG."""

from __future__ import annotations

import io
from datetime import datetime, timezone
from pathlib import Path

from analysis.report.html import _BADGES, _figure_data
from analysis.report.model import (Block, Bullets, Code, Facts, Flag, Flags, Heading, Paragraph, Plot, Report,
                                   Section, Table)


def _font_dir() -> Path:
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


_RGB = {
    "ink": (29, 36, 51), "muted": (91, 100, 117), "line": (214, 219, 227), "accent": (31, 59, 115),
    "warn": (180, 84, 26), "warn_bg": (253, 242, 230), "ok": (45, 118, 81), "ok_bg": (237, 246, 240),
    "info": (74, 85, 104), "info_bg": (241, 243, 247), "zebra": (250, 251, 252), "soft": (245, 246, 249),
}


def _pdf_class():
    from fpdf import FPDF

    class ReportPDF(FPDF):
        report_title = ""

        def footer(self) -> None:
            self.set_y(-12)
            self.set_font("Sans", "", 7.5)
            self.set_text_color(*_RGB["muted"])
            self.cell(0, 5, f"{self.report_title}", align="L")
            self.set_x(self.l_margin)
            self.cell(0, 5, f"page {self.page_no()} of {{nb}}", align="R")

    return ReportPDF


class _PdfWriter:
    MARGIN = 18.0
    BODY = 9.5

    def __init__(self, report: Report):
        from fpdf.fonts import FontFace

        self.FontFace = FontFace
        self.report = report
        pdf = _pdf_class()(orientation="portrait", unit="mm", format="A4")
        pdf.report_title = f"Glade \u00b7 {report.title}"
        fonts = _font_dir()
        pdf.add_font("Sans", "", fonts / "DejaVuSans.ttf")
        pdf.add_font("Sans", "B", fonts / "DejaVuSans-Bold.ttf")
        pdf.add_font("Sans", "I", fonts / "DejaVuSans-Oblique.ttf")
        pdf.add_font("Sans", "BI", fonts / "DejaVuSans-BoldOblique.ttf")
        pdf.add_font("Mono", "", fonts / "DejaVuSansMono.ttf")
        pdf.set_margins(self.MARGIN, self.MARGIN, self.MARGIN)
        pdf.set_auto_page_break(True, margin=18)
        pdf.set_title(report.title)
        pdf.set_author("Glade")
        pdf.set_creator("Glade (fpdf2)")
        pdf.set_creation_date(datetime.now(timezone.utc))
        self.pdf = pdf

    @property
    def width(self) -> float:
        return self.pdf.w - 2 * self.MARGIN

    def room(self) -> float:
        return self.pdf.h - self.pdf.b_margin - self.pdf.get_y()

    def need(self, height: float) -> None:
        if self.room() < height:
            self.pdf.add_page()

    def color(self, name: str) -> None:
        self.pdf.set_text_color(*_RGB[name])

    def text(self, text: str, size: float | None = None, style: str = "", color: str = "ink",
             height: float | None = None, indent: float = 0.0) -> None:
        pdf = self.pdf
        size = size or self.BODY
        pdf.set_font("Sans", style, size)
        self.color(color)
        pdf.set_x(self.MARGIN + indent)
        pdf.multi_cell(self.width - indent, height or size * 0.5, text, new_x="LMARGIN", new_y="NEXT", align="L")

    def write(self) -> bytes:
        pdf = self.pdf
        pdf.add_page()
        kicker = {"run": "GLADE RUN REPORT", "sweep": "GLADE SWEEP REPORT", "diff": "GLADE COMPARISON",
                  "tune": "GLADE TUNE REPORT", "ladder": "GLADE LADDER REPORT"}
        self.text(kicker[self.report.kind], 8.5, "B", "accent")
        pdf.ln(1)
        self.text(self.report.title, 19, "B", height=8.5)
        pdf.ln(1)
        self.text(self.report.subtitle, 9, color="muted", height=4.6)
        pdf.ln(2)
        pdf.set_draw_color(*_RGB["accent"])
        pdf.set_line_width(0.8)
        pdf.line(self.MARGIN, pdf.get_y(), self.MARGIN + self.width, pdf.get_y())
        pdf.ln(3)
        self.text("Contents: " + " \u00b7 ".join(s.title for s in self.report.sections), 8.5, color="muted",
                  height=4.4)
        for number, section in enumerate(self.report.sections):
            self.section(section, first=number == 0)
        self.text(f"Written by Glade on {self.report.generated}.", 7.5, color="muted")
        data = bytes(pdf.output())
        self.close()
        return data

    def close(self) -> None:
        """Close the font files: fpdf closes those a page used when it writes, the others stay open."""
        for font in self.pdf.fonts.values():
            close = getattr(font, "close", None)
            if close is not None:
                close()

    def section(self, section: Section, first: bool) -> None:
        pdf = self.pdf
        big = section.id in ("methods", "manifest")
        if big or (not first and self.room() < 90):
            pdf.add_page()
        else:
            pdf.ln(5)
        pdf.start_section(section.title, level=0)
        self.text(section.title, 14, "B", height=7)
        pdf.set_draw_color(*_RGB["line"])
        pdf.set_line_width(0.3)
        pdf.line(self.MARGIN, pdf.get_y() + 0.5, self.MARGIN + self.width, pdf.get_y() + 0.5)
        pdf.ln(3)
        for i, block in enumerate(section.blocks):
            if isinstance(block, Heading):
                self.keep_with_next(section.blocks, i)
            self.block(block)

    def keep_with_next(self, blocks: list[Block], i: int) -> None:
        """Start a new page unless the heading at ``blocks[i]``, the paragraphs after it and the start of the
        block they introduce (a table's heading row and first rows, a whole figure) fit on this one."""
        height = 3 + self._text_height(blocks[i].text, 11, "B", 5.5)
        for block in blocks[i + 1:]:
            if not isinstance(block, Paragraph):
                height += self._start_height(block)
                break
            height += self._paragraph_height(block)
        if height <= self.pdf.h - self.pdf.t_margin - self.pdf.b_margin:  # else it could never fit: let it flow
            self.need(height)

    def _text_height(self, text: str, size: float, style: str = "", height: float | None = None,
                     indent: float = 0.0) -> float:
        self.pdf.set_font("Sans", style, size)
        lines = self.pdf.multi_cell(self.width - indent, height or size * 0.5, text, dry_run=True, output="LINES")
        return len(lines) * (height or size * 0.5)

    def _paragraph_style(self, paragraph: Paragraph) -> tuple[float, str, str]:
        return {"lead": (10, "ink", ""), "note": (8.5, "muted", "I")}.get(paragraph.style, (self.BODY, "ink", ""))

    def _paragraph_height(self, paragraph: Paragraph) -> float:
        size, _, style = self._paragraph_style(paragraph)
        return self._text_height(paragraph.text, size, style, size * 0.5) + 2

    def _start_height(self, block: Block) -> float:
        """The least of ``block`` that must sit on the page of the heading that introduces it."""
        if isinstance(block, Table):
            return self._table_start(block)
        if isinstance(block, Plot):
            return self._plot_height(block)[1]
        if isinstance(block, Flags) and block.items:
            return self._flag_height(block.items[0]) + 2
        if isinstance(block, Facts) and block.items:
            return self._text_height(block.items[0][1], 8.5, height=4.2) + 1
        if isinstance(block, Bullets) and block.items:
            return self._text_height(block.items[0], 8.5, height=4.3, indent=5) + 1
        return 20

    def block(self, block: Block) -> None:
        pdf = self.pdf
        if isinstance(block, Paragraph):
            size, color, style = self._paragraph_style(block)
            self.text(block.text, size, style, color, height=size * 0.5)
            pdf.ln(2)
        elif isinstance(block, Heading):
            self.need(30)
            pdf.ln(2)
            self.text(block.text, 11, "B", height=5.5)
            pdf.ln(1)
        elif isinstance(block, Flags):
            for flag in block.items:
                self.flag(flag)
            pdf.ln(2)
        elif isinstance(block, Table):
            self.table(block)
        elif isinstance(block, Plot):
            self.plot(block)
        elif isinstance(block, Facts):
            self.facts(block)
        elif isinstance(block, Bullets):
            for item in block.items:
                self.need(10)
                y = pdf.get_y()
                pdf.set_font("Sans", "", 8.5)
                self.color("accent")
                pdf.set_xy(self.MARGIN + 1, y)
                pdf.cell(4, 4.3, "\u2022")
                self.text(item, 8.5, height=4.3, indent=5)
                pdf.ln(1)
            pdf.ln(2)
        elif isinstance(block, Code):
            self.need(20)
            self.text(block.summary, 9.5, "B", height=5)
            pdf.set_font("Mono", "", 7)
            self.color("ink")
            pdf.set_fill_color(*_RGB["soft"])
            pdf.multi_cell(self.width, 3.4, block.text or "(empty)", fill=True, align="L", new_x="LMARGIN",
                           new_y="NEXT", padding=2)
            pdf.ln(3)
        else:
            raise TypeError(f"unknown report block {type(block).__name__}")

    def _flag_height(self, flag: Flag) -> float:
        pdf = self.pdf
        inner = self.width - 22
        pdf.set_font("Sans", "B", 9)
        title_lines = len(pdf.multi_cell(inner, 4.4, flag.title, dry_run=True, output="LINES"))
        pdf.set_font("Sans", "", 8)
        ev_lines = len(pdf.multi_cell(inner, 3.9, flag.evidence, dry_run=True, output="LINES")) if flag.evidence else 0
        return title_lines * 4.4 + ev_lines * 3.9 + 4

    def flag(self, flag: Flag) -> None:
        pdf = self.pdf
        inner = self.width - 22
        height = self._flag_height(flag)
        self.need(height + 2)
        x, y = self.MARGIN, pdf.get_y()
        pdf.set_fill_color(*_RGB[f"{flag.level}_bg"])
        pdf.rect(x, y, self.width, height, style="F")
        pdf.set_fill_color(*_RGB[flag.level])
        pdf.rect(x, y, 1.4, height, style="F")
        pdf.set_xy(x + 3.5, y + 2.2)
        pdf.set_font("Sans", "B", 6.5)
        pdf.set_text_color(255, 255, 255)
        pdf.cell(14, 3.6, _BADGES[flag.level], align="C", fill=True)
        pdf.set_xy(x + 20, y + 2)
        pdf.set_font("Sans", "B", 9)
        self.color("ink")
        pdf.multi_cell(inner, 4.4, flag.title, new_x="LEFT", new_y="NEXT", align="L")
        if flag.evidence:
            pdf.set_font("Sans", "", 8)
            pdf.set_text_color(57, 65, 79)
            pdf.multi_cell(inner, 3.9, flag.evidence, new_x="LEFT", new_y="NEXT", align="L")
        pdf.set_xy(self.MARGIN, y + height + 1.6)

    def _widths(self, table: Table, size: float) -> tuple[list[float], float] | None:
        """Column widths in mm at font ``size``, or None if the table cannot fit the page at that size.

        A column needs its longest unbreakable word (header or cell; numbers
        never wrap), would like its widest cell on one line, and best its
        whole header too. Spare room goes to those wishes in that order.
        """
        pdf = self.pdf
        pad = 2.5
        least, natural, wish = [], [], []
        for i, column in enumerate(table.columns):
            pdf.set_font("Sans", "B", size)
            word = max(pdf.get_string_width(w) for w in column.name.split()) + pad
            whole = pdf.get_string_width(column.name) + pad
            pdf.set_font("Sans", "", size)
            cells = max((pdf.get_string_width(row[i]) for row in table.rows), default=0) + pad
            words = max((pdf.get_string_width(w) for row in table.rows for w in row[i].split()), default=0) + pad
            if column.numeric:
                least.append(max(word, cells))
            else:
                least.append(max(word, words, min(cells, 24)))
            natural.append(max(least[-1], min(cells, 75)))
            wish.append(max(natural[-1], min(whole, 30)))
        if sum(least) > self.width:
            return None
        for goal, floor in ((wish, natural), (natural, least)):
            if sum(floor) <= self.width:
                if sum(goal) <= self.width:
                    return goal, sum(goal)
                spare = self.width - sum(floor)
                extra = [g - f for g, f in zip(goal, floor)]
                widths = [f + spare * e / sum(extra) for f, e in zip(floor, extra)]
                return widths, self.width
        return least, sum(least)

    def _widths_raw(self, table: Table, size: float) -> list[float]:
        self.pdf.set_font("Sans", "", size)
        return [max([self.pdf.get_string_width(c.name)] + [self.pdf.get_string_width(r[i]) for r in table.rows])
                for i, c in enumerate(table.columns)]

    def table(self, table: Table) -> None:
        from fpdf.enums import TableBordersLayout, TableCellFillMode

        pdf = self.pdf
        FontFace = self.FontFace
        if not table.rows:
            self.text("(no rows)", 8.5, "I", "muted")
            return
        size = 8 if len(table.columns) <= 6 else 7.4 if len(table.columns) <= 9 else 7.0
        fitted = self._widths(table, size)
        while fitted is None and size > 5.6:
            size = round(size - 0.3, 1)
            fitted = self._widths(table, size)
        if fitted is None and len(table.columns) > 3:  # still too wide: two tables, the first column in both
            for first, second in self._halves(table):
                self.table(first)
                self.table(second)
            return
        if fitted is None:  # still too wide: share the page in proportion
            least = self._widths_raw(table, size)
            fitted = [w * self.width / sum(least) for w in least], self.width
        widths, total = fitted
        self.need(self._table_start(table))
        pdf.set_font("Sans", "", size)
        self.color("ink")
        pdf.set_draw_color(*_RGB["line"])
        pdf.set_line_width(0.2)
        heading = FontFace(emphasis="BOLD", color=_RGB["ink"], fill_color=_RGB["soft"], size_pt=size)
        marked_face = FontFace(fill_color=_RGB["warn_bg"])
        pdf.set_fill_color(255, 255, 255)
        with pdf.table(col_widths=widths, width=total, align="LEFT", cell_fill_mode=TableCellFillMode.EVEN_ROWS,
                       cell_fill_color=_RGB["zebra"],
                       text_align=tuple("RIGHT" if c.numeric else "LEFT" for c in table.columns),
                       borders_layout=TableBordersLayout.HORIZONTAL_LINES, headings_style=heading,
                       line_height=size * 0.46, padding=(0.9, 1.25, 0.9, 1.25), repeat_headings=1,
                       v_align="TOP") as t:
            header = t.row()
            for column in table.columns:
                header.cell(column.name, align="RIGHT" if column.numeric else "LEFT")
            for i, values in enumerate(table.rows):
                marked = table.marked is not None and table.marked[i]
                row = t.row(style=marked_face if marked else None)
                for value in values:
                    row.cell(value)
        pdf.ln(1.2)
        if table.caption:
            self.text(table.caption, 7.5, "I", "muted", height=3.6)
        pdf.ln(3)

    def _halves(self, table: Table) -> list[tuple[Table, Table]]:
        """A table too wide for the page as two tables one above the other, each with its first column (the row's
        name): the first takes as many of the other columns as fit at 7 points, the second the rest (split again if
        it is still too wide); the caption goes under the second."""
        keep = len(table.columns) - 1
        while keep > 1 and self._widths(_columns(table, range(keep)), 7.0) is None:
            keep -= 1
        first = _columns(table, range(keep), caption="")
        second = _columns(table, [0, *range(keep, len(table.columns))])
        return [(first, second)]

    def _table_start(self, table: Table) -> float:
        """A table's heading row and first rows (up to four): what never stays alone at a page's bottom."""
        return min(8 + 5 * min(len(table.rows), 4), 40)

    def _plot_height(self, plot: Plot) -> tuple[tuple[float, float], float]:
        """The figure's (width, height) in mm and the whole height with its caption."""
        width_in, height_in = plot.figure.get_size_inches()
        width = min(self.width, width_in * 25.4)
        height = height_in * 25.4 * width / (width_in * 25.4)
        caption = self._text_height(plot.caption, 7.5, "I", 3.6) + 4
        room = self.pdf.h - self.pdf.t_margin - self.pdf.b_margin - caption - 2  # a whole page, less the caption
        if height > room:  # a long figure (a row per item and bot) is shrunk to one page, never cut at its foot
            width, height = width * room / height, room
        return (width, height), height + caption

    def plot(self, plot: Plot) -> None:
        pdf = self.pdf
        figure = plot.figure
        (width, height), whole = self._plot_height(plot)
        self.need(whole)
        from PIL import Image

        image = Image.open(io.BytesIO(_figure_data(figure, "png"))).convert("RGB")  # opaque: no soft mask
        pdf.image(image, x=self.MARGIN, w=width, h=height)
        pdf.ln(1)
        self.text(plot.caption, 7.5, "I", "muted", height=3.6)
        pdf.ln(3)

    def facts(self, facts: Facts) -> None:
        pdf = self.pdf
        key_width, line = 46, 4.2
        for key, value in facts.items:
            pdf.set_font("Sans", "B", 8.5)
            key_lines = len(pdf.multi_cell(key_width - 3, line, key, dry_run=True, output="LINES"))
            pdf.set_font("Sans", "", 8.5)
            value_lines = len(pdf.multi_cell(self.width - key_width, line, value, dry_run=True, output="LINES"))
            height = max(key_lines, value_lines) * line
            self.need(height + 1)
            y = pdf.get_y()
            pdf.set_xy(self.MARGIN, y)
            pdf.set_font("Sans", "B", 8.5)
            pdf.set_text_color(57, 65, 79)
            pdf.multi_cell(key_width - 3, line, key, new_x="LMARGIN", new_y="NEXT", align="L")
            pdf.set_xy(self.MARGIN + key_width, y)
            pdf.set_font("Sans", "", 8.5)
            self.color("ink")
            pdf.multi_cell(self.width - key_width, line, value, new_x="LMARGIN", new_y="NEXT", align="L")
            pdf.set_y(y + height + 1.0)
        pdf.ln(2)


def _columns(table: Table, keep, caption: str | None = None) -> Table:
    """The columns ``keep`` (indices) of ``table``, its rows and marks; its caption unless one is given."""
    keep = list(keep)
    return Table([table.columns[i] for i in keep], [[row[i] for i in keep] for row in table.rows],
                 caption=table.caption if caption is None else caption, marked=table.marked)


def render_pdf(report: Report) -> bytes:
    """The report as an A4 PDF (fpdf2): the same sections, tables and figures as the HTML."""
    return _PdfWriter(report).write()
