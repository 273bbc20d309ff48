"""Seat advantage with mixed lineups and rotated seats: a Bradley-Terry model with seat and bot terms."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
from scipy import stats

from analysis.report.text import _confidence, _pct
from analysis.stats.common import CONFIDENCE, VERDICT_NOT_MEASURED, VERDICT_UNBALANCED
from analysis.stats.power import detectable_z
from analysis.stats.seat_result import (
    DESIGN_ADJUSTED,
    LOPSIDED_SHARE,
    SeatAdvantage,
    _SeatContext,
    _seat_matrix,
    _seat_result,
)
from analysis.stats.skill import _comparisons, _logit


def _adjusted(records: pl.DataFrame, counted: pl.DataFrame, c: _SeatContext) -> SeatAdvantage:
    """Seat shares between equal players from a Bradley-Terry model with seat and bot terms.

    Every pair of seats in a game with different places is one comparison
    (shared places and stalls dropped); logit P(seat a places above seat b)
    = seat term(a) - seat term(b) + bot term(a) - bot term(b), seat 0 and the
    first bot fixed at 0, fitted by statsmodels ``Logit`` with a covariance
    clustered by deal (``cov_type="cluster"``): a deal's games and a game's
    comparisons are not independent. The seat terms give the share of first
    places each seat would take among equal players (Plackett-Luce: the
    softmax of the seat terms), with delta-method intervals; the joint test
    is the clustered Wald test that every seat term is 0; equivalence by two
    one-sided tests per seat. With few deals a clustered variance is biased
    low, so the references are Student's t and F with (deals - 1) degrees of
    freedom (``use_t=True``) rather than the normal and chi-square.
    """
    tested = counted["game"].n_unique()
    comparisons = _comparisons(records).filter(pl.col("result") != 0.5)
    bots = tuple(records.sort("game", "seat")["bot"].unique(maintain_order=True).to_list())
    lopsided_note = _lopsided(comparisons, bots, records, c.players)
    deals = comparisons["deal"].n_unique()
    fit = None
    if comparisons.height:
        seat_a, seat_b = comparisons["seat_a"].to_numpy(), comparisons["seat_b"].to_numpy()
        bot_a, bot_b = comparisons["bot_a"].to_numpy(), comparisons["bot_b"].to_numpy()
        design = np.column_stack([(seat_a == s).astype(float) - (seat_b == s) for s in range(1, c.players)]
                                 + [(bot_a == b).astype(float) - (bot_b == b) for b in bots[1:]])
        groups = comparisons["deal"].rank("dense").to_numpy()
        fit = _logit(comparisons["result"].to_numpy(), design, groups, use_t=True)
    share_method = f"Bradley-Terry seat terms, deal-clustered, delta method, t {_confidence(CONFIDENCE)}"
    test = "clustered Wald test of the seat terms (statsmodels Logit, cov_type='cluster', F reference)"
    equivalence = "two one-sided t tests on the equal-player shares"
    if fit is None:
        note = ("the model with seat and bot terms cannot be fitted (a bot never lost, or no decided game): "
                + (lopsided_note or "the lineup tells nothing about seat balance between equal players"))
        nan = np.full(c.players, np.nan)
        return _seat_result(c, tested, deals, "deals", nan, nan, nan, nan, nan, test, float("nan"), float("nan"),
                            None, c.handling, DESIGN_ADJUSTED, share_method, equivalence, note,
                            verdict=VERDICT_NOT_MEASURED)
    k = c.players - 1
    terms = np.r_[0.0, np.asarray(fit.params)[:k]]
    share = np.exp(terms - terms.max()) / np.exp(terms - terms.max()).sum()
    jacobian = (np.diag(share) - np.outer(share, share))[:, 1:]
    seat_cov = np.asarray(fit.cov_params())[:k, :k]
    se = np.sqrt(np.clip(np.diag(jacobian @ seat_cov @ jacobian.T), 0, None))
    reference = stats.t(df=max(deals - 1, 1))
    z = reference.ppf(0.5 + CONFIDENCE / 2)
    low, high = np.clip(share - z * se, 0, 1), np.clip(share + z * se, 0, 1)
    safe_se = np.where(se > 0, se, np.inf)
    seat_p = 2 * reference.sf(np.abs(share - c.fair) / safe_se)
    tost = np.maximum(reference.sf((share - (c.fair - c.delta)) / safe_se),
                      reference.cdf((share - (c.fair + c.delta)) / safe_se))
    wald = fit.wald_test(np.eye(fit.params.size)[:k], scalar=True)
    statistic, p_value = float(wald.statistic), float(wald.pvalue)
    # Every deal went the same way in all its rotations (its bots, not its seats, decided it): the clustered
    # variance of the seat terms is zero up to rounding, and tests on it would read the rounding noise.
    degenerate = not np.all(np.diag(seat_cov) > 1e-12)
    if degenerate:
        low = high = seat_p = tost = np.full(c.players, np.nan)
        statistic, p_value = float("nan"), float("nan")
    room = c.delta - np.abs(share - c.fair)
    more = None
    if np.all(room > 0) and not degenerate:
        factor = stats.norm.ppf(1 - c.alpha) + stats.norm.ppf(c.power)
        more = max(0, int(math.ceil(deals * float(np.max((se * factor / room) ** 2)))) - deals)
    verdict = None
    if lopsided_note:  # never "balanced"; a significant seat term still says "unbalanced"
        verdict = VERDICT_UNBALANCED if p_value < c.alpha else VERDICT_NOT_MEASURED
    handling = (f"pairs of seats with different places ({comparisons.height:,} comparisons in {tested:,} games); "
                f"shared first places ({c.ties:,} games) and stalls ({c.stalls:,}) dropped")
    return _seat_result(c, tested, deals, "deals", share, low, high, seat_p, tost, test, statistic, p_value, more,
                        handling, DESIGN_ADJUSTED, share_method, equivalence, lopsided_note, verdict=verdict,
                        first=_seat_matrix(counted, c.players, "game").sum(axis=0) if tested else None,
                        detectable=detectable_z(c.alpha, c.power) * float(np.max(se)))


def _lopsided(comparisons: pl.DataFrame, bots: tuple[str, ...], records: pl.DataFrame, players: int) -> str:
    """A note when one bot takes more than :data:`LOPSIDED_SHARE` of its decided comparisons against another."""
    worst = None
    for i, a in enumerate(bots):
        for b in bots[i + 1:]:
            ab = comparisons.filter((pl.col("bot_a") == a) & (pl.col("bot_b") == b))
            ba = comparisons.filter((pl.col("bot_a") == b) & (pl.col("bot_b") == a))
            n = ab.height + ba.height
            if not n:
                continue
            share_a = (float(ab["result"].sum()) + ba.height - float(ba["result"].sum())) / n
            strong, weak, share = (a, b, share_a) if share_a >= 0.5 else (b, a, 1 - share_a)
            if share > LOPSIDED_SHARE and (worst is None or share > worst[2]):
                worst = (strong, weak, share)
    if worst is None:
        return ""
    strong, weak, share = worst
    return (f"{strong} takes {_pct(share)} of its decided comparisons against {weak}, so this lineup tells little "
            f"about seat balance between equal players; play {','.join([strong] * players)} to measure it")
