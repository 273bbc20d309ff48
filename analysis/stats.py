"""Statistics over a run's records: seat advantage, skill, components, game length, paired cells.

Game-independent: every function reads the records table (one row per game and
seat: ``game, deal, rotation, seed, seat, bot, score, rank, win, tie, turns,
end`` plus game columns; ``rank`` null means a stall) and, where it needs one,
the events table (keyed by ``game``, with ``seat`` and a component column such
as ``kind``).

Nothing is hand-rolled that scipy or statsmodels has (docs/statistics.md), and
every library call names its method, because the defaults are traps
(``binomtest().proportion_ci`` is Clopper-Pearson, ``proportion_confint`` is
Wald, ``multipletests`` is Holm-Sidak). Each result is a small frozen
dataclass or a polars DataFrame with explicit columns, carries the names of the
methods it used, and has a ``describe()`` (or a ``format_*`` helper) that
writes it fishtest-style::

    seat 0 wins 53.1% [52.4, 53.8] (Wilson 95%), n = 20,000, binomial p < 0.001 vs 50%: unbalanced

:func:`methods_used` lists every test and interval for a report's methods
section. Bootstraps are seeded (:data:`SEED`), so a report is reproducible.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats
from statsmodels.discrete.discrete_model import Logit
from statsmodels.regression.linear_model import OLS
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.multivariate import test_mvmean
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import (
    binom_tost,
    confint_proportions_2indep,
    proportion_confint,
    proportion_effectsize,
    test_proportions_2indep,
)
from statsmodels.stats.weightstats import DescrStatsW
from statsmodels.tools.sm_exceptions import ConvergenceWarning, PerfectSeparationWarning

from analysis.report.text import _confidence, _interval_pct, _pct, _signed_points, format_p

CONFIDENCE = 0.95
SEED = 20240611  # every bootstrap draws from default_rng(SEED) unless told otherwise
BOOTSTRAP_RESAMPLES = 4999
# Above this many values a mean's interval is a t interval: the bootstrap's
# cost grows with n while the central limit theorem has long made t exact enough.
BOOTSTRAP_MAX_N = 2000
_BOOTSTRAP_BATCH_VALUES = 2_000_000  # resampled values held in memory at once
ELO_PER_LOGIT = 400 / math.log(10)
CORRECTIONS = ("holm", "fdr_bh", "bonferroni")
WILCOXON_ZERO_METHOD = "wilcox"  # zero differences are dropped before ranking

VERDICT_BALANCED = "balanced"
VERDICT_UNBALANCED = "unbalanced"
VERDICT_UNSURE = "not enough games yet"
VERDICT_NOT_MEASURED = "not measured by this lineup"


class StatsError(ValueError):
    """Records or arguments a statistic cannot use; the message says what was expected."""


# ---------------------------------------------------------------- input checks


def _require(frame: pl.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise StatsError(f"{what}: expected columns {', '.join(missing)} (records written by glade play), "
                         f"got {', '.join(frame.columns) or 'none'}")
    if frame.height == 0:
        raise StatsError(f"{what}: expected at least one row, got an empty table")


def _players(records: pl.DataFrame) -> int:
    return int(records["seat"].max()) + 1


def _per_game(records: pl.DataFrame) -> pl.DataFrame:
    """One row per game: turns, end, first places, and whether it stalled (no rank)."""
    return records.group_by("game").agg(
        (pl.col("deal") if "deal" in records.columns else pl.col("game")).first().alias("deal"),
        pl.col("turns").first(),
        pl.col("end").first(),
        pl.col("win").sum().alias("first_places"),
        pl.col("rank").is_null().all().alias("stalled"),
    ).sort("game")


# ---------------------------------------------------------------- proportions


def _wilson(k: np.ndarray | float, n: np.ndarray | float, confidence: float) -> tuple[np.ndarray, np.ndarray]:
    """Wilson interval (statsmodels); an empty sample gives [0, 1]. ``k`` may be fractional."""
    k, n = np.asarray(k, dtype=np.float64), np.asarray(n, dtype=np.float64)
    safe = np.where(n > 0, n, 1.0)
    low, high = proportion_confint(np.where(n > 0, k, 0.0), safe, alpha=1 - confidence, method="wilson")
    return np.where(n > 0, low, 0.0), np.where(n > 0, high, 1.0)


@dataclass(frozen=True)
class Proportion:
    """``k`` successes of ``n`` with a Wilson interval. ``k`` may be fractional (shared places)."""

    k: float
    n: int
    rate: float
    low: float
    high: float
    confidence: float = CONFIDENCE
    method: str = "Wilson"

    @property
    def half_width(self) -> float:
        """Half the interval's width (Wilson intervals are not symmetric about the rate)."""
        return (self.high - self.low) / 2

    def describe(self, label: str = "", what: str = "wins") -> str:
        """``seat 0 wins 53.1% [52.4, 53.8] (Wilson 95%), n = 20,000``."""
        head = f"{label} {what}".strip()
        return (f"{head} {_pct(self.rate)} {_interval_pct(self.low, self.high)} "
                f"({self.method} {_confidence(self.confidence)}), n = {self.n:,}")


def proportion(k: float, n: int, confidence: float = CONFIDENCE) -> Proportion:
    """The share ``k / n`` with its Wilson interval (``proportion_confint(method="wilson")``)."""
    if n < 0 or k < 0 or k > n:
        raise StatsError(f"proportion: expected 0 <= k <= n, got k = {k}, n = {n}")
    low, high = _wilson(k, n, confidence)
    rate = k / n if n else float("nan")
    return Proportion(k=k, n=int(n), rate=rate, low=float(low), high=float(high), confidence=confidence)


# ---------------------------------------------------------------- means


@dataclass(frozen=True)
class MeanInterval:
    """A mean and its interval, with the method that made it."""

    n: int
    mean: float
    low: float
    high: float
    method: str

    def describe(self, label: str = "mean", digits: int = 2) -> str:
        """``mean score 10.12 [10.09, 10.15] (t 95%), n = 40,000``."""
        return (f"{label} {self.mean:.{digits}f} [{self.low:.{digits}f}, {self.high:.{digits}f}] ({self.method}), "
                f"n = {self.n:,}")


