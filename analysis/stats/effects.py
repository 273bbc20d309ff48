"""Sweep-wide effects: main effects of each sweep key from one model over all cells, and response curves of a
numeric key with the value where a curve crosses its target.

Main effects. A sweep whose cells cross two or more keys (every combination of
their levels played, as a ``[grid]`` does) is one designed experiment. One
linear model of a per-game outcome (seat 0's share of first places, or the
game's turns) on the cells, ``y ~ C(cell) - 1`` (statsmodels OLS, covariance
clustered by deal: the cells play the same deals, so games of one deal are not
independent), gives every cell mean; each key's levels are then compared
through linear contrasts of those means:

* a level's *marginal mean* is the unweighted mean of the cell means at that
  level (over every combination of the other keys' levels);
* its *effect* is its marginal mean less the mean of all cell means, with a
  Wald interval and test (``results.t_test``);
* a key's *main effect* is the joint Wald test that all its marginal means
  are equal (``results.wald_test``, chi-square on levels - 1 degrees of
  freedom); the *interaction* is the joint test that the cell means are
  additive (each cell's mean the sum of its levels' effects), on the
  contrasts orthogonal to the additive ones.

p-values are Holm-corrected (statsmodels ``multipletests(method="holm")``)
across the terms of one outcome, and across all levels of all keys of one
outcome.

Response curves. Per numeric key, the sweep's per-cell estimates (with their
own intervals) against the key's value, one line per combination of the other
keys' levels. Where a line crosses its target (the fair share, a turn band's
edge, the stall threshold) the crossing is the linear interpolation between
the two neighbouring cells (``numpy.interp`` on the segment), and its range the
values where the pointwise 95% band holds the target (the band's edges
interpolated the same way): a description of the cells, not a fitted model.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from analysis.stats.common import CONFIDENCE, StatsError
from analysis.stats.paired import correct


@dataclass(frozen=True)
class MainEffects:
    """The main-effect model of one outcome over a crossed sweep (see the module docstring).

    ``terms``: ``term`` (a key, or ``interaction``), ``df``, ``chi2``, ``p_value``,
    ``p_holm``. ``levels``: ``key``, ``level``, ``cells``, ``marginal``, ``effect``,
    ``low``, ``high``, ``p_value``, ``p_holm`` (in the keys' and levels' order).
    ``grand``: the mean of the cell means; ``games`` and ``deals`` the rows and
    clusters of the fit; ``method`` names the model and its covariance.
    """

    outcome: str
    keys: tuple[str, ...]
    terms: pl.DataFrame
    levels: pl.DataFrame
    grand: float
    games: int
    deals: int
    method: str

    def strongest(self, key: str) -> dict:
        """The level of ``key`` furthest from the mean (by |effect|)."""
        part = self.levels.filter(pl.col("key") == key)
        return part.sort(pl.col("effect").abs(), descending=True).to_dicts()[0]


def is_crossed(labels: Sequence[dict[str, str]], keys: Sequence[str]) -> bool:
    """Whether every combination of the keys' levels is one cell, exactly once."""
    if len(keys) < 2 or any(any(k not in cell for k in keys) for cell in labels):
        return False
    combos = [tuple(cell[k] for k in keys) for cell in labels]
    levels = [sorted({c[i] for c in combos}) for i in range(len(keys))]
    return len(set(combos)) == len(combos) == int(np.prod([len(v) for v in levels])) and all(
        len(v) > 1 for v in levels)


