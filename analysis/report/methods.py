"""The statistics the reports add to :mod:`analysis.stats`, and the methods section that names them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
import polars as pl
from scipy import stats as scipy_stats
from statsmodels.stats.power import NormalIndPower, TTestIndPower
from statsmodels.stats.proportion import (confint_proportions_2indep, proportion_effectsize, test_proportions_2indep,
                                          tost_proportions_2indep)
from statsmodels.stats.weightstats import ttost_ind

from analysis import stats
from analysis.report.model import ALPHA, Bullets, Heading, Paragraph, Section
from analysis.report.text import _plain, _toml_value


def seat_tests(advantage: stats.SeatAdvantage, alpha: float = ALPHA) -> pl.DataFrame:
    """Per seat: does it win more (or less) than its fair share? Holm-corrected across seats.

    Each seat's test is the one :func:`analysis.stats.seat_advantage` ran for
    its design (exact binomial per game, t per deal, or the clustered model's
    z test). Two players: one test (seat 1's share is one minus seat 0's), so
    Holm leaves it as it is. Columns: ``seat``, ``share``, ``share_low``,
    ``share_high``, ``p_value``, ``p_holm``, ``significant``.
    """
    seats = advantage.seats
    p = seats["p_value"].to_numpy()
    holm = p.copy() if advantage.players == 2 else stats.correct(p, "holm")
    return seats.select("seat", "share", "share_low", "share_high", "p_value").with_columns(
        pl.Series("p_holm", holm, dtype=pl.Float64),
    ).with_columns((pl.col("p_holm").fill_nan(None) < alpha).fill_null(False).alias("significant"))


@dataclass(frozen=True)
class Change:
    """``other - base`` for one metric: estimate, interval, test p-value and the methods."""

    base: float
    other: float
    difference: float
    low: float
    high: float
    p_value: float
    interval_method: str
    test: str
    n_base: int
    n_other: int
    equivalence_p: float | None = None  # TOST within +-margin
    effect_size: float = float("nan")  # Cohen's h (proportions) or d (means)
    detectable: float = float("nan")  # the smallest change these games detect (two-sided 5%, power 80%)


def unpaired_change(k_base: float, n_base: int, k_other: float, n_other: int,
                    confidence: float = stats.CONFIDENCE, margin: float | None = None) -> Change:
    """Two independent proportions: Newcombe hybrid score interval and score test (statsmodels); with
    ``margin``, the equivalence test within +-margin (``tost_proportions_2indep``); Cohen's h and the
    detectable change (``NormalIndPower``)."""
    if not n_base or not n_other:
        return Change(float("nan"), float("nan"), float("nan"), float("nan"), float("nan"), float("nan"),
                      "Newcombe", "score test", n_base, n_other)
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = confint_proportions_2indep(k_other, n_other, k_base, n_base, method="newcomb", compare="diff",
                                               alpha=1 - confidence)
        p = test_proportions_2indep(k_other, n_other, k_base, n_base, method="score", compare="diff").pvalue
        tost = (float(tost_proportions_2indep(k_other, n_other, k_base, n_base, -margin, margin,
                                              compare="diff").pvalue) if margin else None)
    same = k_other / n_other == k_base / n_base
    base, other = k_base / n_base, k_other / n_other
    h = stats.solved(NormalIndPower().solve_power(nobs1=n_base, ratio=n_other / n_base, alpha=1 - confidence, power=0.8))
    return Change(base, other, other - base, float(low), float(high),
                  1.0 if same else float(p), f"Newcombe {stats.CONFIDENCE:.0%}",
                  "score test (statsmodels test_proportions_2indep)", n_base, n_other, tost,
                  float(proportion_effectsize(other, base)), stats.points_for_h(base, h))


def unpaired_mean_change(base: np.ndarray, other: np.ndarray, confidence: float = stats.CONFIDENCE,
                         margin: float | None = None) -> Change:
    """Two independent means: Welch's t test and its interval (``scipy.stats.ttest_ind(equal_var=False)``);
    with ``margin`` the equivalence test (statsmodels ``ttost_ind``, unequal variances); Cohen's d and the
    detectable change (``TTestIndPower``)."""
    base, other = np.asarray(base, dtype=float), np.asarray(other, dtype=float)
    if base.size < 2 or other.size < 2 or (base.std() == 0 and other.std() == 0):
        same = base.size and other.size and base.mean() == other.mean()
        d = float(other.mean() - base.mean()) if base.size and other.size else float("nan")
        tost = (0.0 if same else 1.0) if margin else None
        return Change(float(base.mean()), float(other.mean()), d, d, d, 1.0 if same else float("nan"),
                      "Welch t (no variation)", "Welch t test", base.size, other.size, tost)
    result = scipy_stats.ttest_ind(other, base, equal_var=False)
    interval = result.confidence_interval(confidence)
    sd = math.sqrt((base.var(ddof=1) + other.var(ddof=1)) / 2)
    tost = float(ttost_ind(other, base, -margin, margin, usevar="unequal")[0]) if margin else None
    d_min = stats.solved(TTestIndPower().solve_power(nobs1=base.size, ratio=other.size / base.size,
                                              alpha=1 - confidence, power=0.8))
    return Change(float(base.mean()), float(other.mean()), float(other.mean() - base.mean()), float(interval.low),
                  float(interval.high), float(result.pvalue), f"Welch t {confidence:.0%}",
                  "Welch's t test (scipy ttest_ind, equal_var=False)", base.size, other.size, tost,
                  float((other.mean() - base.mean()) / sd) if sd > 0 else float("nan"), d_min * sd)


def running_estimate(wins: np.ndarray, points: int = 160, start: int = 10) -> tuple[np.ndarray, ...]:
    """The running win rate after n games (n on a geometric grid) and its pointwise Wilson 95% interval."""
    from analysis.run_tally import game_grid, running_rate

    wins = np.asarray(wins, dtype=float)
    if wins.size == 0:
        empty = np.array([])
        return empty, empty, empty, empty
    n = game_grid(wins.size, points, start)
    return running_rate(n, np.cumsum(wins)[n - 1])


def running_headline(records: pl.DataFrame, seat: int = 0, points: int = 24, start: int = 20,
                     delta: float = 0.025) -> tuple[np.ndarray, ...]:
    """The headline's share of ``seat`` (:func:`analysis.stats.seat_advantage`, as
    ``analysis.summary.seat_headline`` counts it) over the first n deals, n on a geometric grid of at most
    ``points`` values, with its interval at each n (pointwise). Returns the games of those deals, the share, its
    low and high ends; a prefix whose share cannot be estimated (a model that cannot be fitted yet) is left out.
    The records are tallied once, a block of deals at a time (:func:`analysis.run_tally.tally_records`), and the
    share read from the tally at each n: a run directory's report does the same as it reads the run.
    """
    from analysis.run_tally import tally_records

    return tally_records(records, delta=delta, points=points, start=start, seat=seat).convergence


def _versions_now() -> dict[str, str]:
    from sims.records import glade_version

    names = {"matplotlib": "matplotlib", "scipy": "scipy", "statsmodels": "statsmodels", "fpdf2": "fpdf2"}
    found = {"glade": glade_version()}
    for label, package in names.items():
        try:
            found[label] = version(package)
        except PackageNotFoundError:
            found[label] = "not installed"
    return found


def flatten(config: dict, prefix: str = "") -> dict[str, Any]:
    """Dotted keys of a nested config: ``{"board.rows": 7, ...}``."""
    flat = {}
    for key, value in config.items():
        name = f"{prefix}.{key}" if prefix else key
        if isinstance(value, dict) and value:
            flat.update(flatten(value, name))
        else:
            flat[name] = value
    return flat


def target_band(config: dict) -> tuple[float, float] | None:
    """``[report] target_turns`` of a config, if it has a two-number band."""
    band = (config.get("report") or {}).get("target_turns")
    if isinstance(band, (list, tuple)) and len(band) == 2 and all(isinstance(v, (int, float)) for v in band):
        return float(band[0]), float(band[1])
    return None


def _score_note(table: pl.DataFrame) -> str:
    methods = sorted(set(table["score_method"].to_list()))
    return "Mean score interval: " + "; ".join(methods)


def _methods_section(added: list[str]) -> Section:
    return Section("methods", "Methods", [
        Paragraph("Every estimate is shown with its interval and the method that made it; every test names its "
                  "method, and where several tests are read together the correction is named. Intervals are 95%."),
        Heading("Statistics library (analysis.stats)"),
        Bullets([_plain(line) for line in stats.methods_used()]),
        Heading("Added by this report"),
        Bullets(added),
    ])


_CELL_CHARS = 160  # a longer config value is cut in the table (a whole list made rows too high for a page)


def config_changes(a: dict, b: dict) -> list[list[str]]:
    """``[key, A, B]`` per value of config ``b`` that differs from config ``a``; a list of the same length by its
    items that differ (``species[24] Douglas Fir: cost``, ``4``, ``2``), never the whole list."""
    fa, fb = flatten(a), flatten(b)
    rows = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key, "(unset)"), fb.get(key, "(unset)")
        if va != vb:
            rows += _diff_value(key, va, vb)
    return rows


def _diff_value(key: str, va: Any, vb: Any) -> list[list[str]]:
    if isinstance(va, list) and isinstance(vb, list) and len(va) == len(vb):
        rows = []
        for i, (a, b) in enumerate(zip(va, vb)):
            if a == b:
                continue
            name = next((item["name"] for item in (a, b) if isinstance(item, dict) and "name" in item), None)
            label = f"{key}[{i}]" + (f" {name}" if name else "")
            if isinstance(a, dict) and isinstance(b, dict):
                fa, fb = flatten(a), flatten(b)
                for k in sorted(set(fa) | set(fb)):  # a list inside (a tile's hexes) by its items again
                    va, vb = fa.get(k, "(unset)"), fb.get(k, "(unset)")
                    rows += _diff_value(f"{label}: {k}", va, vb) if va != vb else []
            else:
                rows += _diff_value(label, a, b)
        return rows
    return [[key, _cell(va), _cell(vb)]]


def _cell(value: Any) -> str:
    text = _toml_value(value) if value is not None else "(none)"
    return text if len(text) <= _CELL_CHARS else text[:_CELL_CHARS - 1] + "\u2026"
