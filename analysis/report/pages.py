"""Pictures of a written report for a reader's check (``make report-check``): PDF pages and HTML figures, and the
checks a machine can run on them: text that leaves its box.

PDF pages become PNG files with pypdfium2 (the ``dev`` extra) where poppler's
``pdftoppm`` is not installed; without a browser, the HTML report's figures
(SVG, embedded as data URIs) are written out as files, one per figure::

    python -m analysis.report.pages pdf reports/demo/report.pdf reports/demo/check
    python -m analysis.report.pages figures reports/demo/report.html reports/demo/check
    python -m analysis.report.pages check reports/demo/report.html reports/demo/report.pdf

``check`` prints every problem and exits 1 when there is one: in the HTML (laid
out by headless Chromium at 1280 px) a text box whose text is wider than the box,
a paragraph, caption or figure past the page's column, a caption outside its
figure, and a figure's text (a title, label, tick or legend) outside the figure's
own picture, where it is cut off; in the PDF a text outside the page's margins, a
figure outside them, and a figure whose ink reaches its own edge (cut off there).
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
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


# Run in the laid-out page once every figure has loaded; writes what it found into <pre id="glade-check">.
_CHECK_SCRIPT = r"""
<script>
window.addEventListener("load", () => {
  const found = [];
  const main = document.querySelector("main");
  const column = main.getBoundingClientRect().right - parseFloat(getComputedStyle(main).paddingRight);
  const where = (el) => {
    const section = el.closest("section");
    return (section ? section.id : "header") + " " + el.tagName.toLowerCase() + " \u201c" +
      el.textContent.trim().replace(/\s+/g, " ").slice(0, 70) + "\u201d";
  };
  const boxes = "h1, h2, h3, p, li, dt, dd, summary, figcaption, .caption, .flag-title, .evidence, th, td";
  for (const el of document.querySelectorAll(boxes)) {
    const scrolls = ["auto", "scroll"].includes(getComputedStyle(el).overflowX);
    if (!scrolls && el.scrollWidth > el.clientWidth + 1) found.push("text wider than its box: " + where(el));
    if (el.closest(".table-wrap")) continue;  // a wide table scrolls inside its wrapper, as meant
    const box = el.getBoundingClientRect();
    if (box.right > column + 1) found.push("past the page's column by " + Math.round(box.right - column) +
                                           " px: " + where(el));
  }
  for (const figure of document.querySelectorAll("figure")) {
    const frame = figure.getBoundingClientRect();
    for (const part of figure.querySelectorAll("img, figcaption")) {
      const box = part.getBoundingClientRect();
      if (box.left < frame.left - 1 || box.right > frame.right + 1 || box.bottom > frame.bottom + 1)
        found.push("outside its figure: " + where(part));
    }
    if (frame.right > column + 1) found.push("figure past the page's column: " + figure.id);
  }
  const holder = document.createElement("div");
  holder.style.cssText = "position:absolute; left:0; top:0; visibility:hidden";
  document.body.appendChild(holder);
  for (const img of document.querySelectorAll("figure img")) {
    const data = img.getAttribute("src").split("base64,")[1];
    if (!data) continue;
    const svg = new DOMParser().parseFromString(atob(data), "image/svg+xml").documentElement;
    holder.replaceChildren(document.importNode(svg, true));
    const picture = holder.firstElementChild.getBoundingClientRect();
    for (const text of holder.querySelectorAll("g[id^='text_']")) {
      const box = text.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < picture.left - 1 || box.right > picture.right + 1 || box.top < picture.top - 1 ||
          box.bottom > picture.bottom + 1) {
        const comment = [...text.childNodes].find((n) => n.nodeType === Node.COMMENT_NODE);
        found.push("figure text cut off at the picture's edge: " + img.closest("figure").id + " \u201c" +
                   (comment ? comment.textContent.trim() : text.id) + "\u201d");
      }
    }
  }
  holder.remove();
  const out = document.createElement("pre");
  out.id = "glade-check";
  out.textContent = JSON.stringify(found);
  document.body.appendChild(out);
});
</script>
"""


def check_html(html: str | Path, chromium: str | None = None, width: int = 1280) -> list[str]:
    """What overflows in the HTML report laid out by headless Chromium at ``width`` px (see the module's text).

    Raises FileNotFoundError without a Chromium (``apt-get install -y chromium``)."""
    browser = chromium or os.environ.get("CHROMIUM", "chromium")
    if shutil.which(browser) is None:
        raise FileNotFoundError(f"{browser} not found (apt-get install -y chromium)")
    page = Path(html).read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as scratch:
        copy = Path(scratch) / "report.html"
        copy.write_text(page.replace("</body>", _CHECK_SCRIPT + "</body>", 1), encoding="utf-8")
        profile = Path(scratch) / "profile"
        done = subprocess.run(
            [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-sync",
             "--disable-background-networking", "--disable-component-update", f"--user-data-dir={profile}",
             "--hide-scrollbars", f"--window-size={width},1000", "--virtual-time-budget=20000", "--dump-dom",
             copy.resolve().as_uri()], capture_output=True, text=True, timeout=300)
    result = re.search(r'<pre id="glade-check">(.*?)</pre>', done.stdout, re.S)
    if result is None:
        raise RuntimeError(f"{browser} did not lay out {html} (exit {done.returncode}): {done.stderr[-300:]}")
    import html as html_lib

    return [f"{html}: {problem}" for problem in json.loads(html_lib.unescape(result.group(1)))]


PDF_MARGIN_MM = 18.0  # analysis.report.pdf's margins


def check_pdf(pdf: str | Path, margin_mm: float = PDF_MARGIN_MM) -> list[str]:
    """What leaves its place in the PDF: text outside the page's margins (the footer may use the bottom
    margin), a figure outside them, a figure whose ink reaches its own edge (its picture cut there)."""
    import numpy as np
    import pypdfium2
    import pypdfium2.raw as raw

    margin = margin_mm * 72 / 25.4
    found = []
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        for number in range(len(document)):
            page = document[number]
            width, height = page.get_size()
            text = page.get_textpage()
            outside = []
            for i in range(text.count_chars()):
                char = text.get_text_range(i, 1)
                if not char.strip():
                    continue
                left, bottom, right, top = text.get_charbox(i)
                if left < margin - 1 or right > width - margin + 1 or bottom < 0 or top > height - margin + 1:
                    outside.append(char)
            if outside:
                found.append(f"{pdf}: page {number + 1}: {len(outside)} characters outside the margins: "
                             f"\u201c{''.join(outside)[:70]}\u201d")
            for image in page.get_objects(filter=[raw.FPDF_PAGEOBJ_IMAGE]):
                left, bottom, right, top = image.get_bounds()
                if left < margin - 1 or right > width - margin + 1 or bottom < margin - 1 or top > height - margin + 1:
                    found.append(f"{pdf}: page {number + 1}: a figure outside the margins")
                pixels = image.get_bitmap(render=False).to_numpy()
                ink = (pixels[..., :3] < 235).any(axis=-1) if pixels.ndim == 3 else pixels < 235
                edges = {"left": ink[:, 0], "right": ink[:, -1], "top": ink[0, :], "bottom": ink[-1, :]}
                cut = [side for side, line in edges.items() if np.any(line)]
                if cut:
                    found.append(f"{pdf}: page {number + 1}: a figure's ink reaches its {' and '.join(cut)} edge "
                                 "(cut off there)")
    finally:
        document.close()
    return found


def main(argv: list[str]) -> int:
    """``pdf PDF OUT``, ``figures HTML OUT`` (prints what it wrote) or ``check FILE...`` (prints what overflows;
    exit 1 if anything does)."""
    if len(argv) >= 2 and argv[0] == "check":
        problems = []
        for source in argv[1:]:
            if not Path(source).is_file():
                print(f"error: {source}: (file) expected a report written by glade report, got nothing",
                      file=sys.stderr)
                return 2
            try:
                problems += check_pdf(source) if source.endswith(".pdf") else check_html(source)
            except (FileNotFoundError, RuntimeError) as error:
                print(f"error: {source}: {error}", file=sys.stderr)
                return 2
        for problem in problems:
            print(problem)
        print(f"report-check: {len(problems)} problem{'s' if len(problems) != 1 else ''} in {len(argv) - 1} "
              f"file{'s' if len(argv) != 2 else ''}")
        return 1 if problems else 0
    if len(argv) != 3 or argv[0] not in ("pdf", "figures"):
        print("error: usage: python -m analysis.report.pages pdf|figures FILE OUT_DIR, or check FILE...",
              file=sys.stderr)
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
