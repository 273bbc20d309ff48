"""Which report a directory gets, and writing reports to disk."""

from __future__ import annotations

from pathlib import Path

from analysis.ladder import LADDER_JSON
from analysis.report.html import render_html
from analysis.report.ladder import build_ladder_report
from analysis.report.model import DELTA, DETAIL_DEALS, HTML_NAME, PDF_NAME, Report
from analysis.report.pdf import render_pdf
from analysis.report.run import build_run_report
from analysis.report.sweep import build_sweep_report
from analysis.report.tune import build_tune_report
from analysis.stats.common import BAND_SHARE
from sims.core.spec import ConfigError


def kind_of(path: str | Path) -> str:
    """``"run"`` (has manifest.json), ``"sweep"`` (sweep.json), ``"tune"`` (tune.json) or ``"ladder"``
    (ladder.json); else a ConfigError."""
    path = Path(path)
    if (path / "tune.json").is_file():
        return "tune"
    if (path / LADDER_JSON).is_file():
        return "ladder"
    if (path / "sweep.json").is_file():
        return "sweep"
    if (path / "manifest.json").is_file():
        return "run"
    what = "does not exist" if not path.exists() else "holds none of manifest.json, sweep.json, tune.json, ladder.json"
    raise ConfigError(str(path), "(directory)", f"a run directory (manifest.json, from glade play) or a sweep "
                      f"directory (sweep.json, from glade sweep) or a tune directory (tune.json, from glade tune) or a "
                      f"ladder directory (ladder.json, from glade ladder); it {what}", has_got=False)


def build_report(path: str | Path, delta: float = DELTA, band_share: float = BAND_SHARE,
                 detail_deals: int = DETAIL_DEALS) -> Report:
    """The report of a run, sweep, tune or ladder directory; ``band_share``: the share of games a config's target
    band must hold for a length check to pass (a tune's own study says its own); ``detail_deals``: the first deals
    of a run (of each sweep cell) the detail analyses read, every other figure reading every deal."""
    kind = kind_of(path)
    if kind in ("tune", "ladder"):
        return {"tune": build_tune_report, "ladder": build_ladder_report}[kind](path, delta)
    builders = {"sweep": build_sweep_report, "run": build_run_report}
    return builders[kind](path, delta, band_share, detail_deals)


def default_out(path: str | Path, other: str | Path | None = None) -> Path:
    """``reports/NAME``: the run or sweep directory's name (``A-vs-B`` for a diff)."""
    name = Path(path).resolve().name
    if other is not None:
        name = f"{name}-vs-{Path(other).resolve().name}"
    return Path("reports") / name


def write_report(report: Report, out_dir: str | Path, html_file: bool = True, pdf_file: bool = True) -> list[Path]:
    """Write ``OUT/report.html`` and/or ``OUT/report.pdf``; returns the paths written."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    try:
        if html_file:
            target = out / HTML_NAME
            target.write_text(render_html(report), encoding="utf-8")
            written.append(target)
        if pdf_file:
            target = out / PDF_NAME
            target.write_bytes(render_pdf(report))
            written.append(target)
    finally:
        report.close()
    return written

