"""Skill gradient: paired shares of points per deal and Bradley-Terry bot ratings."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats
from statsmodels.discrete.discrete_model import Logit
from statsmodels.stats.weightstats import DescrStatsW
from statsmodels.tools.sm_exceptions import ConvergenceWarning, PerfectSeparationWarning

from analysis.report.text import _confidence, _interval_pct, _pct, format_p
from analysis.stats.common import CONFIDENCE, ELO_PER_LOGIT, StatsError, _players, _require
from analysis.stats.intervals import _wilson


# ---------------------------------------------------------------- skill gradient


def _comparisons(records: pl.DataFrame) -> pl.DataFrame:
    """Every pair of seats in every game: ``game, deal, seat_a, seat_b, bot_a, bot_b, result``.

    ``seat_a < seat_b``; ``result`` is seat_a's points against seat_b: 1 for
    a better rank, 0 for a worse one, 0.5 for the same rank or a stall.
    """
    columns = ["game", "deal", "seat", "bot", "rank"]
    left = records.select(columns)
    right = records.select("game", pl.col("seat").alias("seat_b"), pl.col("bot").alias("bot_b"),
                           pl.col("rank").alias("rank_b"))
    return (
        left.join(right, on="game")
        .filter(pl.col("seat") < pl.col("seat_b"))
        .select(
            "game", "deal", pl.col("seat").alias("seat_a"), "seat_b", pl.col("bot").alias("bot_a"), "bot_b",
            pl.when(pl.col("rank").is_null() | pl.col("rank_b").is_null() | (pl.col("rank") == pl.col("rank_b")))
            .then(0.5).when(pl.col("rank") < pl.col("rank_b")).then(1.0).otherwise(0.0).alias("result"),
        )
    )


@dataclass(frozen=True)
class SkillGradient:
    """Does skill matter? Paired pairwise shares between bots, and Bradley-Terry ratings.

    ``pairwise`` columns: ``bot_a``, ``bot_b``, ``deals`` (paired units),
    ``games``, ``comparisons``, ``points_a``, ``share`` (bot A's points
    against bot B, a tie or stall = half), ``share_low``, ``share_high``,
    ``p_value`` (vs 50%), ``method``. ``ratings`` columns: ``bot``, ``rating``
    (logit; the reference bot is 0), ``se``, ``low``, ``high`` (t 95%, deals - 1 df),
    ``elo`` (400/ln 10 per logit), ``comparisons`` (against other bots).
    ``seat_edge`` is the logit edge of the lower-numbered seat of a pair.
    """

    players: int
    bots: tuple[str, ...]
    reference: str
    pairwise: pl.DataFrame
    ratings: pl.DataFrame
    seat_edge: float
    seat_edge_se: float
    comparisons: int
    separated: bool  # the plain fit did not converge (perfect separation); a virtual-draw prior was added
    pair_method: str
    rating_method: str

    @property
    def strongest(self) -> str:
        return str(self.ratings.sort("rating", descending=True)["bot"][0])

    @property
    def weakest(self) -> str:
        return str(self.ratings.sort("rating")["bot"][0])

    def share(self, bot: str, against: str) -> float:
        """``bot``'s points share against ``against``: measured if they met, else Bradley-Terry's."""
        for a, b, flip in ((bot, against, False), (against, bot, True)):
            row = self.pairwise.filter((pl.col("bot_a") == a) & (pl.col("bot_b") == b))
            if row.height:
                value = float(row["share"][0])
                return 1 - value if flip else value
        ratings = dict(self.ratings.select("bot", "rating").iter_rows())
        return float(1 / (1 + math.exp(ratings[against] - ratings[bot])))

    def gradient_too_flat(self, threshold: float = 0.05) -> bool:
        """True if the strongest bot's share against the weakest is within ``threshold`` of 50%."""
        return abs(self.share(self.strongest, self.weakest) - 0.5) <= threshold

    def describe(self) -> str:
        lines = [f"skill gradient ({self.players} players, {self.comparisons:,} pairwise comparisons)"]
        for row in self.pairwise.to_dicts():
            lines.append(
                f"  {row['bot_a']} vs {row['bot_b']}: {_pct(row['share'])} of points "
                f"{_interval_pct(row['share_low'], row['share_high'])} ({row['method']}), "
                f"n = {row['deals']:,} deals ({row['games']:,} games), {format_p(row['p_value'])} vs 50%"
            )
        lines.append(f"  ratings ({self.rating_method}; {self.reference} = 0):")
        for row in self.ratings.sort("rating", descending=True).to_dicts():
            lines.append(f"    {row['bot']:<12} {row['rating']:+.2f} +- {row['se']:.2f} logit "
                         f"(Elo {row['elo']:+.0f})")
        lines.append(f"  first-seat edge {self.seat_edge:+.3f} +- {self.seat_edge_se:.3f} logit")
        if self.separated:
            lines.append("  perfect separation (a pairing in one seat order was never lost): "
                         "ratings use a virtual-draw prior")
        return "\n".join(lines)


