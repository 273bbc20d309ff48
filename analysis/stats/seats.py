"""Seat advantage: which design the records are, and the tests between equal players or in fixed seats."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats

from analysis.report.text import _confidence
from analysis.stats.common import CONFIDENCE, StatsError, VERDICT_NOT_MEASURED, _require
from analysis.stats.intervals import _wilson
from analysis.stats.power import _tost_games, detectable_z, points_for_h
from analysis.stats.seat_result import (
    DESIGN_CONFOUNDED,
    DESIGN_EQUAL,
    ESTIMAND_BOTS,
    SeatAdvantage,
    _SeatContext,
    _equal_lineup,
    _seat_result,
)
from analysis.stats.seat_tally import SeatTally, seat_tally
from analysis.stats.seat_tests import _tost_p, exact_first_places, per_deal_seat_tests, weighted_sd
from analysis.stats.seats_rotated import _rotated


def seat_advantage(records: pl.DataFrame | pl.LazyFrame | SeatTally, delta: float = 0.025, alpha: float = 0.05,
                   power: float = 0.8) -> SeatAdvantage:
    """Seat balance between equal players: shares per seat, a difference test and an equivalence test (+-delta).

    Which games count: with 2 players the games with a single winner (ties and
    stalls excluded, and counted in the result); with 3-4 players the games
    with a result, a shared first place counted as a fraction (1/m to each of
    m tied seats).

    Equal players, one game per deal: seat 0's wins by the exact
    ``scipy.stats.binomtest(k, n, p=0.5)`` (2 players) or
    ``scipy.stats.chisquare`` against equal shares (3-4), Wilson intervals,
    equivalence by two one-sided exact binomial tests per seat (a fractional
    count of shared first places taken at its worst for each side).

    Equal players, several games per deal (seat rotations of one deal share
    its shuffles and are not independent): each seat's share of the deal's
    counted games is one value per deal; a one-sample t test against the
    fair share (``scipy.stats.ttest_1samp``; 3-4 players jointly by
    Hotelling's T-squared, ``statsmodels test_mvmean``), t intervals, and
    equivalence by ``DescrStatsW.ttost_mean``. n counts deals.

    Mixed lineups with rotated seats (:func:`analysis.stats.seats_rotated._rotated`):
    the same per-deal tests on this lineup's shares, which compare each bot
    with itself in every seat of a deal, so the test is exact under "no seat
    effect" whatever the deals do for each bot; the shares are the lineup's,
    pulled toward fair by its bots' differences, so the verdict is
    "unbalanced" or :data:`VERDICT_NOT_MEASURED`, never "balanced". Mixed
    lineups in fixed seats: the raw shares, verdict
    :data:`VERDICT_NOT_MEASURED`.

    "Balanced" (equal players only) needs every seat's equivalence test to
    reject: an intersection-union test, no multiplicity correction.

    ``records`` may be a records table, a lazy frame (read a block of deals at
    a time: memory does not grow with the run) or its
    :class:`~analysis.stats.seat_tally.SeatTally`.
    """
    if not 0 < delta < 0.5 or not 0 < alpha < 0.5:
        raise StatsError(f"seat_advantage: expected 0 < delta < 0.5 and 0 < alpha < 0.5, got {delta}, {alpha}")
    if isinstance(records, pl.DataFrame):
        _require(records, ["game", "seat", "win", "tie", "rank"], "seat_advantage")
    tally = records if isinstance(records, SeatTally) else seat_tally(records)
    if tally.players < 2:
        raise StatsError("seat_advantage: expected records of games with at least 2 seats")
    context = _SeatContext(players=tally.players, games=tally.games, stalls=tally.stalls, ties=tally.ties,
                           delta=delta, alpha=alpha, power=power, blocked=tally.blocked)
    if not tally.mixed:
        return _equal_players(tally, context)
    if len(tally.lineups) == 1:
        return _confounded(tally, context)
    return _rotated(tally, context)


def _equal_players(t: SeatTally, c: _SeatContext) -> SeatAdvantage:
    if t.tested == t.counted_deals:
        return _equal_players_by_game(t, c)
    return _equal_players_by_deal(t, c)


def _equal_players_by_game(t: SeatTally, c: _SeatContext) -> SeatAdvantage:
    tested, first = t.tested, exact_first_places(t.first)
    if c.players == 2:
        test = "exact binomial test (scipy binomtest, p = 0.5)"
        statistic = float(first[0])
        p_value = float(stats.binomtest(int(first[0]), tested, p=0.5).pvalue) if tested else 1.0
        seat_p = np.full(2, p_value)
    else:
        test = "chi-square goodness of fit (scipy chisquare, equal shares)"
        if tested:
            result = stats.chisquare(first, np.full(c.players, tested * c.fair))
            statistic, p_value = float(result.statistic), float(result.pvalue)
        else:
            statistic, p_value = float("nan"), 1.0
        seat_p = np.array([float(stats.binomtest(int(round(k)), tested, c.fair).pvalue) if tested else float("nan")
                           for k in first])
    share = first / tested if tested else np.full(c.players, np.nan)
    low, high = _wilson(first, np.full(c.players, tested), CONFIDENCE)
    tost = np.array([_tost_p(first[s], tested, c.fair, c.delta) for s in range(c.players)])
    more = None
    if tested:
        needed = [_tost_games(float(share[s]), c.fair, c.delta, c.alpha, c.power)
                  for s in ([0] if c.players == 2 else range(c.players))]
        if all(n is not None for n in needed):
            more = max(0, int(math.ceil(max(needed) / (tested / c.games))) - c.games)
    handling = c.handling + ("" if c.players == 2 else
                              "; equivalence on fractional first places taken at the worse whole count")
    detectable = float("nan")
    if tested > 1:
        detectable = points_for_h(c.fair, detectable_z(c.alpha, c.power) / math.sqrt(tested))
    return _seat_result(c, tested, tested, "games", share, low, high, seat_p, tost, test, statistic, p_value,
                        more, handling, DESIGN_EQUAL, f"Wilson {_confidence(CONFIDENCE)}",
                        "TOST, two one-sided exact binomial tests (scipy binomtest)", detectable=detectable,
                        first=first)


def _equal_players_by_deal(t: SeatTally, c: _SeatContext) -> SeatAdvantage:
    shares, deals = t.share_vectors()
    tests = per_deal_seat_tests(shares, deals, c)
    more = _more_units(shares, deals, tests.share, c)
    handling = c.handling + f"; the deal is the unit ({t.tested:,} games in {t.counted_deals:,} deals)"
    return _seat_result(c, t.tested, t.counted_deals, "deals", tests.share, tests.low, tests.high, tests.seat_p,
                        tests.tost, tests.test, tests.statistic, tests.p_value, more, handling, DESIGN_EQUAL,
                        f"t {_confidence(CONFIDENCE)} on per-deal shares",
                        "TOST on per-deal shares (statsmodels DescrStatsW.ttost_mean)", detectable=tests.detectable,
                        first=exact_first_places(t.first))


def _more_units(shares: np.ndarray, deals: np.ndarray, share: np.ndarray, c: _SeatContext) -> int | None:
    """Units the per-seat t-TOST would need with ``power`` if the estimates held (one-sided normal power,
    the nearer bound: ``((z_(1-alpha) + z_power) sd / room)^2``)."""
    needed = []
    factor = stats.norm.ppf(1 - c.alpha) + stats.norm.ppf(c.power)
    units = int(deals.sum())
    for s in ([0] if c.players == 2 else range(c.players)):
        room = c.delta - abs(float(share[s]) - c.fair)
        sd = weighted_sd(shares[:, s], deals)
        if not room > 0:
            return None
        if sd > 0:
            needed.append(float((factor * sd / room) ** 2))
    return max(0, int(math.ceil(max(needed, default=0))) - units)


def _confounded(t: SeatTally, c: _SeatContext) -> SeatAdvantage:
    tested, first = t.tested, exact_first_places(t.first)
    share = first / tested if tested else np.full(c.players, np.nan)
    low, high = _wilson(first, np.full(c.players, tested), CONFIDENCE)
    lineup = ",".join(next(iter(t.lineups)))
    note = (f"each seat always holds the same bot ({lineup}), so a seat's share is also its bot's; seat balance "
            f"between equal players needs the same bot in every seat (e.g. {_equal_lineup(t.bot_wins, c.players)}) "
            "or --rotate-seats")
    nan = np.full(c.players, np.nan)
    return _seat_result(c, tested, tested, "games", share, low, high, nan, nan, "none (bots and seats confounded)",
                        float("nan"), float("nan"), None, c.handling, DESIGN_CONFOUNDED,
                        f"Wilson {_confidence(CONFIDENCE)}", "none", note, verdict=VERDICT_NOT_MEASURED, first=first,
                        estimand=ESTIMAND_BOTS)


def max_half_width(records: pl.DataFrame | pl.LazyFrame) -> float:
    """The largest half-width of a seat's interval in :func:`seat_advantage` (the headline's share, counted the
    headline's way; Wilson with one game a deal, else t over deals)."""
    seats = seat_advantage(records).seats
    return float(((seats["share_high"] - seats["share_low"]) / 2).max())


def half_width_reached(records: pl.DataFrame | pl.LazyFrame, target: float) -> bool:
    """True when every seat's interval of the headline's share is at most ``target`` wide on each side."""
    return max_half_width(records) <= target