def mean_interval(values: np.ndarray, confidence: float = CONFIDENCE, seed: int = SEED) -> MeanInterval:
    """Mean with a percentile bootstrap interval (``scipy.stats.bootstrap``, seeded), or a t interval.

    Up to :data:`BOOTSTRAP_MAX_N` values: ``bootstrap(method="percentile")``
    with :data:`BOOTSTRAP_RESAMPLES` resamples from ``default_rng(seed)``
    (percentile rather than BCa: BCa's jackknife costs n squared). Above that
    the t interval on the standard error (``scipy.stats.t``), which the
    central limit theorem makes accurate at that size. The method string says
    which one was used. Fewer than two values give a NaN interval.
    """
    values = np.asarray(values, dtype=np.float64)
    n = values.size
    mean = float(values.mean()) if n else float("nan")
    level = _confidence(confidence)
    if n < 2:
        return MeanInterval(n, mean, float("nan"), float("nan"), "no interval (fewer than 2 values)")
    if n > BOOTSTRAP_MAX_N:
        sem = float(values.std(ddof=1)) / math.sqrt(n)
        low, high = stats.t.interval(confidence, df=n - 1, loc=mean, scale=sem) if sem > 0 else (mean, mean)
        return MeanInterval(n, mean, float(low), float(high), f"t {level}")
    if np.all(values == values[0]):
        return MeanInterval(n, mean, mean, mean, f"bootstrap percentile {level} (no variation)")
    result = stats.bootstrap(
        (values,), np.mean, n_resamples=BOOTSTRAP_RESAMPLES, batch=max(1, _BOOTSTRAP_BATCH_VALUES // n),
        vectorized=True, confidence_level=confidence, method="percentile", rng=np.random.default_rng(seed),
    )
    interval = result.confidence_interval
    return MeanInterval(n, mean, float(interval.low), float(interval.high), f"bootstrap percentile {level}")


def _one_per_cluster(clusters: np.ndarray | None, n: int) -> bool:
    return clusters is None or np.unique(clusters).size == n


def _cluster_means(values: np.ndarray, clusters: np.ndarray) -> np.ndarray:
    """The mean of ``values`` per cluster, clusters in sorted order."""
    _, codes = np.unique(clusters, return_inverse=True)
    return np.bincount(codes, weights=values) / np.bincount(codes)


def clustered_mean(values: np.ndarray, clusters: np.ndarray | None, confidence: float = CONFIDENCE,
                   seed: int = SEED) -> MeanInterval:
    """:func:`mean_interval` with the cluster (deal) as the unit: a deal's values are averaged first when
    some deal holds several (rotated games share their shuffles); ``n`` is then the number of deals."""
    values = np.asarray(values, dtype=np.float64)
    if _one_per_cluster(clusters, values.size):
        return mean_interval(values, confidence, seed)
    m = mean_interval(_cluster_means(values, np.asarray(clusters)), confidence, seed)
    return MeanInterval(m.n, m.mean, m.low, m.high, f"{m.method} by deal")


def clustered_proportion(flags: np.ndarray, clusters: np.ndarray | None, confidence: float = CONFIDENCE,
                         seed: int = SEED) -> Proportion:
    """The share of true ``flags``: Wilson with one value a deal, else the interval of the per-deal shares
    (:func:`mean_interval` on them, method ``by deal``)."""
    flags = np.asarray(flags, dtype=np.float64)
    k, n = float(flags.sum()), int(flags.size)
    if _one_per_cluster(clusters, n) or n == 0:
        return proportion(k, n, confidence)
    m = mean_interval(_cluster_means(flags, np.asarray(clusters)), confidence, seed)
    return Proportion(k=k, n=n, rate=k / n, low=max(0.0, m.low), high=min(1.0, m.high), confidence=confidence,
                      method=f"{m.method.split(' ')[0]} by deal")


# ---------------------------------------------------------------- tables of rates


def proportion_table(frame: pl.DataFrame, key: str | Sequence[str], confidence: float = CONFIDENCE,
                     seed: int = SEED) -> pl.DataFrame:
    """Per value of ``key`` (e.g. ``"seat"`` or ``"bot"``): counts, rates and intervals.

    Columns: key, ``games`` (seat-games), ``wins`` (first places, shared ones
    included), ``win_rate``, ``win_low``, ``win_high`` (Wilson), ``ties``,
    ``tie_rate``, ``stalls`` (null rank), ``stall_rate``, ``mean_score``,
    ``score_low``, ``score_high``, ``score_method`` (see :func:`mean_interval`:
    percentile bootstrap, or a t interval above :data:`BOOTSTRAP_MAX_N` games).
    """
    keys = [key] if isinstance(key, str) else list(key)
    _require(frame, [*keys, "win", "tie", "rank", "score"], "proportion_table")
    table = (
        frame.group_by(keys)
        .agg(
            pl.len().alias("games"),
            pl.col("win").sum().alias("wins"),
            pl.col("tie").sum().alias("ties"),
            pl.col("rank").is_null().sum().alias("stalls"),
            pl.col("score").alias("scores"),
        )
        .sort(keys)
    )
    games = table["games"].to_numpy()
    win_low, win_high = _wilson(table["wins"].to_numpy(), games, confidence)
    scores = [mean_interval(s.to_numpy(), confidence, seed) for s in table["scores"]]
    return table.with_columns(
        (pl.col("wins") / pl.col("games")).alias("win_rate"),
        pl.Series("win_low", win_low, dtype=pl.Float64),
        pl.Series("win_high", win_high, dtype=pl.Float64),
        (pl.col("ties") / pl.col("games")).alias("tie_rate"),
        (pl.col("stalls") / pl.col("games")).alias("stall_rate"),
        pl.Series("mean_score", [s.mean for s in scores], dtype=pl.Float64),
        pl.Series("score_low", [s.low for s in scores], dtype=pl.Float64),
        pl.Series("score_high", [s.high for s in scores], dtype=pl.Float64),
        pl.Series("score_method", [s.method for s in scores], dtype=pl.String),
    ).select(*keys, "games", "wins", "win_rate", "win_low", "win_high", "ties", "tie_rate", "stalls", "stall_rate",
             "mean_score", "score_low", "score_high", "score_method")


def format_proportion_table(table: pl.DataFrame, key: str | Sequence[str], confidence: float = CONFIDENCE) -> str:
    """One fishtest-style line per row of :func:`proportion_table`."""
    keys = [key] if isinstance(key, str) else list(key)
    labels = [" ".join(f"{k} {row[k]}" if k == "seat" else str(row[k]) for k in keys) for row in table.to_dicts()]
    width = max((len(label) for label in labels), default=0)
    lines = []
    for label, row in zip(labels, table.to_dicts()):
        lines.append(
            f"{label:<{width}}  wins {_pct(row['win_rate'])} {_interval_pct(row['win_low'], row['win_high'])} "
            f"(Wilson {_confidence(confidence)}), n = {row['games']:,}; ties {_pct(row['tie_rate'])}, "
            f"stalls {_pct(row['stall_rate'])}; score {row['mean_score']:.2f} "
            f"[{row['score_low']:.2f}, {row['score_high']:.2f}] ({row['score_method']})"
        )
    return "\n".join(lines)


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
    is outside the equivalence bounds: the TOST cannot pass while it holds.
    """
    gap = share - target
    if not abs(gap) < delta:
        return None
    bound = target + delta if gap >= 0 else target - delta
    effect = abs(float(proportion_effectsize(bound, share)))
    n = NormalIndPower().solve_power(effect_size=effect, alpha=alpha, power=power, ratio=0, alternative="larger")
    return float(np.squeeze(n))


# ---------------------------------------------------------------- seat advantage

DESIGN_EQUAL = "equal players"
DESIGN_ADJUSTED = "mixed lineups, seats rotated: seat effect adjusted for the bots"
DESIGN_CONFOUNDED = "mixed lineups, seats fixed: bots and seats confounded"
LOPSIDED_SHARE = 0.8  # a bot taking more than this share of decided comparisons against another
_SHORT_TEST_NAMES = {
    "exact binomial test": "binomial",
    "chi-square goodness of fit": "chi-square",
    "t test on per-deal shares": "t test",
    "Hotelling's T-squared on per-deal shares": "Hotelling's T-squared",
    "clustered Wald test of the seat terms": "clustered Wald",
}


@dataclass(frozen=True)
class SeatAdvantage:
    """Does seat order matter between equal players? Shares per seat, a difference test and an equivalence test.

    The estimate depends on the lineups (``design``):

    - :data:`DESIGN_EQUAL`, the same bot in every seat: first-place shares.
      With one game per deal, per game (Wilson intervals, exact tests); when
      deals hold several games (seat rotations of one deal), per deal: the deal
      is the unit, its games are not independent.
    - :data:`DESIGN_ADJUSTED`, different bots with seats rotated: a
      Bradley-Terry model with seat and bot terms, deal-clustered; the shares
      are those of equal players in each seat that the model implies.
    - :data:`DESIGN_CONFOUNDED`, different bots in fixed seats: a seat's share
      is also its bot's, so no seat verdict (:data:`VERDICT_NOT_MEASURED`).

    ``seats`` columns: ``seat``, ``games``, ``first_places``, ``share``,
    ``share_low``, ``share_high``, ``p_value`` (that seat against its fair
    share, unadjusted), ``tost_p`` (that seat's equivalence p-value).
    ``verdict``: :data:`VERDICT_BALANCED` (every seat's equivalence test
    rejects at ``alpha``), :data:`VERDICT_UNBALANCED` (the difference test
    rejects), :data:`VERDICT_UNSURE`, or :data:`VERDICT_NOT_MEASURED` (the
    lineup cannot tell; ``lineup_note`` says why and which lineup would).
    ``more_games``: games (deals when deals are the unit) the equivalence test
    would still need with ``power`` if the estimates held.
    """

    players: int
    games: int  # all games of the records
    games_tested: int  # games the shares and tests are of
    ties: int  # games with a shared first place
    stalls: int  # games without a result
    seats: pl.DataFrame
    test: str
    statistic: float
    p_value: float
    tost_p: float
    delta: float
    alpha: float
    power: float
    largest_deviation: float  # largest |share - 1/players|
    largest_deviation_seat: int
    verdict: str
    more_games: int | None
    handling: str  # how ties and stalls were counted
    design: str = DESIGN_EQUAL
    unit: str = "games"  # what n counts: "games" or "deals"
    units_tested: int = 0  # independent units behind the tests (games, or deals)
    share_method: str = f"Wilson {int(100 * CONFIDENCE)}%"
    equivalence_method: str = "TOST (statsmodels binom_tost)"
    lineup_note: str = ""
    detectable: float = float("nan")  # the smallest seat gap (share points) these units detect, two-sided, at power

    @property
    def effect_size(self) -> float:
        """Cohen's h of the furthest seat's share against the fair share."""
        share = float(self.seats["share"][self.largest_deviation_seat])
        if not np.isfinite(share):
            return float("nan")
        return float(proportion_effectsize(share, 1 / self.players))

    @property
    def methods(self) -> list[str]:
        return [self.test, self.equivalence_method, self.share_method, self.handling]

    @property
    def measured(self) -> bool:
        """False when the lineup cannot tell seat balance between equal players."""
        return self.verdict != VERDICT_NOT_MEASURED

    @property
    def test_name(self) -> str:
        """The difference test's short name, as a headline quotes it."""
        full = self.test.split(" (")[0]
        return _SHORT_TEST_NAMES.get(full, full)

    @property
    def n_text(self) -> str:
        if self.unit == "deals":
            return f"n = {self.units_tested:,} deals ({self.games_tested:,} games)"
        return f"n = {self.games_tested:,}"

    def describe(self) -> str:
        """Fishtest-style lines: the headline with its test and verdict, then the equivalence test."""
        delta = f"+-{100 * self.delta:g} points"
        rows = self.seats.to_dicts()
        lines = []
        if self.design != DESIGN_EQUAL:
            lines.append(f"{self.design}: {self.lineup_note}" if self.lineup_note else self.design)
        if not np.isfinite(self.seats["share"].to_numpy()).any():
            lines.append(f"seat balance between equal players: {self.verdict}, {self.n_text}")
            return "\n".join(lines)
        if self.design == DESIGN_CONFOUNDED:
            for row in rows:
                lines.append(f"  seat {row['seat']} (its bot) {_pct(row['share'])} "
                             f"{_interval_pct(row['share_low'], row['share_high'])} ({self.share_method})")
            return "\n".join(lines)
        if self.players == 2:
            seat0 = rows[0]
            lines += [
                f"seat 0 wins {_pct(seat0['share'])} {_interval_pct(seat0['share_low'], seat0['share_high'])} "
                f"({self.share_method}), {self.n_text}, {self.test_name} {format_p(self.p_value)} "
                f"vs 50%: {self.verdict}",
                f"  equivalence within {delta}: {self.equivalence_method.split(' (')[0]} {format_p(self.tost_p)}; "
                f"{self.handling}",
            ]
        else:
            fair = 1 / self.players
            lines.append(f"seat shares vs {_pct(fair)} each: {self.test_name} {self.statistic:.2f}, "
                         f"{format_p(self.p_value)}, {self.n_text}: {self.verdict}")
            for row in rows:
                lines.append(f"  seat {row['seat']} {_pct(row['share'])} "
                             f"{_interval_pct(row['share_low'], row['share_high'])} "
                             f"({self.share_method}), equivalence {format_p(row['tost_p'])}")
            lines.append(f"  largest deviation: seat {self.largest_deviation_seat}, "
                         f"{100 * self.largest_deviation:.2f} points; balanced within {delta} needs every seat's "
                         f"equivalence test to reject (largest {format_p(self.tost_p)}); {self.handling}")
        if np.isfinite(self.detectable):
            lines.append(f"  effect size: Cohen's h {self.effect_size:+.3f} (seat {self.largest_deviation_seat}); "
                         f"these {self.unit} detect a seat gap of about {100 * self.detectable:.1f} points "
                         f"({100 * self.power:g}% power, two-sided {100 * self.alpha:g}%)")
        if self.verdict not in (VERDICT_BALANCED, VERDICT_NOT_MEASURED):
            if self.more_games is None:
                lines.append(f"  balance within {delta} cannot be shown while the estimates hold "
                             f"(a seat is {100 * self.largest_deviation:.2f} points off)")
            else:
                lines.append(f"  about {self.more_games:,} more {self.unit} for the equivalence test to pass with "
                             f"{100 * self.power:g}% power if the estimates held")
        return "\n".join(lines)


def seat_advantage(records: pl.DataFrame, delta: float = 0.025, alpha: float = 0.05,
                   power: float = 0.8) -> SeatAdvantage:
    """Seat balance between equal players: shares per seat, a difference test and an equivalence test (+-delta).

    Which games count: with 2 players the games with a single winner (ties and
    stalls excluded, and counted in the result); with 3-4 players the games
    with a result, a shared first place counted as a fraction (1/m to each of
    m tied seats).

    Equal players, one game per deal: seat 0's wins by the exact
    ``scipy.stats.binomtest(k, n, p=0.5)`` (2 players) or
    ``scipy.stats.chisquare`` against equal shares (3-4), Wilson intervals,
    equivalence by ``statsmodels binom_tost`` per seat.

    Equal players, several games per deal (seat rotations of one deal share
    its shuffles and are not independent): each seat's share of the deal's
    counted games is one value per deal; a one-sample t test against the
    fair share (``scipy.stats.ttest_1samp``; 3-4 players jointly by
    Hotelling's T-squared, ``statsmodels test_mvmean``), t intervals, and
    equivalence by ``DescrStatsW.ttost_mean``. n counts deals.

    Mixed lineups with rotated seats: :func:`_adjusted_seat_shares` (a
    Bradley-Terry model with seat and bot terms, deal-clustered). Mixed
    lineups in fixed seats: the raw shares, verdict
    :data:`VERDICT_NOT_MEASURED`.

    "Balanced" needs every seat's equivalence test to reject (an
    intersection-union test, no multiplicity correction); a lineup whose bots
    are far apart in strength (one takes over :data:`LOPSIDED_SHARE` of the
    decided comparisons against another) is never called balanced.
    """
    _require(records, ["game", "seat", "win", "tie", "rank"], "seat_advantage")
    if not 0 < delta < 0.5 or not 0 < alpha < 0.5:
        raise StatsError(f"seat_advantage: expected 0 < delta < 0.5 and 0 < alpha < 0.5, got {delta}, {alpha}")
    players = _players(records)
    if players < 2:
        raise StatsError("seat_advantage: expected records of games with at least 2 seats")
    if "deal" not in records.columns:
        records = records.with_columns(pl.col("game").alias("deal"))
    if "bot" not in records.columns:
        records = records.with_columns(pl.lit("bot").alias("bot"))
    games = _per_game(records)
    counted = _counted_shares(records, games, players)
    context = _SeatContext(players=players, games=games.height, stalls=int(games["stalled"].sum()),
                           ties=int((games["first_places"] > 1).sum()), delta=delta, alpha=alpha, power=power)
    lineups = records.sort("seat").group_by("game").agg(pl.col("bot").str.join("\x1f").alias("lineup"))
    mixed = bool(records["bot"].n_unique() > 1)
    if not mixed:
        return _equal_players(counted, context)
    if lineups["lineup"].n_unique() == 1:
        return _confounded(counted, context, records)
    return _adjusted(records, counted, context)


@dataclass(frozen=True)
class _SeatContext:
    players: int
    games: int
    stalls: int
    ties: int
    delta: float
    alpha: float
    power: float

    @property
    def fair(self) -> float:
        return 1 / self.players

    @property
    def handling(self) -> str:
        if self.players == 2:
            return f"ties ({self.ties:,}) and stalls ({self.stalls:,}) excluded"
        return (f"shared first places counted as fractions ({self.ties:,} games), stalls ({self.stalls:,}) "
                "excluded")


def _counted_shares(records: pl.DataFrame, games: pl.DataFrame, players: int) -> pl.DataFrame:
    """The counted games, one row per game and seat: ``game, deal, seat, bot, fraction`` (first-place share)."""
    keep = (pl.col("first_places") == 1) if players == 2 else (pl.col("first_places") > 0)
    return (records.join(games.select("game", "first_places"), on="game").filter(keep)
            .with_columns(pl.when(pl.col("win")).then(1.0 / pl.col("first_places")).otherwise(0.0)
                          .alias("fraction"))
            .select("game", "deal", "seat", "bot", "fraction"))


def _equal_players(counted: pl.DataFrame, c: _SeatContext) -> SeatAdvantage:
    tested = counted["game"].n_unique()
    deals = counted["deal"].n_unique()
    if tested == deals:
        return _equal_players_by_game(counted, c, tested)
    return _equal_players_by_deal(counted, c, tested, deals)


def _seat_matrix(counted: pl.DataFrame, players: int, unit: str) -> np.ndarray:
    """float ``[units, players]``: each unit's mean first-place share per seat (units sorted)."""
    per_unit = (counted.group_by(unit, "seat").agg(pl.col("fraction").mean())
                .sort(unit, "seat").pivot(on="seat", index=unit, values="fraction", sort_columns=True))
    return np.column_stack([per_unit[str(s)].fill_null(0.0).to_numpy() if str(s) in per_unit.columns
                            else np.zeros(per_unit.height) for s in range(players)])


def _equal_players_by_game(counted: pl.DataFrame, c: _SeatContext, tested: int) -> SeatAdvantage:
    first = _seat_matrix(counted, c.players, "game").sum(axis=0) if tested else np.zeros(c.players)
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
    handling = c.handling + ("" if c.players == 2 else "; equivalence on first places rounded to whole games")
    detectable = float("nan")
    if tested > 1:
        detectable = points_for_h(c.fair, detectable_z(c.alpha, c.power) / math.sqrt(tested))
    return _seat_result(c, tested, tested, "games", share, low, high, seat_p, tost, test, statistic, p_value,
                        more, handling, DESIGN_EQUAL, f"Wilson {_confidence(CONFIDENCE)}",
                        "TOST (statsmodels binom_tost, exact binomial)", detectable=detectable)


def _equal_players_by_deal(counted: pl.DataFrame, c: _SeatContext, tested: int, deals: int) -> SeatAdvantage:
    shares = _seat_matrix(counted, c.players, "deal")
    share = shares.mean(axis=0)
    low, high, seat_p, tost = (np.empty(c.players) for _ in range(4))
    for s in range(c.players):
        low[s], high[s], seat_p[s], tost[s] = _mean_tests(shares[:, s], c.fair, c.delta)
    if c.players == 2:
        test = "t test on per-deal shares (scipy ttest_1samp, vs 50%)"
        statistic, p_value = float(share[0]), float(seat_p[0])
    else:
        test = "Hotelling's T-squared on per-deal shares (statsmodels test_mvmean, equal shares)"
        statistic, p_value = _hotelling(shares, c.fair)
    more = _more_units(shares, share, c)
    handling = c.handling + f"; the deal is the unit ({tested:,} games in {deals:,} deals)"
    sd = float(np.max(shares.std(axis=0, ddof=1))) if deals > 1 else float("nan")
    detectable = sd * detectable_z(c.alpha, c.power) / math.sqrt(deals) if deals > 2 and sd > 0 else float("nan")
    return _seat_result(c, tested, deals, "deals", share, low, high, seat_p, tost, test, statistic, p_value, more,
                        handling, DESIGN_EQUAL, f"t {_confidence(CONFIDENCE)} on per-deal shares",
                        "TOST on per-deal shares (statsmodels DescrStatsW.ttost_mean)", detectable=detectable)


def _mean_tests(values: np.ndarray, fair: float, delta: float) -> tuple[float, float, float, float]:
    """(low, high, p vs fair, equivalence p) of a mean over units, by t.

    When the units do not vary (every deal split alike) a t test has no
    variance to use: the deals then count as ``mean * n`` successes of ``n``
    (Wilson interval, exact binomial test, ``binom_tost``), so a few alike
    deals are never taken as certainty.
    """
    n = values.size
    if n == 0:
        return float("nan"), float("nan"), 1.0, 1.0
    mean = float(values.mean())
    if n < 2 or np.all(values == values[0]):
        successes = int(round(mean * n))
        low, high = _wilson(successes, n, CONFIDENCE)
        p = float(stats.binomtest(successes, n, fair).pvalue)
        return float(low), float(high), p, _tost_p(successes, n, fair, delta)
    test = stats.ttest_1samp(values, fair)
    interval = test.confidence_interval(CONFIDENCE)
    tost_p = float(DescrStatsW(values).ttost_mean(fair - delta, fair + delta)[0])
    return max(0.0, float(interval.low)), min(1.0, float(interval.high)), float(test.pvalue), tost_p


def _hotelling(shares: np.ndarray, fair: float) -> tuple[float, float]:
    """Hotelling's T-squared that the per-deal seat shares have mean ``fair`` (all seats but the last,
    whose share is the rest); a degenerate covariance falls back to the largest per-seat t test."""
    data = shares[:, :-1]
    try:
        result = test_mvmean(data, np.full(data.shape[1], fair))
        statistic, p = float(result.statistic), float(result.pvalue)
        if np.isfinite(p):
            return statistic, p
    except (np.linalg.LinAlgError, ValueError):
        pass
    return float("nan"), float(min(_mean_tests(shares[:, s], fair, 0.01)[2] for s in range(shares.shape[1])))


def _more_units(shares: np.ndarray, share: np.ndarray, c: _SeatContext) -> int | None:
    """Units the per-seat t-TOST would need with ``power`` if the estimates held (one-sided normal power,
    the nearer bound: ``((z_(1-alpha) + z_power) sd / room)^2``)."""
    needed = []
    factor = stats.norm.ppf(1 - c.alpha) + stats.norm.ppf(c.power)
    for s in ([0] if c.players == 2 else range(c.players)):
        room = c.delta - abs(float(share[s]) - c.fair)
        sd = float(shares[:, s].std(ddof=1)) if shares.shape[0] > 1 else float("nan")
        if not room > 0:
            return None
        if sd > 0:
            needed.append(float((factor * sd / room) ** 2))
    return max(0, int(math.ceil(max(needed, default=0))) - shares.shape[0])


def _confounded(counted: pl.DataFrame, c: _SeatContext, records: pl.DataFrame) -> SeatAdvantage:
    tested = counted["game"].n_unique()
    first = _seat_matrix(counted, c.players, "game").sum(axis=0) if tested else np.zeros(c.players)
    share = first / tested if tested else np.full(c.players, np.nan)
    low, high = _wilson(first, np.full(c.players, tested), CONFIDENCE)
    lineup = ",".join(records.filter(pl.col("game") == records["game"][0]).sort("seat")["bot"].to_list())
    note = (f"each seat always holds the same bot ({lineup}), so a seat's share is also its bot's; seat balance "
            f"between equal players needs the same bot in every seat (e.g. {_equal_lineup(records, c.players)}) "
            "or --rotate-seats")
    nan = np.full(c.players, np.nan)
    return _seat_result(c, tested, tested, "games", share, low, high, nan, nan, "none (bots and seats confounded)",
                        float("nan"), float("nan"), None, c.handling, DESIGN_CONFOUNDED,
                        f"Wilson {_confidence(CONFIDENCE)}", "none", note, verdict=VERDICT_NOT_MEASURED)


def _equal_lineup(records: pl.DataFrame, players: int) -> str:
    """The lineup that measures seat balance: the strongest bot (most first places) in every seat."""
    strongest = str(records.group_by("bot").agg(pl.col("win").mean()).sort("win", descending=True)["bot"][0])
    return ",".join([strongest] * players)


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


def _seat_result(c: _SeatContext, tested: int, units: int, unit: str, share: np.ndarray, low: np.ndarray,
                 high: np.ndarray, seat_p: np.ndarray, tost: np.ndarray, test: str, statistic: float,
                 p_value: float, more: int | None, handling: str, design: str, share_method: str,
                 equivalence_method: str, note: str = "", verdict: str | None = None,
                 first: np.ndarray | None = None, detectable: float = float("nan")) -> SeatAdvantage:
    deviation = np.nan_to_num(np.abs(share - c.fair), nan=0.0)
    worst = int(np.argmax(deviation))
    tost_p = float(np.nanmax(tost)) if np.isfinite(tost).any() else 1.0
    if verdict is None:
        verdict = (VERDICT_BALANCED if tost_p < c.alpha else
                   VERDICT_UNBALANCED if p_value < c.alpha else VERDICT_UNSURE)
    if verdict == VERDICT_BALANCED:
        more = 0
    elif verdict == VERDICT_NOT_MEASURED:
        more = None
    first = share * tested if first is None else first
    seats = pl.DataFrame({
        "seat": pl.Series(range(c.players), dtype=pl.Int8),
        "games": pl.Series([tested] * c.players, dtype=pl.Int64),
        "first_places": pl.Series(first, dtype=pl.Float64),
        "share": pl.Series(share, dtype=pl.Float64),
        "share_low": pl.Series(low, dtype=pl.Float64),
        "share_high": pl.Series(high, dtype=pl.Float64),
        "p_value": pl.Series(seat_p, dtype=pl.Float64),
        "tost_p": pl.Series(tost, dtype=pl.Float64),
    })
    return SeatAdvantage(
        players=c.players, games=c.games, games_tested=tested, ties=c.ties, stalls=c.stalls, seats=seats, test=test,
        statistic=statistic, p_value=p_value, tost_p=tost_p, delta=c.delta, alpha=c.alpha, power=c.power,
        largest_deviation=float(deviation[worst]), largest_deviation_seat=worst, verdict=verdict, more_games=more,
        handling=handling, design=design, unit=unit, units_tested=units, share_method=share_method,
        equivalence_method=equivalence_method, lineup_note=note, detectable=detectable,
    )


def _tost_p(first_places: float, n: int, target: float, delta: float) -> float:
    """p-value of ``binom_tost`` on ``round(first_places)`` of ``n`` within ``target +- delta``."""
    if n == 0:
        return 1.0
    p, _, _ = binom_tost(int(round(first_places)), n, target - delta, target + delta)
    return float(p)


# ---------------------------------------------------------------- score margin


@dataclass(frozen=True)
class Margin:
    """How close games are: first place's score minus second place's, per game with a result.

    ``mean`` with its interval (:func:`mean_interval`); ``smallest`` is the
    smallest positive margin seen (the game's scoring step, usually 1) and
    ``smallest_share`` the games won by exactly that (Wilson); ``ties`` are
    shared first places (margin 0); ``not_outscored`` are games won with a
    score no higher than second place's (a game that ends on a goal, not on
    points). ``distribution`` has columns ``margin``, ``games``.
    """

    games: int
    stalls_excluded: int
    mean: MeanInterval
    smallest: float | None
    smallest_share: Proportion
    ties: Proportion
    not_outscored: Proportion
    distribution: pl.DataFrame

    def describe(self) -> str:
        m = self.mean
        lines = [f"score margin (first minus second place) {m.mean:.2f} [{m.low:.2f}, {m.high:.2f}] "
                 f"({m.method}), n = {self.games:,} games ({self.stalls_excluded:,} stalls excluded)"]
        if self.smallest is not None:
            lines.append("  " + self.smallest_share.describe(f"won by the smallest margin ({self.smallest:g})", ""))
        lines.append("  " + self.ties.describe("shared first places", ""))
        if self.not_outscored.k:
            lines.append("  " + self.not_outscored.describe("won without outscoring second place", ""))
        return "\n".join(lines)


def score_margin(records: pl.DataFrame, confidence: float = CONFIDENCE, seed: int = SEED) -> Margin:
    """Per game with a result: score of first place minus the best score of the next place.

    A shared first place gives 0. Places come from ``rank``, not from scores,
    so a game won on a goal can have a negative margin. Stalls are excluded.
    When deals hold several games (rotated seats) the deal is the unit of every
    interval (:func:`clustered_mean`, :func:`clustered_proportion`).
    """
    _require(records, ["game", "rank", "score"], "score_margin")
    ranked = records.filter(pl.col("rank").is_not_null())
    per_game = ranked.group_by("game").agg(
        (pl.col("deal") if "deal" in ranked.columns else pl.col("game")).first().alias("_deal"),
        pl.col("score").filter(pl.col("rank") == 1).max().alias("first"),
        pl.col("score").filter(pl.col("rank") == pl.col("rank").filter(pl.col("rank") > 1).min()).max()
        .alias("second"),
        (pl.col("rank") == 1).sum().alias("first_places"),
    ).sort("game")  # group_by order is not fixed; the seeded bootstrap must see the games in one order
    margins = per_game.with_columns(
        pl.when(pl.col("first_places") > 1).then(0.0).otherwise(pl.col("first") - pl.col("second")).alias("margin")
    )["margin"].fill_null(0.0).to_numpy()
    shared = per_game["first_places"].to_numpy() > 1
    deals = per_game["_deal"].to_numpy()
    n = margins.size
    stalls = records["game"].n_unique() - n
    positive = margins[(margins > 0) & ~shared]
    smallest = float(positive.min()) if positive.size else None
    closest = (np.isclose(margins, smallest) & ~shared) if smallest is not None else np.zeros(n, dtype=bool)
    distribution = (pl.DataFrame({"margin": margins}).group_by("margin").agg(pl.len().alias("games"))
                    .sort("margin"))
    return Margin(
        games=n, stalls_excluded=stalls, mean=clustered_mean(margins, deals, confidence, seed), smallest=smallest,
        smallest_share=clustered_proportion(closest, deals, confidence, seed),
        ties=clustered_proportion(shared, deals, confidence, seed),
        not_outscored=clustered_proportion((margins <= 0) & ~shared, deals, confidence, seed),
        distribution=distribution,
    )


# ---------------------------------------------------------------- game length


@dataclass(frozen=True)
class LeadChanges:
    """Lead changes per game from a per-turn running score (``per_game``: ``game``, ``lead_changes``)."""

    games: int
    mean: MeanInterval
    with_change: Proportion  # games where the lead changed at least once
    per_game: pl.DataFrame

    def describe(self) -> str:
        m = self.mean
        return (f"lead changes {m.mean:.2f} a game [{m.low:.2f}, {m.high:.2f}] ({m.method}), n = {self.games:,}; "
                + self.with_change.describe("", "games with a lead change"))


@dataclass(frozen=True)
class GameLength:
    """Turns per game (``histogram``: ``turns``, ``games``), end reasons, stalls, and lead changes if known."""

    games: int
    mean: MeanInterval
    minimum: float
    q1: float
    median: float
    q3: float
    maximum: float
    histogram: pl.DataFrame
    ends: pl.DataFrame
    stalls: Proportion
    lead_changes: LeadChanges | None

    def describe(self) -> str:
        m = self.mean
        ends = ", ".join(f"{row['end']} {_pct(row['share'])} {_interval_pct(row['share_low'], row['share_high'])}"
                         for row in self.ends.to_dicts())
        lines = [
            f"turns mean {m.mean:.1f} [{m.low:.1f}, {m.high:.1f}] ({m.method}), quartiles {self.q1:g} / "
            f"{self.median:g} / {self.q3:g} (min {self.minimum:g}, max {self.maximum:g}), n = {self.games:,}",
            f"  end {ends} (Wilson {_confidence(CONFIDENCE)})",
            "  " + self.stalls.describe("stalls", ""),
        ]
        lines.append("  " + (self.lead_changes.describe() if self.lead_changes is not None
                             else "lead changes: not recorded by this game (no per-turn score)"))
        return "\n".join(lines)


def end_reasons(records: pl.DataFrame, confidence: float = CONFIDENCE, seed: int = SEED) -> pl.DataFrame:
    """Why games ended: ``end``, ``games``, ``share``, ``share_low``, ``share_high`` (Wilson; the interval of
    per-deal shares when deals hold several games), most common first."""
    _require(records, ["game", "end"], "end_reasons")
    per_game = _per_game(records)
    total = per_game.height
    table = per_game.group_by("end").agg(pl.len().alias("games")).sort(["games", "end"], descending=[True, False])
    ends, deals = per_game["end"].to_numpy(), per_game["deal"].to_numpy()
    shares = [clustered_proportion(ends == end, deals, confidence, seed) for end in table["end"].to_list()]
    return table.with_columns(
        (pl.col("games") / total).alias("share"),
        pl.Series("share_low", [s.low for s in shares], dtype=pl.Float64),
        pl.Series("share_high", [s.high for s in shares], dtype=pl.Float64),
    )


def game_length(records: pl.DataFrame, events: pl.DataFrame | None = None, confidence: float = CONFIDENCE,
                seed: int = SEED) -> GameLength:
    """Turns per game (mean with :func:`mean_interval`, quartiles, histogram), end reasons, stall rate (Wilson).

    ``lead_changes`` is filled only when ``events`` has a per-turn ``score``
    column (see :func:`lead_changes`); Overgrowth has none, so it is None.
    """
    _require(records, ["game", "turns", "end", "rank"], "game_length")
    games = _per_game(records)
    turns = games["turns"].cast(pl.Float64)
    histogram = games.group_by("turns").agg(pl.len().alias("games")).sort("turns")
    return GameLength(
        games=games.height,
        mean=clustered_mean(turns.to_numpy(), games["deal"].to_numpy(), confidence, seed),
        minimum=float(turns.min()),
        q1=float(turns.quantile(0.25, interpolation="linear")),
        median=float(turns.median()),
        q3=float(turns.quantile(0.75, interpolation="linear")),
        maximum=float(turns.max()),
        histogram=histogram,
        ends=end_reasons(records, confidence, seed),
        stalls=clustered_proportion(games["stalled"].to_numpy(), games["deal"].to_numpy(), confidence, seed),
        lead_changes=lead_changes(records, events, confidence=confidence, seed=seed),
    )


def lead_changes(records: pl.DataFrame, events: pl.DataFrame | None, score_column: str = "score",
                 confidence: float = CONFIDENCE, seed: int = SEED) -> LeadChanges | None:
    """Lead changes per game, or None if the events carry no per-turn running score.

    Needs events with ``game``, ``seat`` and ``score_column`` (the seat's score
    after that event), in play order. A seat's score before its first event is
    taken as 0. The leader is the seat with the strictly highest score; on a
    tie the previous leader keeps the lead. A change is a new leader after
    there was one. Games without events count 0 changes.
    """
    if events is None or score_column not in events.columns or not {"game", "seat"} <= set(events.columns):
        return None
    players = _players(records)
    ordered = events.select("game", "seat", score_column)
    game_ids = ordered["game"].to_numpy()
    seats = ordered["seat"].to_numpy().astype(np.int64)
    values = ordered[score_column].to_numpy().astype(np.float64)
    # A sequential scan: the leader after an event depends on the one before it (ties keep the lead).
    starts = np.r_[True, game_ids[1:] != game_ids[:-1]]
    changes: dict[int, int] = {}
    current = np.zeros(players)
    leader = -1
    for i in range(len(values)):
        if starts[i]:
            current[:] = 0.0
            leader = -1
            changes[int(game_ids[i])] = 0
        current[seats[i]] = values[i]
        top = np.flatnonzero(current == current.max())
        if top.size == 1 and top[0] != leader:
            if leader >= 0:
                changes[int(game_ids[i])] += 1
            leader = int(top[0])
    all_games = records["game"].unique().sort()
    per_game = pl.DataFrame({"game": all_games}).join(
        pl.DataFrame({"game": list(changes), "lead_changes": list(changes.values())},
                     schema={"game": all_games.dtype, "lead_changes": pl.Int64}),
        on="game", how="left").with_columns(pl.col("lead_changes").fill_null(0))
    counts = per_game["lead_changes"].to_numpy()
    return LeadChanges(games=per_game.height, mean=mean_interval(counts.astype(np.float64), confidence, seed),
                       with_change=proportion(int(np.sum(counts > 0)), per_game.height, confidence),
                       per_game=per_game)


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
    (logit; the reference bot is 0), ``se``, ``low``, ``high`` (normal 95%),
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
        shares = (unit["points"] / unit["comparisons"]).to_numpy()
        mean, low, high, p, method = _paired_share(shares, confidence)
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


def _paired_share(shares: np.ndarray, confidence: float) -> tuple[float, float, float, float, str]:
    """Mean of per-deal shares with a t interval (or Wilson on deal units if they do not vary)."""
    n = shares.size
    mean = float(shares.mean())
    level = _confidence(confidence)
    if n < 2 or np.all(shares == shares[0]):
        low, high = _wilson(mean * n, n, confidence)
        wins = int(round(mean * n))
        p = 1.0 if mean == 0.5 else float(stats.binomtest(wins, n, p=0.5, alternative="two-sided").pvalue)
        return mean, float(low), float(high), p, f"Wilson {level} on deal units (no variation between deals)"
    test = stats.ttest_1samp(shares, 0.5, alternative="two-sided")
    interval = test.confidence_interval(confidence)
    return (mean, max(0.0, float(interval.low)), min(1.0, float(interval.high)), float(test.pvalue),
            f"t {level} on per-deal shares")


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
    z = stats.norm.ppf(0.5 + confidence / 2)
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


# ---------------------------------------------------------------- components


@dataclass(frozen=True)
class ClusteredDifference:
    """A difference of two win rates whose rows come in clusters (the seat-games of one deal).

    ``design_effect`` is the cluster-robust variance of the difference over the
    variance it would have if every row were independent (at least 1);
    ``low``/``high`` and ``p_value`` are Newcombe's interval and the score test
    on the counts divided by it (effective counts, Rao and Scott's adjustment).
    """

    difference: float
    low: float
    high: float
    p_value: float
    design_effect: float
    clusters: int


def clustered_difference(win: np.ndarray, used: np.ndarray, cluster: np.ndarray,
                         confidence: float = CONFIDENCE) -> ClusteredDifference:
    """Win rate of the ``used`` rows minus the others', the ``cluster`` (deal) as the unit.

    The seat-games of one deal are not independent: its games share their
    shuffles (seat rotations), and in one game one seat's win is another's loss,
    which makes an item's users and non-users of one deal move in opposite
    directions. The variance of the difference is therefore the cluster-robust
    (sandwich) variance of the slope of ``win ~ 1 + used`` (statsmodels OLS,
    ``cov_type="cluster"`` by ``cluster``: the slope is exactly the difference of the
    two rates). Its ratio to the independent-rows variance, floored at 1, is the
    design effect; the counts of both arms are divided by it and Newcombe's
    hybrid score interval (``confint_proportions_2indep(method="newcomb")``) and
    the score test (``test_proportions_2indep(method="score")``) run on those
    effective counts, which keeps Newcombe's good behaviour near 0% and 100%.
    When neither arm varies (every user won, no one else did) the variance
    cannot be estimated and the design effect is the mean rows per cluster
    (as if a deal's rows were copies: the cautious choice). Either arm empty:
    NaN everything.
    """
    win = np.asarray(win, dtype=np.float64)
    used = np.asarray(used, dtype=bool)
    clusters = int(np.unique(cluster).size)
    n1, n0 = int(used.sum()), int((~used).sum())
    if not n1 or not n0:
        return ClusteredDifference(*(float("nan"),) * 5, clusters)
    k1, k0 = float(win[used].sum()), float(win[~used].sum())
    p1, p0 = k1 / n1, k0 / n0
    independent = p1 * (1 - p1) / n1 + p0 * (1 - p0) / n0
    deff = float("nan")
    if independent > 0 and clusters > 1:
        _, codes = np.unique(cluster, return_inverse=True)
        fit = OLS(win, np.column_stack([np.ones(win.size), used.astype(np.float64)])).fit(
            cov_type="cluster", cov_kwds={"groups": codes})
        deff = float(fit.cov_params()[1, 1]) / independent
    if not np.isfinite(deff) or deff <= 0:
        deff = win.size / clusters
    deff = max(1.0, deff)
    # statsmodels also computes the ratio of the rates, which divides by zero when one is 0%.
    with np.errstate(divide="ignore", invalid="ignore"):
        low, high = confint_proportions_2indep(k1 / deff, n1 / deff, k0 / deff, n0 / deff, method="newcomb",
                                               compare="diff", alpha=1 - confidence)
        p = test_proportions_2indep(k1 / deff, n1 / deff, k0 / deff, n0 / deff, method="score",
                                    compare="diff").pvalue
    return ClusteredDifference(p1 - p0, float(low), float(high), float(p), deff, clusters)


def component_strength(records: pl.DataFrame, events: pl.DataFrame, component: str = "kind", *,
                       values: Sequence[str] | None = None, by: str | None = None, alpha: float = 0.05,
                       dominant_gap: float = 0.10, unused_below: float = 0.01,
                       confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Win rate of seat-games that used a component (card, action kind...) against those that did not.

    OBSERVATIONAL AND BIASED (docs/statistics.md): strong players and long games use
    more components, and a component may be used *because* a seat is winning.
    Report it beside an ablation on the same seeds (the component removed or
    forced), which is causal: compare those runs with :func:`paired_difference`.
    The bot matters too: pass ``by="bot"`` to get one row per bot and component.

    Unit: a seat in a game (seat-game), used if ``events`` has at least one
    row of that component for it. Per component value (and ``by`` group):
    ``seat_games``, ``used``, ``use_rate``, ``events`` (rows), ``wins_used``,
    ``win_used`` (rate), ``not_used``, ``wins_not_used``, ``win_not_used``,
    ``difference`` (used minus not used) with ``diff_low``/``diff_high``
    (Newcombe hybrid score, ``confint_proportions_2indep(method="newcomb")``),
    ``p_value`` (``test_proportions_2indep(method="score")``), both on counts
    divided by ``design_effect``: the deal is the unit (the game when the
    records have no ``deal``), see :func:`clustered_difference`; ``p_holm``
    (Holm across all rows, ``multipletests(method="holm")``), ``dominant``
    (``p_holm < alpha`` and ``difference >= dominant_gap``) and ``unused``
    (``use_rate < unused_below``). A component used in every seat-game (or in
    none) has no comparison: NaN difference and p. ``values`` lists the
    components that could be used, so that ones never used get a row.
    """
    _require(records, ["game", "seat", "win"], "component_strength")
    _require(events, ["game", "seat", component], "component_strength events")
    groups = [by] if by else []
    if by:
        _require(records, [by], "component_strength")
    cluster = "deal" if "deal" in records.columns else "game"
    seat_games = records.select("game", pl.col("seat").cast(pl.Int64), "win", pl.col(cluster).alias("_cluster"),
                                *groups).with_row_index("_row")
    totals = seat_games.group_by(groups or pl.lit(0).alias("_all")).agg(
        pl.len().cast(pl.Int64).alias("seat_games"), pl.col("win").sum().cast(pl.Int64).alias("wins"))
    uses = (events.select("game", pl.col("seat").cast(pl.Int64), pl.col(component).cast(pl.String))
            .group_by("game", "seat", component).agg(pl.len().alias("events")))
    joined = uses.join(seat_games, on=["game", "seat"], how="inner")
    used = joined.group_by(*groups, component).agg(
        pl.len().cast(pl.Int64).alias("used"), pl.col("win").sum().cast(pl.Int64).alias("wins_used"),
        pl.col("events").sum().cast(pl.Int64), pl.col("_row"))
    names = sorted(set(uses[component].unique().to_list()) | set(values or ()))
    grid = pl.DataFrame({component: names}, schema={component: pl.String})
    if by:
        grid = totals.select(by).join(grid, how="cross")
        table = grid.join(totals, on=by)
    else:
        table = grid.join(totals.drop("_all"), how="cross")
    table = (table.join(used, on=[*groups, component], how="left")
             .with_columns(pl.col("used", "wins_used", "events").fill_null(0))
             .with_columns((pl.col("seat_games") - pl.col("used")).alias("not_used"),
                           (pl.col("wins") - pl.col("wins_used")).alias("wins_not_used"))
             .sort(*groups, component))
    win = seat_games["win"].cast(pl.Float64).to_numpy()
    clusters = seat_games["_cluster"].to_numpy()
    members = {None: np.arange(seat_games.height)} if not by else {
        key[0]: part["_row"].to_numpy() for key, part in seat_games.group_by(by)}
    rows = []
    for row in table.to_dicts():
        rows_of = members[row[by] if by else None]
        flags = np.zeros(seat_games.height, dtype=bool)
        flags[np.asarray(row["_row"] or [], dtype=np.int64)] = True
        d = clustered_difference(win[rows_of], flags[rows_of], clusters[rows_of], confidence)
        rows.append((d.difference, d.low, d.high, d.p_value, d.design_effect))
    difference, low, high, p, deff = (np.array(column, dtype=np.float64) for column in zip(*rows)) if rows else (
        np.array([]),) * 5
    table = table.drop("_row")
    p_holm = correct(p, "holm")
    table = table.with_columns(
        (pl.col("used") / pl.col("seat_games")).alias("use_rate"),
        (pl.col("wins_used") / pl.col("used")).alias("win_used"),
        (pl.col("wins_not_used") / pl.col("not_used")).alias("win_not_used"),
        pl.Series("difference", difference, dtype=pl.Float64),
        pl.Series("diff_low", low, dtype=pl.Float64),
        pl.Series("diff_high", high, dtype=pl.Float64),
        pl.Series("p_value", p, dtype=pl.Float64),
        pl.Series("p_holm", p_holm, dtype=pl.Float64),
        pl.Series("design_effect", deff, dtype=pl.Float64),
    ).with_columns(
        ((pl.col("p_holm") < alpha) & (pl.col("difference") >= dominant_gap)).fill_null(False).alias("dominant"),
        (pl.col("use_rate") < unused_below).alias("unused"),
    )
    return table.select(*groups, component, "seat_games", "used", "use_rate", "events", "wins_used", "win_used",
                        "not_used", "wins_not_used", "win_not_used", "difference", "diff_low", "diff_high",
                        "p_value", "p_holm", "design_effect", "dominant", "unused")


def format_component_strength(table: pl.DataFrame, component: str = "kind") -> str:
    """One line per row of :func:`component_strength`, with its caveat."""
    lines = ["observational (biased: strong and long-playing seats use more); confirm with an ablation"]
    by = [c for c in table.columns[: table.columns.index(component)]]
    for row in table.to_dicts():
        label = " ".join(str(row[c]) for c in [*by, component])
        flags = [flag for flag in ("dominant", "unused") if row[flag]]
        gap = (f"{_signed_points(row['difference'])} {_interval_pct(row['diff_low'], row['diff_high'])} "
               f"(Newcombe {_confidence(CONFIDENCE)}), Holm {format_p(row['p_holm'])}"
               if np.isfinite(row["difference"]) else "no comparison (used by all or none)")
        lines.append(f"  {label}: used in {_pct(row['use_rate'])} of {row['seat_games']:,} seat-games; wins "
                     f"{_pct(row['win_used'])} when used vs {_pct(row['win_not_used'])}: {gap}"
                     + (f" [{', '.join(flags)}]" if flags else ""))
    return "\n".join(lines)


# ---------------------------------------------------------------- paired runs


@dataclass(frozen=True)
class PairedDifference:
    """``other`` minus ``base`` on the same seeds, paired by key, analysed by deal.

    Rows are paired by key (deal, rotation, seat); when a deal holds several
    paired rows (seat rotations), the deal is the unit: its differences are
    averaged first, because games of one deal share their shuffles.
    ``mean`` is the mean difference per unit with its interval (percentile
    bootstrap, or t above :data:`BOOTSTRAP_MAX_N`); Wilcoxon signed-rank
    (``zero_method``) on the unit differences; for a binary metric with one
    row per deal also McNemar (exact binomial when fewer than 25 discordant
    pairs, else chi-square with continuity correction). ``base_only`` /
    ``other_only`` are the discordant pairs (won in one run only).
    ``effect_size`` is Cohen's h for a binary metric (else the mean difference
    over the differences' standard deviation, Cohen's d_z); ``detectable`` the
    smallest difference this many units detect (two-sided 5%, power 80%);
    ``equivalence_p`` the paired TOST within +-``margin`` (None without a
    margin).
    """

    metric: str
    pairs: int
    base_mean: float
    other_mean: float
    mean: MeanInterval
    wilcoxon_statistic: float
    wilcoxon_p: float
    zero_method: str
    mcnemar_p: float | None
    mcnemar_method: str | None
    base_only: int | None
    other_only: int | None
    units: int = 0  # deals (or pairs when each deal holds one)
    unit: str = "pairs"
    effect_size: float = float("nan")
    effect_name: str = "Cohen's h"
    detectable: float = float("nan")
    margin: float | None = None
    equivalence_p: float | None = None
    variance_ratio: float = float("nan")  # var(differences) / (var(base) + var(other)): the paired design's cost

    @property
    def difference(self) -> float:
        return self.mean.mean

    @property
    def p_value(self) -> float:
        """The difference test's p: McNemar where it applies, else Wilcoxon on the unit differences."""
        return self.mcnemar_p if self.mcnemar_p is not None else self.wilcoxon_p

    @property
    def test(self) -> str:
        return f"McNemar {self.mcnemar_method}" if self.mcnemar_p is not None else "Wilcoxon signed-rank"

    @property
    def equivalent(self) -> bool:
        """True when the paired TOST shows the change is inside +-margin at 5%."""
        return self.equivalence_p is not None and self.equivalence_p < 0.05

    def describe(self) -> str:
        m = self.mean
        binary = self.mcnemar_p is not None or self.effect_name == "Cohen's h"
        if binary:
            change = f"{_signed_points(m.mean)} {_interval_pct(m.low, m.high)}"
            levels = f"{_pct(self.base_mean)} -> {_pct(self.other_mean)}"
        else:
            change = f"{m.mean:+.3f} [{m.low:+.3f}, {m.high:+.3f}]"
            levels = f"{self.base_mean:.3f} -> {self.other_mean:.3f}"
        n = f"n = {self.pairs:,} pairs" + (f" in {self.units:,} deals" if self.unit == "deals" else "")
        line = (f"{self.metric}: {levels}, paired difference {change} ({m.method}), {n}; "
                f"Wilcoxon signed-rank {format_p(self.wilcoxon_p)} (zero_method {self.zero_method})")
        if self.mcnemar_p is not None:
            line += (f"; McNemar {self.mcnemar_method} {format_p(self.mcnemar_p)} "
                     f"({self.base_only:,} won only in base, {self.other_only:,} only in other)")
        if np.isfinite(self.effect_size):
            line += f"; {self.effect_name} {self.effect_size:+.3f}"
        if np.isfinite(self.detectable):
            line += f"; detectable {self.detectable * (100 if binary else 1):.2g}{' points' if binary else ''}"
        if self.equivalence_p is not None:
            line += f"; equivalence within +-{self.margin:g}: TOST {format_p(self.equivalence_p)}"
        return line


def paired_difference(base: pl.DataFrame, other: pl.DataFrame, metric: str = "win",
                      key: Sequence[str] = ("deal", "rotation", "seat"), confidence: float = CONFIDENCE,
                      seed: int = SEED, margin: float | None = None, alpha: float = 0.05,
                      power: float = 0.8) -> PairedDifference:
    """Compare two runs on the same seeds (common random numbers): a sweep's cells, or an ablation.

    Rows are joined on ``key``; both runs must hold exactly the same keys, once
    each, and the same ``seed`` per key when both have a seed column, or this
    raises :class:`StatsError`. ``metric`` is a numeric or boolean column
    (``score``, ``win`` as 0/1, ``turns``); the difference is ``other - base``.
    When ``key`` holds ``deal`` and a deal has several rows (rotations), the
    differences are averaged per deal and the deal is the unit.
    Interval: :func:`mean_interval` on the unit differences (seeded
    percentile bootstrap). Test: ``scipy.stats.wilcoxon`` with
    ``zero_method="wilcox"`` (zero differences dropped) and ``method="auto"``;
    all-zero differences give p = 1. Binary metrics with one row per deal:
    also ``statsmodels mcnemar`` on the 2x2 table of wins, exact when fewer
    than 25 discordant pairs. Equivalence within +-``margin``:
    ``DescrStatsW(d).ttost_mean``. Detectable difference: the normal approximation (:func:`detectable_z`)
    (two-sided ``alpha``, ``power``) on the differences' standard deviation.
    """
    key = list(key)
    for name, frame in (("base", base), ("other", other)):
        _require(frame, [*key, metric], f"paired_difference ({name})")
        if frame.select(key).is_duplicated().any():
            raise StatsError(f"paired_difference: {name} has several rows for one key ({', '.join(key)}); "
                             "expected one row per key")
    only_base = base.select(key).join(other.select(key), on=key, how="anti")
    only_other = other.select(key).join(base.select(key), on=key, how="anti")
    if only_base.height or only_other.height:
        example = (only_base if only_base.height else only_other).row(0, named=True)
        raise StatsError(f"paired_difference: expected the same {', '.join(key)} in both runs (same seeds, same "
                         f"games), got {only_base.height:,} only in base and {only_other.height:,} only in other, "
                         f"e.g. {example}")
    extra = ["seed"] if "seed" in base.columns and "seed" in other.columns and "seed" not in key else []
    joined = base.select(*key, *extra, pl.col(metric).cast(pl.Float64).alias("base")).join(
        other.select(*key, *extra, pl.col(metric).cast(pl.Float64).alias("other")), on=key).sort(key)
    if extra and (joined["seed"] != joined["seed_right"]).any():
        raise StatsError("paired_difference: expected both runs on the same seeds (common random numbers), "
                         "got different seeds for the same key; pair runs played with the same --seed")
    x_all, y_all = joined["base"].to_numpy(), joined["other"].to_numpy()
    binary = bool(np.isin(np.r_[x_all, y_all], (0.0, 1.0)).all())  # win flags, or any 0/1 metric
    by_deal = "deal" in key and joined["deal"].n_unique() < joined.height
    if by_deal:
        units = joined.group_by("deal").agg(pl.col("base").mean(), pl.col("other").mean()).sort("deal")
        x, y = units["base"].to_numpy(), units["other"].to_numpy()
    else:
        x, y = x_all, y_all
    d = y - x
    if np.all(d == 0):
        w_stat, w_p = 0.0, 1.0
    else:
        result = stats.wilcoxon(d, zero_method=WILCOXON_ZERO_METHOD, method="auto", alternative="two-sided")
        w_stat, w_p = float(result.statistic), float(result.pvalue)
    mc_p = mc_method = base_only = other_only = None
    if binary and not by_deal:
        mc_p, mc_method, base_only, other_only = _mcnemar(x, y)
    sd = float(d.std(ddof=1)) if d.size > 1 else float("nan")
    if binary:
        effect, effect_name = float(proportion_effectsize(float(y.mean()), float(x.mean()))), "Cohen's h"
    else:
        effect, effect_name = (float(d.mean()) / sd if sd > 0 else float("nan")), "Cohen's d_z"
    detectable = float("nan")
    if sd > 0 and d.size > 2:
        detectable = sd * detectable_z(alpha, power) / math.sqrt(d.size)
    equivalence = None
    if margin is not None and d.size > 1:
        equivalence = (float(DescrStatsW(d).ttost_mean(-margin, margin)[0]) if sd > 0
                       else float(abs(float(d.mean())) >= margin))
    return PairedDifference(
        metric=metric, pairs=len(x_all), base_mean=float(x_all.mean()), other_mean=float(y_all.mean()),
        mean=mean_interval(d, confidence, seed), wilcoxon_statistic=w_stat, wilcoxon_p=w_p,
        zero_method=WILCOXON_ZERO_METHOD, mcnemar_p=mc_p, mcnemar_method=mc_method,
        base_only=base_only, other_only=other_only, units=len(d), unit="deals" if by_deal else "pairs",
        effect_size=effect, effect_name=effect_name, detectable=detectable, margin=margin,
        equivalence_p=equivalence, variance_ratio=_variance_ratio(x, y, d),
    )


def _variance_ratio(x: np.ndarray, y: np.ndarray, d: np.ndarray) -> float:
    """Games a paired comparison needs relative to two independent runs of the same precision."""
    if d.size < 2:
        return float("nan")
    unpaired = float(x.var(ddof=1) + y.var(ddof=1))
    return float(d.var(ddof=1)) / unpaired if unpaired > 0 else float("nan")


def _mcnemar(x: np.ndarray, y: np.ndarray) -> tuple[float, str, int, int]:
    """McNemar's test on paired 0/1 outcomes: (p, method, won only in x, won only in y)."""
    both = int(np.sum((x == 1) & (y == 1)))
    base_only = int(np.sum((x == 1) & (y == 0)))
    other_only = int(np.sum((x == 0) & (y == 1)))
    neither = int(np.sum((x == 0) & (y == 0)))
    exact = base_only + other_only < 25
    method = "exact binomial" if exact else "chi-square with continuity correction"
    if base_only + other_only == 0:
        return 1.0, method, base_only, other_only
    p = float(mcnemar([[both, base_only], [other_only, neither]], exact=exact, correction=True).pvalue)
    return p, method, base_only, other_only


# ---------------------------------------------------------------- multiplicity


def correct(p_values: Sequence[float] | np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values by ``multipletests(method=...)``: ``"holm"`` (family-wise) or ``"fdr_bh"`` (FDR).

    ``"bonferroni"`` is allowed too. NaN p-values (tests that could not run)
    stay NaN and do not count in the family.
    """
    if method not in CORRECTIONS:
        raise StatsError(f"correct: expected a method among {', '.join(CORRECTIONS)}, got {method!r}")
    p = np.asarray(p_values, dtype=np.float64)
    adjusted = np.full(p.shape, np.nan)
    finite = np.isfinite(p)
    if finite.any():
        adjusted[finite] = multipletests(p[finite], method=method)[1]
    return adjusted


def family_verdicts(advantages: Sequence[SeatAdvantage], alpha: float = 0.05) -> list[tuple[str, float, float]]:
    """Seat verdicts for a family of runs (a sweep's cells): ``(verdict, p_holm, tost_holm)`` per run.

    Both tests are Holm-corrected across the runs that measured seat balance
    (:func:`correct`): "unbalanced" needs the adjusted difference p below
    ``alpha``, "balanced" the adjusted equivalence p (each run's largest
    per-seat equivalence p) below ``alpha``; runs their lineup cannot judge keep
    :data:`VERDICT_NOT_MEASURED`. The same rule gives every cell's verdict and
    the sweep's headline, so they cannot disagree.
    """
    measured = [a.measured for a in advantages]
    p = correct([a.p_value if m else np.nan for a, m in zip(advantages, measured)], "holm")
    tost = correct([a.tost_p if m else np.nan for a, m in zip(advantages, measured)], "holm")
    verdicts = []
    for a, m, p_holm, tost_holm in zip(advantages, measured, p, tost):
        # A lopsided lineup (an adjusted run with a lineup note) is never balanced, as in seat_advantage.
        lopsided = a.design == DESIGN_ADJUSTED and bool(a.lineup_note)
        verdict = (VERDICT_NOT_MEASURED if not m else
                   (VERDICT_UNBALANCED if p_holm < alpha else VERDICT_NOT_MEASURED) if lopsided else
                   VERDICT_BALANCED if tost_holm < alpha else
                   VERDICT_UNBALANCED if p_holm < alpha else VERDICT_UNSURE)
        verdicts.append((verdict, float(p_holm), float(tost_holm)))
    return verdicts


# ---------------------------------------------------------------- stopping


def max_half_width(records: pl.DataFrame, confidence: float = CONFIDENCE) -> float:
    """The largest Wilson half-width of a seat's win rate (first places incl. shared, over all games)."""
    _require(records, ["seat", "win"], "max_half_width")
    table = records.group_by("seat").agg(pl.len().alias("games"), pl.col("win").sum().alias("wins"))
    low, high = _wilson(table["wins"].to_numpy(), table["games"].to_numpy(), confidence)
    return float(np.max((high - low) / 2))


def half_width_reached(records: pl.DataFrame, target: float, confidence: float = CONFIDENCE) -> bool:
    """True when every seat's Wilson interval is at most ``target`` wide on each side (``play --until-ci``)."""
    return max_half_width(records, confidence) <= target


# ---------------------------------------------------------------- why a seat wins, drama, items


POINTS_PREFIX = "points_"
UNATTRIBUTED = "(not in a points_ column)"


def _units(frame: pl.DataFrame) -> str:
    """``"deals"`` when some deal holds several games (the deal is then the unit), else ``"games"``."""
    return "deals" if frame["deal"].n_unique() < frame["game"].n_unique() else "games"


def _deal_means(frame: pl.DataFrame, value: str, groups: Sequence[str], confidence: float = CONFIDENCE,
                seed: int = SEED) -> pl.DataFrame:
    """Per group: the mean of ``value`` with its interval, the deal as the unit.

    A deal's rows are averaged first (games of one deal share their shuffles),
    then :func:`mean_interval` runs over the deals. Columns: the groups,
    ``mean``, ``low``, ``high``, ``deals``, ``method``, ``p_value`` (one-sample t
    test of the deal means against 0, ``scipy.stats.ttest_1samp``; NaN without
    variation).
    """
    if not groups:
        return _deal_means(frame.with_columns(pl.lit(0).alias("_all")), value, ["_all"], confidence, seed).drop("_all")
    per_deal = frame.group_by(*groups, "deal").agg(pl.col(value).cast(pl.Float64).mean()).sort(*groups, "deal")
    rows = []
    for key, part in per_deal.group_by(list(groups), maintain_order=True):
        values = part[value].to_numpy()
        m = mean_interval(values, confidence, seed)
        p = (float(stats.ttest_1samp(values, 0.0).pvalue) if values.size > 1 and np.ptp(values) > 0
             else float("nan"))
        rows.append({**dict(zip(groups, key)), "mean": m.mean, "low": m.low, "high": m.high, "deals": m.n,
                     "method": m.method, "p_value": p})
    schema = {g: frame.schema[g] for g in groups} | {"mean": pl.Float64, "low": pl.Float64, "high": pl.Float64,
                                                     "deals": pl.Int64, "method": pl.String, "p_value": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def points_columns(records: pl.DataFrame) -> list[str]:
    """The records' ``points_*`` columns (a seat's points by source), in table order."""
    return [c for c in records.columns if c.startswith(POINTS_PREFIX)]


@dataclass(frozen=True)
class ScoreSources:
    """Where each seat's points come from, and which sources make the leading seat's lead.

    ``per_seat``: ``seat``, ``source``, ``mean``, ``low``, ``high``, ``deals``,
    ``method`` (mean points per game from that source). ``leader`` is the seat
    with the highest mean score; ``lead``: per source, the leader's points minus
    the mean of the other seats' in the same game (``mean``, ``low``, ``high``,
    ``p_value`` of a one-sample t test against 0, ``share`` of the total lead),
    largest first; ``total`` the same for the whole score. Means are over deals
    (a deal's games averaged first). A source named :data:`UNATTRIBUTED` holds
    the score the ``points_*`` columns leave out, when they do not add up.
    """

    sources: tuple[str, ...]
    per_seat: pl.DataFrame
    leader: int | None
    lead: pl.DataFrame | None
    total: pl.DataFrame | None
    unit: str

    @property
    def top_source(self) -> str | None:
        """The source that brings the leader the most of its lead (None for one seat)."""
        return None if self.lead is None or not self.lead.height else str(self.lead["source"][0])

    def describe(self) -> str:
        lines = []
        if self.lead is not None and self.total is not None:
            t = self.total.to_dicts()[0]
            lines.append(f"seat {self.leader} leads by {t['mean']:+.2f} points a game [{t['low']:+.2f}, "
                         f"{t['high']:+.2f}] ({t['method']}, n = {t['deals']:,} {self.unit}) over the other "
                         "seats' mean")
            for row in self.lead.to_dicts():
                lines.append(f"  {row['source']}: {row['mean']:+.2f} [{row['low']:+.2f}, {row['high']:+.2f}], "
                             f"{_pct(row['share'])} of the lead, t test {format_p(row['p_value'])}")
        return "\n".join(lines)


def score_sources(records: pl.DataFrame, confidence: float = CONFIDENCE, seed: int = SEED) -> ScoreSources | None:
    """Mean points per seat and source (the ``points_*`` columns), and the sources of the leader's lead.

    None when the records have no ``points_*`` column. See :class:`ScoreSources`.
    """
    columns = points_columns(records)
    if not columns:
        return None
    _require(records, ["game", "deal", "seat", "score"], "score_sources")
    names = [c.removeprefix(POINTS_PREFIX) for c in columns]
    frame = records.select("game", "deal", pl.col("seat").cast(pl.Int64), "score",
                           *[pl.col(c).cast(pl.Float64).alias(n) for c, n in zip(columns, names)])
    residual = frame["score"] - frame.select(pl.sum_horizontal(names)).to_series()
    if bool((residual.abs() > 1e-9).any()):
        frame = frame.with_columns(residual.alias(UNATTRIBUTED))
        names.append(UNATTRIBUTED)
    long = frame.unpivot(on=names, index=["game", "deal", "seat"], variable_name="source", value_name="points")
    per_seat = _deal_means(long, "points", ["seat", "source"], confidence, seed).drop("p_value")
    order = {n: i for i, n in enumerate(names)}
    per_seat = per_seat.sort(pl.col("seat"), pl.col("source").replace_strict(order, return_dtype=pl.Int64))
    unit = _units(records)
    if frame["seat"].n_unique() < 2:
        return ScoreSources(tuple(names), per_seat, None, None, None, unit)
    means = frame.group_by("seat").agg(pl.col("score").mean()).sort("score", "seat", descending=[True, False])
    leader = int(means["seat"][0])

    def lead_of(column: str) -> pl.Expr:
        return (pl.col(column).filter(pl.col("seat") == leader).first()
                - pl.col(column).filter(pl.col("seat") != leader).mean()).alias(column)

    per_game = frame.group_by("game").agg(pl.col("deal").first(), *[lead_of(c) for c in ["score", *names]])
    lead_long = per_game.unpivot(on=names, index=["game", "deal"], variable_name="source", value_name="lead")
    total = _deal_means(per_game, "score", [], confidence, seed) if per_game.height else None
    lead = _deal_means(lead_long, "lead", ["source"], confidence, seed)
    whole = float(total["mean"][0]) if total is not None else float("nan")
    lead = lead.with_columns((pl.col("mean") / whole if whole else pl.lit(float("nan"))).alias("share")).sort(
        "mean", descending=True)
    return ScoreSources(tuple(names), per_seat, leader, lead, total, unit)


@dataclass(frozen=True)
class Tempo:
    """Turns per seat and who moved last, from the events.

    ``turns``: ``seat``, ``mean``, ``low``, ``high``, ``deals``, ``method``: the
    turns a seat took per game (distinct values of the order column among its
    move events). ``last_mover``: ``end``, ``seat``, ``games``, ``of``,
    ``share``, ``low``, ``high``: the share of games (of one end reason, and
    ``all``) whose last move was that seat's (Wilson, or by deal when deals hold
    several games). ``on_winner``: games with one winner that end on the
    winner's own move; ``on_leader``: games that end on the move of the seat
    that had the highest final score alone. ``columns`` says what was read.
    """

    turns: pl.DataFrame
    last_mover: pl.DataFrame
    on_winner: Proportion
    on_leader: Proportion
    columns: str


def _share_table(frame: pl.DataFrame, flag: str, groups: Sequence[str], confidence: float,
                 seed: int) -> pl.DataFrame:
    """Per group the share of rows with ``flag`` true: Wilson with one game a deal, else per-deal means."""
    if _units(frame) == "games":
        table = frame.group_by(*groups).agg(pl.col(flag).sum().cast(pl.Int64).alias("games"),
                                             pl.len().cast(pl.Int64).alias("of")).sort(*groups)
        low, high = _wilson(table["games"].to_numpy(), table["of"].to_numpy(), confidence)
        return table.with_columns((pl.col("games") / pl.col("of")).alias("share"),
                                  pl.Series("low", low, dtype=pl.Float64), pl.Series("high", high, dtype=pl.Float64))
    counts = frame.group_by(*groups).agg(pl.col(flag).sum().cast(pl.Int64).alias("games"),
                                         pl.len().cast(pl.Int64).alias("of"))
    means = _deal_means(frame, flag, groups, confidence, seed).select(*groups, pl.col("mean").alias("share"), "low",
                                                                       "high")
    return counts.join(means, on=list(groups)).sort(*groups)


def _proportion_of(frame: pl.DataFrame, flag: str, confidence: float, seed: int) -> Proportion:
    row = _share_table(frame.with_columns(pl.lit(0).alias("_all")), flag, ["_all"], confidence, seed).to_dicts()
    if not row:
        return proportion(0, 0, confidence)
    r = row[0]
    return Proportion(k=r["games"], n=r["of"], rate=r["share"], low=r["low"], high=r["high"], confidence=confidence,
                      method="Wilson" if _units(frame) == "games" else "by deal")


def tempo(records: pl.DataFrame, events: pl.DataFrame | None, order: str, moves: pl.Expr | None = None,
          moves_text: str = "every event", confidence: float = CONFIDENCE, seed: int = SEED) -> Tempo | None:
    """Turns per seat and the seat whose move ended each game; None when the events cannot say.

    ``order`` is the events column that orders play (a turn or decision index);
    ``moves`` selects the events that are a seat's own move (None: every
    event; ``moves_text`` says which in words). The last move of a game is its move event with the largest
    ``order`` (the last such row in the file when several share it).
    """
    if events is None or not {"game", "seat", order} <= set(events.columns) or not events.height:
        return None
    _require(records, ["game", "deal", "seat", "score", "rank", "end"], "tempo")
    moved = events if moves is None else events.filter(moves)
    moved = moved.select("game", pl.col("seat").cast(pl.Int64), pl.col(order)).with_row_index("_row")
    seat_games = records.select("game", "deal", pl.col("seat").cast(pl.Int64))
    taken = moved.group_by("game", "seat").agg(pl.col(order).n_unique().cast(pl.Float64).alias("turns"))
    turns = seat_games.join(taken, on=["game", "seat"], how="left").with_columns(pl.col("turns").fill_null(0.0))
    per_seat = _deal_means(turns, "turns", ["seat"], confidence, seed).drop("p_value")
    last = moved.sort("game", order, "_row").group_by("game").agg(pl.col("seat").last().alias("last"))
    games = records.group_by("game").agg(
        pl.col("deal").first(), pl.col("end").first(),
        pl.col("seat").filter(pl.col("rank") == 1).cast(pl.Int64).alias("winners"),
        pl.col("seat").filter(pl.col("score") == pl.col("score").max()).cast(pl.Int64).alias("top"),
    ).join(last, on="game", how="inner")
    seats = sorted(records["seat"].cast(pl.Int64).unique().to_list())
    rows = games.select("game", "deal", "end", "last").join(pl.DataFrame({"seat": seats}), how="cross").with_columns(
        (pl.col("last") == pl.col("seat")).alias("ended"))
    by_end = pl.concat([_share_table(rows, "ended", ["end", "seat"], confidence, seed),
                        _share_table(rows.with_columns(pl.lit("all").alias("end")), "ended", ["end", "seat"],
                                     confidence, seed)])
    one_winner = games.filter(pl.col("winners").list.len() == 1).with_columns(
        (pl.col("winners").list.first() == pl.col("last")).alias("flag"))
    one_top = games.filter(pl.col("top").list.len() == 1).with_columns(
        (pl.col("top").list.first() == pl.col("last")).alias("flag"))
    return Tempo(per_seat, by_end, _proportion_of(one_winner, "flag", confidence, seed),
                 _proportion_of(one_top, "flag", confidence, seed),
                 f"events columns game, seat, {order} (moves: {moves_text}); records columns rank, score, end")


@dataclass(frozen=True)
class Drama:
    """How decisive, drawish and variable games are (per run, or per sweep cell).

    ``margin`` (:func:`score_margin`) with its quartiles ``margin_q1``,
    ``margin_median``, ``margin_q3``; ``close``: games won by the smallest
    margin; ``ties``: shared first places (drawishness); ``turns_sd`` the
    standard deviation of game length with a percentile bootstrap interval
    (``scipy.stats.bootstrap``, seeded), ``turns_iqr`` and ``turns_cv``
    (sd over mean). ``lead_changes`` only when events carry a per-turn score.
    """

    games: int
    margin: Margin
    margin_q1: float
    margin_median: float
    margin_q3: float
    turns_sd: float
    turns_sd_low: float
    turns_sd_high: float
    turns_iqr: float
    turns_cv: float
    lead_changes: LeadChanges | None

    @property
    def close(self) -> Proportion:
        return self.margin.smallest_share

    @property
    def ties(self) -> Proportion:
        return self.margin.ties

    def describe(self) -> str:
        m = self.margin.mean
        return (f"margin median {self.margin_median:g} (quartiles {self.margin_q1:g} / {self.margin_q3:g}), mean "
                f"{m.mean:.2f} [{m.low:.2f}, {m.high:.2f}] ({m.method}); "
                + self.ties.describe("", "shared first places") + "; "
                + f"turns sd {self.turns_sd:.2f} [{self.turns_sd_low:.2f}, {self.turns_sd_high:.2f}] (bootstrap "
                f"percentile {_confidence(CONFIDENCE)}), IQR {self.turns_iqr:g}, CV {self.turns_cv:.2f}")


def _pooled_sd(sums: np.ndarray, squares: np.ndarray, counts: np.ndarray, axis: int = -1) -> np.ndarray:
    """The standard deviation of every value of a set of deals, from their per-deal sums."""
    n = counts.sum(axis=axis)
    mean = sums.sum(axis=axis) / n
    return np.sqrt(np.maximum(squares.sum(axis=axis) - n * mean * mean, 0.0) / (n - 1))


def _sd_interval(values: np.ndarray, deals: np.ndarray, confidence: float, seed: int) -> tuple[float, float]:
    """Percentile bootstrap interval of the standard deviation, resampling whole deals (a deal's games
    together: ``scipy.stats.bootstrap`` with ``paired=True`` over per-deal sums, squares and counts)."""
    sd = float(values.std(ddof=1))
    if np.ptp(values) == 0:
        return sd, sd
    _, codes = np.unique(deals, return_inverse=True)
    sums, squares = np.bincount(codes, weights=values), np.bincount(codes, weights=values * values)
    counts = np.bincount(codes).astype(np.float64)
    ci = stats.bootstrap((sums, squares, counts), _pooled_sd, paired=True, n_resamples=BOOTSTRAP_RESAMPLES,
                         vectorized=True, batch=max(1, _BOOTSTRAP_BATCH_VALUES // counts.size),
                         confidence_level=confidence, method="percentile",
                         rng=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def drama(records: pl.DataFrame, events: pl.DataFrame | None = None, confidence: float = CONFIDENCE,
          seed: int = SEED) -> Drama:
    """Decisiveness (final margin), drawishness (shared first places) and the spread of game length."""
    _require(records, ["game", "rank", "score", "turns", "end"], "drama")
    margin = score_margin(records, confidence, seed)
    spread = margin.distribution.select(pl.col("margin").repeat_by("games").explode())["margin"]
    games = _per_game(records)
    turns = games["turns"].cast(pl.Float64).to_numpy()
    sd = float(turns.std(ddof=1)) if turns.size > 1 else float("nan")
    low, high = _sd_interval(turns, games["deal"].to_numpy(), confidence, seed) if turns.size > 1 else (sd, sd)
    q = np.quantile(turns, [0.25, 0.75]) if turns.size else (np.nan, np.nan)
    return Drama(
        games=int(turns.size), margin=margin,
        margin_q1=float(spread.quantile(0.25, interpolation="linear")) if spread.len() else float("nan"),
        margin_median=float(spread.median()) if spread.len() else float("nan"),
        margin_q3=float(spread.quantile(0.75, interpolation="linear")) if spread.len() else float("nan"),
        turns_sd=sd, turns_sd_low=low, turns_sd_high=high, turns_iqr=float(q[1] - q[0]),
        turns_cv=sd / float(turns.mean()) if turns.size and turns.mean() else float("nan"),
        lead_changes=lead_changes(records, events, confidence=confidence, seed=seed),
    )


def item_strength(records: pl.DataFrame, events: pl.DataFrame, item: str, *, points: str | None = None,
                  values: Sequence[str] | None = None, alpha: float = 0.05,
                  confidence: float = CONFIDENCE) -> pl.DataFrame:
    """One row per item of a component family, sorted by effect: :func:`component_strength` plus
    ``p_bh`` (Benjamini-Hochberg across the items), ``holm``/``bh`` flags (adjusted p < ``alpha``) and,
    with ``points`` (an events column), ``mean_points``: the mean points an event of that item scored.

    OBSERVATIONAL AND BIASED, as :func:`component_strength`. Sorted by ``difference``, largest first;
    items without a comparison (used by every seat-game or none) last.
    """
    table = component_strength(records, events, item, values=values, alpha=alpha, confidence=confidence)
    table = table.with_columns(pl.Series("p_bh", correct(table["p_value"].to_numpy(), "fdr_bh"), dtype=pl.Float64))
    table = table.with_columns((pl.col("p_holm") < alpha).fill_null(False).alias("holm"),
                               (pl.col("p_bh") < alpha).fill_null(False).alias("bh"))
    if points is not None and points in events.columns:
        scored = events.group_by(pl.col(item).cast(pl.String)).agg(
            pl.col(points).cast(pl.Float64).mean().alias("mean_points"))
        table = table.join(scored, on=item, how="left")
    else:
        table = table.with_columns(pl.lit(None, dtype=pl.Float64).alias("mean_points"))
    return table.sort(pl.col("difference").fill_nan(None), item, descending=[True, False], nulls_last=True)


# ---------------------------------------------------------------- methods


def methods_used() -> list[str]:
    """One line per test or interval this module uses, for a report's methods section."""
    level = _confidence(CONFIDENCE)
    return [
        f"Win rates and shares: Wilson score interval ({level}), statsmodels proportion_confint(method='wilson').",
        f"Mean scores, margins, turns and paired differences: percentile bootstrap ({level}, "
        f"{BOOTSTRAP_RESAMPLES:,} resamples, scipy.stats.bootstrap, seeded with {SEED}); above "
        f"{BOOTSTRAP_MAX_N:,} values a t interval on the standard error.",
        "The deal is the unit: games that share a deal (seat rotations, the same seed in two runs or cells) are "
        "not independent, so every test, interval and paired change that meets them counts deals.",
        "Seat advantage between equal players (the same bot in every seat), one game per deal: exact binomial test "
        "of seat 0's wins against 50% among games with a single winner (scipy.stats.binomtest), or with 3-4 players "
        "chi-square goodness of fit of first places (scipy.stats.chisquare, shared first places as fractions); "
        "Wilson intervals; per-seat exact binomial tests, Holm across seats.",
        "Seat advantage between equal players, several games per deal: per-deal seat shares; one-sample t test "
        "(scipy.stats.ttest_1samp) or with 3-4 players Hotelling's T-squared (statsmodels test_mvmean); t "
        "intervals; equivalence by DescrStatsW.ttost_mean.",
        "Seat advantage with mixed lineups and rotated seats: Bradley-Terry logistic regression with seat and bot "
        "terms on every pair of seats with different places (statsmodels Logit, covariance clustered by deal); the "
        "equal-player share of each seat is the softmax of the seat terms with a delta-method interval; joint "
        "clustered Wald test (F reference, deals - 1 degrees of freedom); equivalence by two one-sided t tests. A lineup whose bots are far apart in strength "
        f"(over {LOPSIDED_SHARE:.0%} of decided comparisons) or in fixed seats is 'not measured by this lineup'.",
        "Balance within +-delta: every seat's equivalence test must reject (intersection-union test): exact "
        "binomial TOST (statsmodels binom_tost) per game, t TOST per deal, z TOST on the model's shares.",
        "Sweeps: each cell's verdict and the headline use the same rule, the difference test and the equivalence "
        "test both Holm-corrected across the cells (family_verdicts).",
        "Games still needed: one-sample power on Cohen's h (statsmodels proportion_effectsize, "
        "NormalIndPower.solve_power, ratio=0).",
        "Skill gradient: games of one deal (all seat rotations, same seed) are one paired unit (fishtest's "
        "pentanomial idea); a bot's share of points against another (tie or stall = half) is the mean of per-deal "
        "shares with a t interval (scipy.stats.ttest_1samp), or Wilson on deal units when they do not vary.",
        "Bot ratings: Bradley-Terry by logistic regression on a +-1 design (statsmodels Logit, Newton; constant = "
        "first-seat edge; one bot fixed at 0); with 3-4 players each pair of seats in a game is one comparison; "
        "standard errors clustered by deal (cov_type='cluster'); under perfect separation a virtual-draw prior "
        "(two drawn comparisons per pairing).",
        "Component strength (observational, biased): win rate when used vs not used per seat-game, the deal as the "
        "unit: Newcombe hybrid score interval (statsmodels confint_proportions_2indep(method='newcomb')) and score "
        "test (test_proportions_2indep(method='score')) on counts divided by the design effect, the cluster-robust "
        "variance by deal (OLS win ~ used, cov_type='cluster') over the independent one, floored at 1; Holm "
        "correction across components.",
        "Paired runs on the same seeds: differences averaged per deal when a deal holds several games; Wilcoxon "
        "signed-rank test on them (scipy.stats.wilcoxon, zero_method='wilcox'); for win/loss with one game a deal "
        "McNemar's test (statsmodels mcnemar, exact binomial under 25 discordant pairs); effect size Cohen's h (or "
        "d_z), the detectable difference (normal approximation, z(1-alpha/2) + z(power) standard errors, 80% power) and the equivalence test within the "
        "margin (DescrStatsW.ttost_mean) behind every 'no change'.",
        "Independent runs: Newcombe interval and score test for two proportions (statsmodels), equivalence by "
        "tost_proportions_2indep; by deal (Welch t, ttost_ind) when a run rotates seats.",
        "Stopping (play --until-ci): every seat's win-rate interval by deal (Wilson with one game a deal, else a t "
        "interval of per-deal shares, DescrStatsW.tconfint_mean) checked after each step; with --anytime a "
        "normal-mixture confidence sequence (Robbins; Howard et al. 2021) valid at every look. The rule, its looks "
        "and the outcome are in the manifest and the report.",
        "Many comparisons: Holm (family-wise) or Benjamini-Hochberg (FDR) adjusted p-values "
        "(statsmodels multipletests, method named).",
        "Sample sizes: Cohen's h and normal power of a two-sided proportion test (statsmodels NormalIndPower).",
    ]
