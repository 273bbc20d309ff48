"""Pictures of a written report for a reader's check (``make report-check``): PDF pages and HTML figures.

PDF pages become PNG files with pypdfium2 (the ``dev`` extra) where poppler's
``pdftoppm`` is not installed; without a browser, the HTML report's figures
(SVG, embedded as data URIs) are written out as files, one per figure::

    python -m analysis.report.pages pdf reports/demo/report.pdf reports/demo/check
    python -m analysis.report.pages figures reports/demo/report.html reports/demo/check
"""

from __future__ import annotations

import base64
import re
import sys
from pathlib import Path

_FIGURE = re.compile(r'src="data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)"')


def pdf_pages(pdf: str | Path, out_dir: str | Path, dpi: int = 80) -> list[Path]:
    """Each page of ``pdf`` as ``out_dir/page-N.png`` (N from 1), rendered by pypdfium2 at ``dpi``."""
    import pypdfium2

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    document = pypdfium2.PdfDocument(str(pdf))
    written = []
    try:
        for number in range(len(document)):
            path = out / f"page-{number + 1}.png"
            document[number].render(scale=dpi / 72).to_pil().save(path)
            written.append(path)
    finally:
        document.close()
    return written


def html_figures(html: str | Path, out_dir: str | Path) -> list[Path]:
    """Each figure embedded in an HTML report as ``out_dir/figure-N.svg`` (N from 1, in page order)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for number, data in enumerate(_FIGURE.findall(Path(html).read_text()), start=1):
        path = out / f"figure-{number}.svg"
        path.write_bytes(base64.b64decode(data))
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    """``pdf PDF OUT`` or ``figures HTML OUT``; prints what it wrote."""
    if len(argv) != 3 or argv[0] not in ("pdf", "figures"):
        print("error: usage: python -m analysis.report.pages pdf|figures FILE OUT_DIR", file=sys.stderr)
        return 2
    kind, source, out = argv
    if not Path(source).is_file():
        print(f"error: {source}: (file) expected a report written by glade report, got nothing", file=sys.stderr)
        return 1
    written = pdf_pages(source, out) if kind == "pdf" else html_figures(source, out)
    print(f"{out}/{'page' if kind == 'pdf' else 'figure'}-*.{'png' if kind == 'pdf' else 'svg'} "
          f"({len(written)} {'pages' if kind == 'pdf' else 'figures'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