def skill_gradient(records: pl.DataFrame, reference: str | None = None,
                   confidence: float = CONFIDENCE) -> SkillGradient:
    """Pairwise shares between bots, paired by deal, and Bradley-Terry ratings.

    Comparisons: every pair of seats in a game is one comparison (for 2
    players, the game itself); the better rank scores 1, the same rank or a
    stall 0.5 for both.

    Pairwise shares: the games of one deal (all its seat rotations, same seed)
    form one paired unit, as in fishtest's pentanomial model: per deal, bot A's
    share of the points of its comparisons with bot B; the estimate is the
    mean over deals and the interval a t interval on those per-deal shares
    (``scipy.stats.ttest_1samp(...).confidence_interval``; the p-value is the
    same test against 0.5), clipped to [0, 1]. If the per-deal shares do not
    vary (one deal, or every deal alike) a t interval would be empty, so it is
    a Wilson interval on the number of deals and the p-value an exact binomial
    test on deal units. Never games as independent units.

    Ratings: Bradley-Terry by logistic regression (statsmodels ``Logit``,
    Newton) of each comparison's result on a +-1 design: a constant (the
    lower-numbered seat's edge), +1 for the lower seat's bot and -1 for the
    higher seat's, the ``reference`` bot (default: the first bot seated)
    fixed at 0; a tie or stall enters as 0.5. Comparisons of a bot with
    itself inform only the seat edge. If the fit does not converge (perfect
    separation: a bot that never lost), two virtual drawn comparisons per
    pairing that occurred (one in each seat order, as BayesElo's draw prior)
    keep the ratings finite; ``separated`` says so.
    """
    _require(records, ["game", "deal", "seat", "bot", "rank"], "skill_gradient")
    bots = tuple(records.sort("game", "seat")["bot"].unique(maintain_order=True).to_list())
    if len(bots) < 2:
        raise StatsError(f"skill_gradient: expected records with at least 2 different bots, got {', '.join(bots)}")
    reference = bots[0] if reference is None else reference
    if reference not in bots:
        raise StatsError(f"skill_gradient: expected a reference bot among {', '.join(bots)}, got {reference!r}")
    comparisons = _comparisons(records)
    pairwise = _pairwise(comparisons, bots, confidence)
    ratings, edge, edge_se, separated = _bradley_terry(comparisons, bots, reference, confidence)
    return SkillGradient(
        players=_players(records), bots=bots, reference=reference, pairwise=pairwise, ratings=ratings,
        seat_edge=edge, seat_edge_se=edge_se, comparisons=comparisons.height, separated=separated,
        pair_method=f"t {_confidence(confidence)} on per-deal shares (deals as paired units)",
        rating_method="Bradley-Terry, statsmodels Logit on a +-1 design" + (" with a virtual-draw prior"
                                                                             if separated else ""),
    )


