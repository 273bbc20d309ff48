"""Power and sample sizes: games needed, Cohen's h, the detectable difference."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from analysis.stats.common import StatsError


# ---------------------------------------------------------------- power


def games_needed(delta: float, power: float = 0.8, alpha: float = 0.05, base: float = 0.5, arms: int = 1) -> int:
    """Games that detect a win rate of ``base + delta`` against ``base`` (two-sided).

    Cohen's h (``proportion_effectsize``) and ``NormalIndPower().solve_power``.
    ``arms=1``: one run's rate against a known ``base`` (a seat against 50%;
    ``ratio=0``); this matches docs/statistics.md (1 point ~ 19,600, 2 ~ 4,900,
    5 ~ 780). ``arms=2``: games *per run* to compare two measured runs
    (``ratio=1``), twice as many.
    """
    _check_power_arguments(delta, power, alpha, base)
    if arms not in (1, 2):
        raise StatsError(f"games_needed: expected arms 1 (against a known base) or 2 (two runs), got {arms}")
    effect = abs(float(proportion_effectsize(base + delta, base)))
    n = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0 if arms == 1 else 1,
                                     alternative="two-sided")
    return int(math.ceil(float(np.squeeze(n)) - 1e-9))


def cohens_h(delta: float, base: float = 0.5) -> float:
    """Cohen's h of ``base + delta`` against ``base`` (``proportion_effectsize``)."""
    return abs(float(proportion_effectsize(base + delta, base)))


def detectable_z(alpha: float = 0.05, power: float = 0.8) -> float:
    """Standard errors between zero and the smallest effect a two-sided ``alpha`` test finds with ``power``:
    ``z_(1 - alpha/2) + z_power`` (the normal approximation ``NormalIndPower`` solves; 2.80 at 5% and 80%)."""
    return float(stats.norm.ppf(1 - alpha / 2) + stats.norm.ppf(power))


def solved(value: float | np.ndarray) -> float:
    """A statsmodels ``solve_power`` answer as a float (it returns a one-element array for some inputs)."""
    return float(np.squeeze(value))


def points_for_h(base: float, h: float) -> float:
    """The share change upward from ``base`` that equals Cohen's h (on the arcsine scale)."""
    angle = min(math.asin(math.sqrt(min(max(base, 0.0), 1.0))) + h / 2, math.pi / 2)
    return math.sin(angle) ** 2 - base


def _check_power_arguments(delta: float, power: float, alpha: float, base: float) -> None:
    if not 0 < base < 1:
        raise StatsError(f"expected a base share strictly between 0 and 1, got {base}")
    if delta == 0 or not 0 < base + delta < 1:
        raise StatsError(f"expected a non-zero gap that keeps base + delta strictly between 0 and 1, "
                         f"got base {base} and delta {delta}")
    if not 0 < alpha < 1 or not alpha < power < 1:
        raise StatsError(f"expected 0 < alpha < power < 1, got alpha {alpha} and power {power}")


def _tost_games(share: float, target: float, delta: float, alpha: float, power: float) -> float | None:
    """Games for a binomial TOST (target +- delta) to pass with ``power`` if the true share is ``share``.

    The TOST passes when the one-sided test against the nearer bound rejects,
    so this is a one-sided one-sample power calculation (Cohen's h against
    that bound, ``NormalIndPower(alternative="larger")``). None if the share
    is outside the equivalence bounds or on one of them (``0.45 - 0.5`` is just
    inside ``0.05`` in floating point): the TOST cannot pass while it holds.
    """
    gap = share - target
    if not abs(gap) < delta:
        return None
    bound = target + delta if gap >= 0 else target - delta
    effect = abs(float(proportion_effectsize(bound, share)))
    if effect < 1e-9:
        return None
    n = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0, alternative="larger")
    return float(np.squeeze(n))
