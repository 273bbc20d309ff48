"""The seat tests on per-deal shares, and the exact equivalence test on first-place counts."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from analysis.stats.common import CONFIDENCE
from analysis.stats.intervals import _wilson
from analysis.stats.power import detectable_z


def exact_first_places(first: np.ndarray) -> np.ndarray:
    """First-place counts summed from shares 1/m (m <= 4 seats sharing), freed of float noise: multiples of
    1/12 stay exact (halves, quarters) and thirds come out as the nearest float, never 150.00000000000003."""
    return np.round(np.asarray(first, dtype=np.float64) * 12) / 12


def _tost_p(first_places: float, n: int, target: float, delta: float) -> float:
    """Exact equivalence p of ``first_places`` of ``n`` within ``target +- delta``: two one-sided binomial tests
    (``scipy.stats.binomtest``), the larger p. A fractional count (shared first places) is taken at its worst
    for each side: rounded down against the lower bound, up against the upper bound."""
    if n == 0:
        return 1.0
    k = float(exact_first_places(first_places))
    above_low = stats.binomtest(math.floor(k), n, target - delta, alternative="greater").pvalue
    below_high = stats.binomtest(math.ceil(k), n, target + delta, alternative="less").pvalue
    return float(max(above_low, below_high))


def weighted_sd(values: np.ndarray, weights: np.ndarray) -> float:
    """The standard deviation (ddof 1) of ``values`` repeated ``weights`` times (frequency weights)."""
    if weights.sum() < 2:
        return float("nan")
    return float(DescrStatsW(values, weights=weights, ddof=1).std)


def _mean_tests(values: np.ndarray, weights: np.ndarray, fair: float, delta: float) -> tuple[float, float, float,
                                                                                             float]:
    """(low, high, p vs fair, equivalence p) of a mean over units, by t: ``values`` repeated ``weights`` times
    (``DescrStatsW`` with frequency weights: the same tests as on the repeated values).

    When the units do not vary (every deal split alike) a t test has no
    variance to use: the deals then count as ``mean * n`` successes of ``n``
    (Wilson interval, exact binomial test, exact TOST), so a few alike
    deals are never taken as certainty.
    """
    n = int(weights.sum())
    if n == 0:
        return float("nan"), float("nan"), 1.0, 1.0
    described = DescrStatsW(values, weights=weights)
    mean = float(described.mean)
    if n < 2 or np.ptp(values[weights > 0]) <= 1e-12:
        successes = int(round(mean * n))
        low, high = _wilson(successes, n, CONFIDENCE)
        p = float(stats.binomtest(successes, n, fair).pvalue)
        return float(low), float(high), p, _tost_p(successes, n, fair, delta)
    p = float(described.ttest_mean(fair)[1])
    low, high = described.tconfint_mean(alpha=1 - CONFIDENCE)
    tost_p = float(described.ttost_mean(fair - delta, fair + delta)[0])
    return max(0.0, float(low)), min(1.0, float(high)), p, tost_p


def _hotelling(shares: np.ndarray, weights: np.ndarray, fair: float) -> tuple[float, float]:
    """Hotelling's T-squared that the per-deal seat shares have mean ``fair`` (all seats but the last, whose
    share is the rest), on ``shares`` repeated ``weights`` times: statsmodels ``test_mvmean``'s statistic and F
    reference (``T2 (n - k) / ((n - 1) k)`` on ``(k, n - k)`` degrees of freedom) with the frequency-weighted
    mean and covariance. A degenerate covariance falls back to the largest per-seat t test."""
    data = shares[:, :-1]
    n, k = float(weights.sum()), data.shape[1]
    if n > k + 1:
        mean = np.average(data, axis=0, weights=weights)
        covariance = np.atleast_2d(np.cov(data, rowvar=False, fweights=weights.astype(np.int64), ddof=1))
        try:
            gap = mean - fair
            t2 = n * gap @ np.linalg.solve(covariance, gap)
            statistic = t2 * (n - k) / ((n - 1) * k)
            p = float(stats.f.sf(statistic, k, n - k))
            if np.isfinite(p):
                return float(statistic), p
        except np.linalg.LinAlgError:
            pass
    return float("nan"), float(min(_mean_tests(shares[:, s], weights, fair, 0.01)[2] for s in range(shares.shape[1])))


@dataclass(frozen=True)
class PerDealTests:
    """Each seat's mean per-deal share with its t interval, p and equivalence p; the joint difference test."""

    share: np.ndarray
    low: np.ndarray
    high: np.ndarray
    seat_p: np.ndarray
    tost: np.ndarray
    test: str
    statistic: float
    p_value: float
    detectable: float  # the smallest seat gap these deals detect (two-sided alpha, power)


def per_deal_seat_tests(shares: np.ndarray, deals: np.ndarray, c) -> PerDealTests:
    """The tests on the per-deal shares ``shares`` (float ``[k, players]``, distinct vectors) held by ``deals``
    deals each, for context ``c`` (players, fair, delta, alpha, power): ``DescrStatsW`` with frequency weights
    per seat (t test, t interval, ``ttost_mean`` equivalence); jointly the t test of seat 0 (2 players) or
    Hotelling's T-squared (3-4 players)."""
    n = int(deals.sum())
    share = np.average(shares, axis=0, weights=deals) if n else np.full(c.players, np.nan)
    low, high, seat_p, tost = (np.empty(c.players) for _ in range(4))
    for s in range(c.players):
        low[s], high[s], seat_p[s], tost[s] = _mean_tests(shares[:, s], deals, c.fair, c.delta)
    if c.players == 2:
        test = "t test on per-deal shares (statsmodels DescrStatsW.ttest_mean, vs 50%)"
        statistic, p_value = float(share[0]), float(seat_p[0])
    else:
        test = "Hotelling's T-squared on per-deal shares (statsmodels test_mvmean's F statistic, equal shares)"
        statistic, p_value = _hotelling(shares, deals, c.fair)
    sd = max((weighted_sd(shares[:, s], deals) for s in range(c.players)), default=float("nan"))
    detectable = sd * detectable_z(c.alpha, c.power) / math.sqrt(n) if n > 2 and sd > 0 else float("nan")
    return PerDealTests(share, low, high, seat_p, tost, test, statistic, p_value, detectable)