def _pairwise(comparisons: pl.DataFrame, bots: tuple[str, ...], confidence: float) -> pl.DataFrame:
    order = {bot: i for i, bot in enumerate(bots)}
    oriented = (
        comparisons.filter(pl.col("bot_a") != pl.col("bot_b"))
        .with_columns(
            (pl.col("bot_a").replace_strict(order, return_dtype=pl.Int64)
             < pl.col("bot_b").replace_strict(order, return_dtype=pl.Int64)).alias("in_order"))
        .select(
            pl.when(pl.col("in_order")).then(pl.col("bot_a")).otherwise(pl.col("bot_b")).alias("first"),
            pl.when(pl.col("in_order")).then(pl.col("bot_b")).otherwise(pl.col("bot_a")).alias("second"),
            "deal", "game",
            pl.when(pl.col("in_order")).then(pl.col("result")).otherwise(1 - pl.col("result")).alias("points"),
        )
    )
    per_deal = oriented.group_by("first", "second", "deal").agg(
        pl.col("points").sum(), pl.len().alias("comparisons"), pl.col("game").n_unique().alias("games"))
    rows = []
    for (first, second), unit in per_deal.group_by("first", "second"):
        shares = (unit.select((pl.col("points") / pl.col("comparisons")).alias("share"))
                  .group_by("share").len().sort("share"))  # sorted: the same sums in any group order
        mean, low, high, p, method = _paired_share(shares["share"].to_numpy(), confidence,
                                                   shares["len"].to_numpy())
        rows.append({
            "bot_a": first, "bot_b": second, "deals": unit.height, "games": int(unit["games"].sum()),
            "comparisons": int(unit["comparisons"].sum()), "points_a": float(unit["points"].sum()),
            "share": mean, "share_low": low, "share_high": high, "p_value": p, "method": method,
        })
    schema = {"bot_a": pl.String, "bot_b": pl.String, "deals": pl.Int64, "games": pl.Int64,
              "comparisons": pl.Int64, "points_a": pl.Float64, "share": pl.Float64, "share_low": pl.Float64,
              "share_high": pl.Float64, "p_value": pl.Float64, "method": pl.String}
    table = pl.DataFrame(rows, schema=schema)
    return table.with_columns(
        pl.col("bot_a").replace_strict(order, return_dtype=pl.Int64).alias("_a"),
        pl.col("bot_b").replace_strict(order, return_dtype=pl.Int64).alias("_b"),
    ).sort("_a", "_b").drop("_a", "_b")


def _paired_share(shares: np.ndarray, confidence: float,
                  deals: np.ndarray | None = None) -> tuple[float, float, float, float, str]:
    """Mean of per-deal shares with a t interval (or Wilson on deal units if they do not vary); ``deals``: how many
    deals had each share (distinct shares of a tally; the same t test and interval by statsmodels ``DescrStatsW``
    with frequency weights)."""
    deals = np.ones(shares.size) if deals is None else np.asarray(deals, dtype=np.float64)
    described = DescrStatsW(shares, weights=deals)
    n = int(round(float(deals.sum())))
    mean = float(described.mean)
    level = _confidence(confidence)
    if n < 2 or np.all(shares == shares[0]):
        low, high = _wilson(mean * n, n, confidence)
        wins = int(round(mean * n))
        p = 1.0 if mean == 0.5 else float(stats.binomtest(wins, n, p=0.5, alternative="two-sided").pvalue)
        return mean, float(low), float(high), p, f"Wilson {level} on deal units (no variation between deals)"
    low, high = described.tconfint_mean(alpha=1 - confidence)
    p = float(described.ttest_mean(0.5)[1])
    return mean, max(0.0, float(low)), min(1.0, float(high)), p, f"t {level} on per-deal shares"


class PairShares:
    """``bot``'s per-deal share of the points of its comparisons with ``other`` (a tie or stall half a point),
    tallied a block of whole deals at a time: each distinct share with how many deals had it, and the games.
    :meth:`share` is :func:`skill_gradient`'s pairwise share of that pair (mean, interval, p, method)."""

    def __init__(self, bot: str, other: str):
        self.bot, self.other = bot, other
        self.deals: dict[float, int] = {}
        self.games = 0

    def add(self, records: pl.DataFrame) -> None:
        """Tally ``records`` (whole deals)."""
        met = _comparisons(records).filter(pl.col("bot_a").is_in([self.bot, self.other])
                                           & pl.col("bot_b").is_in([self.bot, self.other])
                                           & (pl.col("bot_a") != pl.col("bot_b")))
        per_deal = met.group_by("deal").agg(
            pl.when(pl.col("bot_a") == self.bot).then(pl.col("result")).otherwise(1 - pl.col("result")).sum()
            .alias("points"), pl.len().alias("comparisons"), pl.col("game").n_unique().alias("games"))
        self.games += int(per_deal["games"].sum())
        shares = (per_deal.select((pl.col("points") / pl.col("comparisons")).alias("share"))
                  .group_by("share").len().sort("share"))  # sorted: the same sums in any group order
        for share, count in shares.iter_rows():
            self.deals[share] = self.deals.get(share, 0) + count

    @property
    def units(self) -> int:
        return sum(self.deals.values())

    def share(self, confidence: float = CONFIDENCE) -> tuple[float, float, float, float, str]:
        """(mean share, low, high, p against 50%, method); NaN without a deal where they met."""
        if not self.deals:
            return float("nan"), float("nan"), float("nan"), float("nan"), "no comparison"
        shares = np.array(sorted(self.deals), dtype=np.float64)
        return _paired_share(shares, confidence, np.array([self.deals[s] for s in sorted(self.deals)]))


