"""Number and text formatting: the one set of formatters of the reports, the statistics and the summaries.

Imports nothing of the project, so that :mod:`analysis.stats` and
:mod:`analysis.summary` can use it without importing the reports.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def _finite(x: Any) -> bool:
    return x is not None and isinstance(x, (int, float, np.floating, np.integer)) and math.isfinite(float(x))


def _pct(x: Any, digits: int = 1) -> str:
    return f"{100 * float(x):.{digits}f}%" if _finite(x) else "n/a"


def _ci(low: Any, high: Any, digits: int = 1) -> str:
    return f"[{100 * float(low):.{digits}f}, {100 * float(high):.{digits}f}]" if _finite(low) and _finite(high) \
        else "n/a"


def _pts(x: Any, digits: int = 1) -> str:
    return f"{100 * float(x):+.{digits}f}" if _finite(x) else "n/a"


def _ci_pts(low: Any, high: Any, digits: int = 1) -> str:
    return f"[{100 * float(low):+.{digits}f}, {100 * float(high):+.{digits}f}]" if _finite(low) and _finite(high) \
        else "n/a"


def _interval_pct(low: float, high: float, digits: int = 1) -> str:
    """``[48.2, 51.0]``, or ``[n/a]`` (the statistics' text lines)."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "[n/a]"
    return f"[{100 * low:.{digits}f}, {100 * high:.{digits}f}]"


def _confidence(confidence: float) -> str:
    return f"{100 * confidence:g}%"


def _signed_points(value: float) -> str:
    return f"{100 * value:+.1f} points"


def format_p(p: float) -> str:
    """``p < 0.001`` or ``p = 0.042`` (``p = n/a`` when the test could not run)."""
    if p is None or not np.isfinite(p):
        return "p = n/a"
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _p(p: Any) -> str:
    """``< 0.001`` or ``0.042`` for a table cell."""
    return format_p(p).removeprefix("p ").removeprefix("= ")


def _num(x: Any, digits: int = 2) -> str:
    return f"{float(x):.{digits}f}" if _finite(x) else "n/a"


def _ci_num(low: Any, high: Any, digits: int = 2) -> str:
    return f"[{float(low):.{digits}f}, {float(high):.{digits}f}]" if _finite(low) and _finite(high) else "n/a"


def _int(n: Any) -> str:
    return f"{int(n):,}"


def _g(x: Any) -> str:
    return f"{float(x):g}" if _finite(x) else "n/a"


def _plain(text: str) -> str:
    """Library text with ASCII plus-minus made typographic."""
    return text.replace("+-", "\u00b1")


def _sentences(text: str) -> str:
    """A multi-line describe() as one run of text."""
    parts = [line.strip() for line in text.splitlines() if line.strip()]
    return _plain("; ".join(parts))


def _listing(items: Sequence[str], limit: int = 6) -> str:
    items = list(items)
    if len(items) <= limit:
        return ", ".join(items)
    return ", ".join(items[:limit]) + f" and {len(items) - limit} more"


def _versions_text(held: dict[str, str]) -> str:
    return ", ".join(f"{k} {v}" for k, v in held.items())


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items() if v is not None) + "}"
    return str(value)


def _array_of_tables(value: Any) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(v, dict) for v in value)


def config_text(config: dict, prefix: str = "") -> str:
    """A config dict as TOML text (unset keys are left out, as in the config file); a list of tables (Reforest's
    species) as ``[[species]]`` blocks, one per item."""
    lines, tables = [], []
    for key, value in config.items():
        if isinstance(value, dict):
            tables.append((key, value))
        elif _array_of_tables(value):
            tables += [(key, [item]) for item in value]
        elif value is not None:
            lines.append(f"{key} = {_toml_value(value)}")
    out = []
    if lines:
        if prefix:
            out.append(f"[{prefix}]")
        out.extend(lines)
    for key, value in tables:
        name = f"{prefix}.{key}" if prefix else key
        block = (config_text(value[0], name).replace(f"[{name}]", f"[[{name}]]", 1) if isinstance(value, list)
                 else config_text(value, name))
        if block:
            if out:
                out.append("")
            out.append(block)
    return "\n".join(out)


def _game_title(name: str) -> str:
    try:
        from sims.registry import get_game

        return get_game(name).title
    except Exception:  # a game not registered in this process: its name will do
        return name.capitalize()
