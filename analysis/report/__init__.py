"""Reports: what a run, a sweep, or the change between two runs says, as HTML and PDF.

One data model, rendered twice. A builder (:func:`build_run_report`,
:func:`build_sweep_report`, :func:`build_diff_report`, or :func:`build_report`
which tells a run directory from a sweep directory) reads the records, calls
:mod:`analysis.stats` for every number, and returns a :class:`Report`: sections
of blocks (paragraphs, flags, tables, figures, facts, code). Then
:func:`render_html` writes one self-contained HTML file (CSS inline, figures as
``data:`` SVG images, no script, no external URL) and :func:`render_pdf` an A4
PDF (fpdf2: real text, tables that carry their headings over page breaks,
figures as 200 dpi PNG).

Results are phrased as docs/statistics.md asks: estimate, interval with its
method, n, the test and its verdict. Flags are short sentences with that
evidence. Component strength is labelled observational wherever it appears.

The package, one module a concern (each report kind: analyse -> a frozen
analysis object -> sections):

* :mod:`~analysis.report.model`: blocks, sections, the report, shared defaults;
* :mod:`~analysis.report.text`: the number formatters (also used by
  :mod:`analysis.stats` and :mod:`analysis.summary`);
* :mod:`~analysis.report.methods`: the statistics this package adds to
  :mod:`analysis.stats` (:func:`seat_tests`: per-seat exact binomial tests
  against the fair share, Holm-corrected across seats; :func:`unpaired_change`:
  a difference of two independent proportions, Newcombe interval and score
  test; the running seat-0 estimate of the convergence figure) and the methods
  section that says so;
* :mod:`~analysis.report.run`, :mod:`~analysis.report.sweep`,
  :mod:`~analysis.report.diff`, :mod:`~analysis.report.tune`: the four kinds of report;
* :mod:`~analysis.report.content` (per game: component families, move
  events, score sources), :mod:`~analysis.report.designer` (a run's "why a
  seat wins", drama and content-strength sections) and
  :mod:`~analysis.report.trace` (a sweep's drama per cell and skill trace):
  the designer's questions (docs/reports.md); :mod:`~analysis.report.ablate`: the
  section a ``glade ablate`` directory adds to its sweep report (docs/ablate.md);
* :mod:`~analysis.report.html` (with ``report.css``), :mod:`~analysis.report.pdf`:
  the writers; :mod:`~analysis.report.files`: dispatch and files on disk.

The public names below are importable from ``analysis.report`` itself; each
is loaded on first use, so that importing :mod:`analysis.report.text` (as
:mod:`analysis.stats` does) does not import the whole package.
"""

from __future__ import annotations

import importlib
from typing import Any


_EXPORTS = {
    "model": ["ALPHA", "Block", "Bullets", "COMPONENT_COLUMNS", "Code", "Column", "DELTA", "FLAT_GRADIENT", "Facts",
              "Flag", "Flags", "HTML_NAME", "Heading", "PDF_NAME", "PNG_DPI", "Paragraph", "Plot", "Report",
              "STALL_FLAG", "Section", "Table"],
    "text": ["config_text", "format_p"],
    "methods": ["Change", "config_changes", "flatten", "running_estimate", "running_headline", "seat_tests", "target_band",
                "unpaired_change", "unpaired_mean_change"],
    "run": ["RunAnalysis", "analyse_run", "build_run_report", "component_column", "design_components",
            "player_seats", "run_flags"],
    "sweep": ["CellAnalysis", "SweepAnalysis", "analyse_sweep", "build_sweep_report", "solitaire_flags",
              "sweep_flags"],
    "diff": ["DiffAnalysis", "SeatChange", "analyse_diff", "build_diff_report"],
    "tune": ["build_tune_report", "search_path_figure"],
    "ladder": ["build_ladder_report"],
    "files": ["build_report", "default_out", "kind_of", "write_report"],
    "html": ["render_html"],
    "pdf": ["render_pdf"],
}
_WHERE = {name: module for module, names in _EXPORTS.items() for name in names}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
