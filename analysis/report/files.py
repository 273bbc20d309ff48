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
from sims import outdir
from sims.core.files import write_bytes
from sims.core.spec import ConfigError


def kind_of(path: str | Path) -> str:
    """``"run"`` (manifest.json), ``"sweep"`` (sweep.json, also an ablate directory's), ``"tune"`` (tune.json) or
    ``"ladder"`` (ladder.json), as :func:`sims.outdir.kind_of` tells them; else a ConfigError."""
    path = Path(path)
    kind = outdir.kind_of(path)
    if kind == "ablate" and (path / "sweep.json").is_file():
        return "sweep"
    if kind in ("run", "sweep", "tune") or (kind == "ladder" and (path / LADDER_JSON).is_file()):
        return kind
    what = "does not exist" if kind == outdir.NEW else f"is {outdir.describe(path, kind)}"
    if kind == "ablate":
        what += " whose sweep.json is not written yet (run the same glade ablate again)"
    raise ConfigError(str(path), "(directory)", f"a run directory (manifest.json, from glade play), a sweep "
                      f"directory (sweep.json, from glade sweep or glade ablate), a tune directory (tune.json, from "
                      f"glade tune) or a ladder directory (ladder.json, from glade ladder); it {what}", has_got=False)


def build_report(path: str | Path, delta: float = DELTA, band_share: float = BAND_SHARE,
                 detail_deals: int = DETAIL_DEALS) -> Report:
    """The report of a run, sweep, tune or ladder directory; ``band_share``: the share of games a config's target
    band must hold for a length check to pass (a tune's own study says its own); ``detail_deals``: the first deals
    of a run (of each sweep cell) the detail analyses read, every other figure reading every deal."""
    kind = kind_of(path)
    if outdir.kind_of(path) == "ablate":  # its ablate.json is checked before the sweep's cells are analysed
        from analysis.ablate import load_ablations

        load_ablations(path)
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
    outdir.check_out(out, "report")
    written = []
    try:
        files = []
        if html_file:
            files.append((out / HTML_NAME, render_html(report).encode("utf-8")))
        if pdf_file:
            files.append((out / PDF_NAME, render_pdf(report)))
    finally:
        report.close()
    with outdir.writing(out, "report"):
        for target, data in files:
            write_bytes(data, target)
            written.append(target)
    return written