def _bradley_terry(comparisons: pl.DataFrame, bots: tuple[str, ...], reference: str,
                   confidence: float) -> tuple[pl.DataFrame, float, float, bool]:
    rated = [b for b in bots if b != reference]
    bot_a = comparisons["bot_a"].to_numpy()
    bot_b = comparisons["bot_b"].to_numpy()
    design = np.column_stack([np.ones(len(bot_a))] + [(bot_a == b).astype(float) - (bot_b == b) for b in rated])
    result_values = comparisons["result"].to_numpy()
    groups = comparisons["deal"].rank("dense").to_numpy()
    fit = _logit(result_values, design, groups)
    separated = fit is None
    if separated:
        met = comparisons.select("bot_a", "bot_b").unique()
        prior = []
        for a, b in met.iter_rows():
            row = np.array([1.0] + [float(a == r) - float(b == r) for r in rated])
            mirrored = row.copy()
            mirrored[1:] *= -1
            prior.extend([row, mirrored])
        design = np.vstack([design, np.array(prior)])
        prior_groups = groups.max(initial=0) + 1 + np.arange(len(prior))  # each virtual comparison its own cluster
        fit = _logit(np.r_[result_values, np.full(len(prior), 0.5)], design, np.r_[groups, prior_groups])
        if fit is None:
            raise StatsError("skill_gradient: the Bradley-Terry fit did not converge even with a virtual-draw prior "
                             "(expected every bot linked to the others by games)")
    params, se = np.asarray(fit.params), np.asarray(fit.bse)
    # Few deals bias a clustered variance low: Student's t with (deals - 1) degrees of freedom, as the seat test.
    z = stats.t.ppf(0.5 + confidence / 2, max(comparisons["deal"].n_unique() - 1, 1))
    rating = {reference: (0.0, 0.0)} | {b: (params[i + 1], se[i + 1]) for i, b in enumerate(rated)}
    counts = {b: int(((bot_a == b) & (bot_b != b)).sum() + ((bot_b == b) & (bot_a != b)).sum()) for b in bots}
    ratings = pl.DataFrame({
        "bot": list(bots),
        "rating": [float(rating[b][0]) for b in bots],
        "se": [float(rating[b][1]) for b in bots],
        "low": [float(rating[b][0] - z * rating[b][1]) for b in bots],
        "high": [float(rating[b][0] + z * rating[b][1]) for b in bots],
        "elo": [float(ELO_PER_LOGIT * rating[b][0]) for b in bots],
        "comparisons": [counts[b] for b in bots],
    })
    return ratings, float(params[0]), float(se[0]), separated


def _logit(y: np.ndarray, design: np.ndarray, groups: np.ndarray | None = None, use_t: bool = False):
    """statsmodels Logit by Newton's method, its covariance clustered by ``groups`` when given
    (``cov_type="cluster"``, t and F references with ``use_t``); None if it separates or does not converge."""
    cov = {} if groups is None else {"cov_type": "cluster", "cov_kwds": {"groups": np.asarray(groups)},
                                     "use_t": use_t}
    with warnings.catch_warnings():
        warnings.simplefilter("error", PerfectSeparationWarning)
        warnings.simplefilter("ignore", ConvergenceWarning)
        try:
            fit = Logit(y, design).fit(method="newton", maxiter=100, disp=0, **cov)
        except (PerfectSeparationWarning, np.linalg.LinAlgError):
            return None
    if not fit.mle_retvals.get("converged", False) or not np.all(np.isfinite(fit.bse)):
        return None
    return fit