def main_effects(games: pl.DataFrame, keys: Sequence[str], outcome: str, levels: dict[str, list[str]] | None = None,
                 confidence: float = CONFIDENCE) -> MainEffects:
    """Main effects of ``keys`` on ``outcome`` (a column of ``games``, one row a game, with a ``deal`` column and
    one column per key holding the cell's level); ``levels`` gives each key's levels in display order (default:
    the order they first appear). The cells must cross the keys (:func:`is_crossed`)."""
    from statsmodels.regression.linear_model import OLS

    keys = tuple(keys)
    frame = games.select(*keys, "deal", pl.col(outcome).cast(pl.Float64)).drop_nulls()
    if frame.height == 0:
        raise StatsError(f"main_effects: no games with {outcome}")
    order = {k: list((levels or {}).get(k) or frame[k].unique(maintain_order=True).to_list()) for k in keys}
    cells = list(itertools.product(*(order[k] for k in keys)))
    index = {cell: i for i, cell in enumerate(cells)}
    present = set(zip(*(frame[k].to_list() for k in keys)))
    if present != set(cells):
        raise StatsError(f"main_effects: the cells do not cross {', '.join(keys)}")
    cell_of = np.array([index[c] for c in zip(*(frame[k].to_list() for k in keys))], dtype=np.int64)
    design = np.zeros((frame.height, len(cells)))
    design[np.arange(frame.height), cell_of] = 1.0
    _, groups = np.unique(frame["deal"].to_numpy(), return_inverse=True)
    fit = OLS(frame[outcome].to_numpy(), design).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=False)
    mean = np.full(len(cells), 1.0 / len(cells))
    term_rows, level_rows = [], []
    additive = [mean]
    for position, key in enumerate(keys):
        marginals = []
        for level in order[key]:
            weights = np.array([1.0 if cell[position] == level else 0.0 for cell in cells])
            marginals.append(weights / weights.sum())
        contrasts = np.array([m - marginals[-1] for m in marginals[:-1]])
        additive += list(contrasts)
        term_rows.append((key, *_wald(fit, contrasts)))
        for level, weights in zip(order[key], marginals):
            contrast = weights - mean
            effect = float(contrast @ fit.params)
            if float(contrast @ fit.cov_params() @ contrast) <= _NO_VARIANCE * _scale(fit):
                # the cells compared do not differ in any deal (a key that changes nothing): exact, no interval
                low = high = effect
                p = 1.0 if abs(effect) <= 1e-12 else 0.0
            else:
                test = fit.t_test(contrast[None, :])
                low, high = test.conf_int(alpha=1 - confidence)[0]
                p = float(test.pvalue)
            level_rows.append((key, str(level), int(round(1 / weights.max())), float(weights @ fit.params),
                               effect, float(low), float(high), p))
    basis = np.linalg.qr(np.array(additive).T)[0]  # the additive contrasts' span, orthonormal columns
    rest = np.eye(len(cells)) - basis @ basis.T
    u, singular, _ = np.linalg.svd(rest)
    interaction = u[:, singular > 1e-9].T
    if interaction.shape[0]:
        term_rows.append(("interaction", *_wald(fit, interaction)))
    terms = pl.DataFrame(term_rows, schema={"term": pl.String, "df": pl.Int64, "chi2": pl.Float64,
                                            "p_value": pl.Float64}, orient="row")
    terms = terms.with_columns(pl.Series("p_holm", correct(terms["p_value"].to_numpy(), "holm"), dtype=pl.Float64))
    table = pl.DataFrame(level_rows, schema={"key": pl.String, "level": pl.String, "cells": pl.Int64,
                                             "marginal": pl.Float64, "effect": pl.Float64, "low": pl.Float64,
                                             "high": pl.Float64, "p_value": pl.Float64}, orient="row")
    table = table.with_columns(pl.Series("p_holm", correct(table["p_value"].to_numpy(), "holm"), dtype=pl.Float64))
    return MainEffects(outcome, keys, terms, table, float(mean @ fit.params), frame.height, int(groups.max()) + 1,
                       "OLS on the cell means (statsmodels), covariance clustered by deal; Wald chi-square tests "
                       "and intervals; Holm across terms and across levels")


_NO_VARIANCE = 1e-10  # a contrast variance below this share of a cell mean's is none: cells equal in every deal


def _scale(fit) -> float:
    """The typical variance of a cell mean: what a contrast's variance is measured against."""
    return max(float(np.mean(np.diag(fit.cov_params()))), 1e-300)


