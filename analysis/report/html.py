"""The HTML writer: one self-contained file (CSS from report.css inline, figures as data: SVG images)."""

from __future__ import annotations

import base64
import html
import io
from importlib import resources

from matplotlib.figure import Figure

from analysis import plots
from analysis.report.model import (Block, Bullets, Code, Column, Facts, Flags, Heading, PNG_DPI, Paragraph, Plot,
                                   Report, Table)


# Inlined on a line of its own after <style>.
_CSS = "\n" + (resources.files(__package__) / "report.css").read_text(encoding="utf-8")

_BADGES = {"warn": "FLAG", "ok": "OK", "info": "NOTE"}


def _figure_data(figure: Figure, fmt: str, dpi: int = PNG_DPI) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format=fmt, dpi=dpi, metadata={"Date": None} if fmt == "svg" else None)
    return buffer.getvalue()


def _cell_class(column: Column, value: str) -> str:
    classes = (["num"] if column.numeric else []) + (["nw"] if len(value) <= 26 else [])
    return " ".join(classes)


def _html_block(block: Block) -> str:
    e = html.escape
    if isinstance(block, Paragraph):
        return f'<p class="{block.style}">{e(block.text)}</p>'
    if isinstance(block, Heading):
        return f"<h3>{e(block.text)}</h3>"
    if isinstance(block, Flags):
        items = []
        for flag in block.items:
            evidence = f'<span class="evidence">{e(flag.evidence)}</span>' if flag.evidence else ""
            items.append(f'<li class="{flag.level}"><span class="badge">{_BADGES[flag.level]}</span>'
                         f'<span class="flag-title">{e(flag.title)}</span>{evidence}</li>')
        return '<ul class="flags">' + "".join(items) + "</ul>"
    if isinstance(block, Table):
        head = "".join(f'<th class="num">{e(c.name)}</th>' if c.numeric else f"<th>{e(c.name)}</th>"
                       for c in block.columns)
        body = []
        for i, row in enumerate(block.rows):
            marked = block.marked is not None and block.marked[i]
            cells = "".join(f'<td class="{_cell_class(c, v)}">{e(v)}</td>' for c, v in zip(block.columns, row))
            body.append(f'<tr class="marked">{cells}</tr>' if marked else f"<tr>{cells}</tr>")
        caption = f'<div class="caption">{e(block.caption)}</div>' if block.caption else ""
        return (f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody>'
                f"</table></div>{caption}")
    if isinstance(block, Plot):
        data = base64.b64encode(_figure_data(block.figure, "svg")).decode("ascii")
        width = block.figure.get_figwidth()
        share = min(100.0, 100 * width / plots.WIDTH)
        alt = e(block.caption)
        return (f'<figure id="fig-{e(block.id)}"><img style="width:{share:.1f}%" alt="{alt}" '
                f'src="data:image/svg+xml;base64,{data}"><figcaption>{alt}</figcaption></figure>')
    if isinstance(block, Facts):
        items = "".join(f"<dt>{e(k)}</dt><dd>{e(v)}</dd>" for k, v in block.items)
        return f'<dl class="facts">{items}</dl>'
    if isinstance(block, Bullets):
        return '<ul class="bullets">' + "".join(f"<li>{e(item)}</li>" for item in block.items) + "</ul>"
    if isinstance(block, Code):
        return f"<details><summary>{e(block.summary)}</summary><pre>{e(block.text)}</pre></details>"
    raise TypeError(f"unknown report block {type(block).__name__}")


def render_html(report: Report) -> str:
    """The report as one self-contained HTML page (inline CSS and images, no script, no external URL)."""
    e = html.escape
    kicker = {"run": "Glade run report", "sweep": "Glade sweep report", "diff": "Glade comparison",
              "tune": "Glade tune report", "ladder": "Glade ladder report"}[report.kind]
    nav = "".join(f'<a href="#{e(s.id)}">{e(s.title)}</a>' for s in report.sections)
    sections = "\n".join(
        f'<section id="{e(s.id)}"><h2>{e(s.title)}</h2>\n' + "\n".join(_html_block(b) for b in s.blocks)
        + "</section>" for s in report.sections)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{e(report.title)}</title><style>{_CSS}</style></head><body><main>"
            f'<header><div class="kicker">{kicker}</div><h1>{e(report.title)}</h1>'
            f'<p class="subtitle">{e(report.subtitle)}</p><nav>{nav}</nav></header>\n{sections}\n'
            f"<footer>Written by Glade on {e(report.generated)}. Estimates carry 95% intervals with their method; "
            f"see Methods.</footer></main></body></html>\n")
