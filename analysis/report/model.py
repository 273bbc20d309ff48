"""The report data model: blocks, sections, the report; and the defaults every report shares."""

from __future__ import annotations

from dataclasses import dataclass, field

from matplotlib.figure import Figure

from sims.records import DETAIL_DEALS  # noqa: F401 (the reports' default, kept beside BLOCK_DEALS)

DELTA = 0.025
ALPHA = 0.05
STALL_FLAG = 0.01  # flag runs where more than this share of games stall
FLAT_GRADIENT = 0.05  # the strongest bot within this of 50% against the weakest: too flat
COMPONENT_COLUMNS = ("kind", "card", "action", "objective", "tile", "component")
HTML_NAME = "report.html"
PDF_NAME = "report.pdf"
PNG_DPI = 200


@dataclass
class Paragraph:
    text: str
    style: str = "body"  # body | lead | note


@dataclass
class Heading:
    text: str


@dataclass
class Flag:
    """One finding: ``warn`` (a problem), ``ok`` (a check passed) or ``info``; a title and its evidence."""

    level: str
    title: str
    evidence: str


@dataclass
class Flags:
    items: list[Flag]


@dataclass
class Column:
    name: str
    numeric: bool = False


@dataclass
class Table:
    columns: list[Column]
    rows: list[list[str]]
    caption: str = ""
    marked: list[bool] | None = None  # rows to highlight (flagged, or the baseline)

    def __post_init__(self) -> None:
        for row in self.rows:
            if len(row) != len(self.columns):
                raise ValueError(f"table row of {len(row)} cells for {len(self.columns)} columns: {row}")


@dataclass
class Plot:
    id: str
    figure: Figure
    caption: str


@dataclass
class Facts:
    items: list[tuple[str, str]]


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Code:
    summary: str
    text: str


Block = Paragraph | Heading | Flags | Table | Plot | Facts | Bullets | Code


@dataclass
class Section:
    id: str
    title: str
    blocks: list[Block] = field(default_factory=list)


@dataclass
class Report:
    kind: str  # run | sweep | diff
    title: str
    subtitle: str
    sections: list[Section]
    generated: str
    headline: str = ""  # one line for the terminal (glade report): the run's seat headline, as in the report
    terminal: str = ""  # lines glade report prints after the headline (a sweep's cell table)

    def section(self, section_id: str) -> Section:
        return next(s for s in self.sections if s.id == section_id)

    def plots(self) -> list[Plot]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Plot)]

    def close(self) -> None:
        """Free the figures (matplotlib keeps them otherwise)."""
        for plot in self.plots():
            plot.figure.clear()