def _wald(fit, contrasts: np.ndarray) -> tuple[int, float, float]:
    """``(df, chi2, p)``: the joint Wald chi-square test of ``contrasts @ params = 0`` (``fit.wald_test``) on the
    contrasts' directions that vary; directions with no variance (cells equal in every deal) carry no test and
    are left out, so df is the rank of what is left (0: nothing varies, chi2 0, p 1)."""
    covariance = contrasts @ fit.cov_params() @ contrasts.T
    values, vectors = np.linalg.eigh(covariance)
    keep = values > _NO_VARIANCE * _scale(fit)
    if not keep.any():
        return 0, 0.0, 1.0
    reduced = vectors[:, keep].T @ contrasts
    wald = fit.wald_test(reduced, scalar=True, use_f=False)
    return int(keep.sum()), float(wald.statistic), float(wald.pvalue)


@dataclass(frozen=True)
class Crossing:
    """Where one response curve crosses its target: ``value`` (interpolated between neighbouring cells, NaN if
    the line does not cross inside the swept range) and ``low``/``high``, the values where the pointwise band
    holds the target (``open_low``/``open_high``: the band holds it up to the range's end, so the range may go
    on)."""

    value: float
    low: float
    high: float
    open_low: bool
    open_high: bool


def crossing(x: Sequence[float], y: Sequence[float], low: Sequence[float], high: Sequence[float],
             target: float) -> Crossing:
    """The first crossing of ``target`` by the line through ``(x, y)`` (``x`` ascending) and the range where the
    band ``[low, high]`` holds the target around it (see the module docstring)."""
    x, y, low, high = (np.asarray(v, dtype=np.float64) for v in (x, y, low, high))
    keep = np.isfinite(x) & np.isfinite(y)
    x, y, low, high = x[keep], y[keep], low[keep], high[keep]
    value = float("nan")
    side = np.sign(y - target)
    for i in range(len(x) - 1):
        if side[i] == 0:
            value = float(x[i])
            break
        if side[i] * side[i + 1] < 0:
            value = float(np.interp(target, sorted((y[i], y[i + 1])),
                                    (x[i], x[i + 1]) if y[i] < y[i + 1] else (x[i + 1], x[i])))
            break
    else:
        if len(x) and side[-1] == 0:
            value = float(x[-1])
    grid = np.linspace(x.min(), x.max(), 2001) if len(x) > 1 else x
    holds = (np.interp(grid, x, np.where(np.isfinite(low), low, y)) <= target) & (
        np.interp(grid, x, np.where(np.isfinite(high), high, y)) >= target) if len(x) else np.zeros(0, bool)
    if not holds.any():
        return Crossing(value, float("nan"), float("nan"), False, False)
    if np.isfinite(value):  # the stretch of the band around the crossing
        at = int(np.argmin(np.abs(grid - value)))
        if not holds[at]:
            at = int(np.flatnonzero(holds)[np.argmin(np.abs(grid[holds] - value))])
        first = at
        while first > 0 and holds[first - 1]:
            first -= 1
        last = at
        while last < len(grid) - 1 and holds[last + 1]:
            last += 1
    else:
        first, last = int(np.flatnonzero(holds)[0]), int(np.flatnonzero(holds)[-1])
    return Crossing(value, float(grid[first]), float(grid[last]), first == 0, last == len(grid) - 1)


def numeric_keys(labels: Sequence[dict[str, str]], keys: Sequence[str]) -> list[str]:
    """The keys every cell sets to a number, with at least two different values."""
    found = []
    for key in keys:
        values = [cell.get(key) for cell in labels]
        try:
            numbers = {float(v) for v in values}
        except (TypeError, ValueError):
            continue
        if len(numbers) >= 2 and all(np.isfinite(n) for n in numbers):
            found.append(key)
    return found


__all__ = ["Crossing", "MainEffects", "crossing", "is_crossed", "main_effects", "numeric_keys"]
