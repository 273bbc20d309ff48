"""Paired runs on the same seeds, and multiplicity corrections across seats and cells."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_effectsize
from statsmodels.stats.weightstats import DescrStatsW

from analysis.report.text import _interval_pct, _pct, _signed_points, format_p
from analysis.stats.common import (
    CONFIDENCE,
    CORRECTIONS,
    SEED,
    StatsError,
    VERDICT_BALANCED,
    VERDICT_NOT_MEASURED,
    VERDICT_UNBALANCED,
    VERDICT_UNSURE,
    _require,
)
from analysis.stats.intervals import MeanInterval, mean_interval, varies
from analysis.stats.power import detectable_z
from analysis.stats.seat_result import SeatAdvantage


# ---------------------------------------------------------------- paired runs


@dataclass(frozen=True)
class PairedDifference:
    """``other`` minus ``base`` on the same seeds, paired by key, analysed by deal.

    Rows are paired by key (deal, rotation, seat); when a deal holds several
    paired rows (seat rotations), the deal is the unit: its differences are
    averaged first, because games of one deal share their shuffles.
    ``mean`` is the mean difference per unit with its t interval, and
    ``p_value`` the one-sample t test of that mean against 0
    (``scipy.stats.ttest_1samp``): the interval and the test are one
    computation, so "significant" and "the interval leaves out 0" always agree.
    ``base_only`` / ``other_only`` count the discordant pairs of a 0/1 metric
    with one row a deal (won in one run only). ``effect_size`` is Cohen's h
    for a binary metric (else the mean difference over the differences'
    standard deviation, Cohen's d_z); ``detectable`` the smallest difference
    this many units detect (two-sided ``alpha``, ``power``);
    ``equivalence_p`` the paired TOST within +-``margin`` (None without a
    margin), judged at ``alpha``.
    """

    metric: str
    pairs: int
    base_mean: float
    other_mean: float
    mean: MeanInterval
    p_value: float
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
    alpha: float = 0.05
    binary: bool = False

    test = "t test on paired differences (scipy ttest_1samp)"

    @property
    def difference(self) -> float:
        return self.mean.mean

    @property
    def equivalent(self) -> bool:
        """True when the paired TOST shows the change is inside +-margin at ``alpha``."""
        return self.equivalence_p is not None and self.equivalence_p < self.alpha

    def describe(self) -> str:
        m = self.mean
        if self.binary:
            change = f"{_signed_points(m.mean)} {_interval_pct(m.low, m.high)}"
            levels = f"{_pct(self.base_mean)} -> {_pct(self.other_mean)}"
        else:
            change = f"{m.mean:+.3f} [{m.low:+.3f}, {m.high:+.3f}]"
            levels = f"{self.base_mean:.3f} -> {self.other_mean:.3f}"
        n = f"n = {self.pairs:,} pairs" + (f" in {self.units:,} deals" if self.unit == "deals" else "")
        line = f"{self.metric}: {levels}, paired difference {change} ({m.method}), {n}; t test {format_p(self.p_value)}"
        if self.base_only is not None:
            line += f" ({self.base_only:,} won only in base, {self.other_only:,} only in other)"
        if np.isfinite(self.effect_size):
            line += f"; {self.effect_name} {self.effect_size:+.3f}"
        if np.isfinite(self.detectable):
            scale = 100 if self.binary else 1
            line += f"; detectable {self.detectable * scale:.2g}{' points' if self.binary else ''}"
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
    Interval and test: the t interval of the mean unit difference and the
    one-sample t test of it against 0 (``scipy.stats.ttest_1samp``), one
    computation; differences that do not vary get the exact sign test, all-zero ones p = 1. Equivalence within
    +-``margin``: ``DescrStatsW(d).ttost_mean``, judged at ``alpha``.
    Detectable difference: the normal approximation (:func:`detectable_z`)
    (two-sided ``alpha``, ``power``) on the differences' standard deviation.
    ``seed`` is kept for callers that pass one; nothing here is random.
    """
    return paired_from_tally(pair_tally(base, other, metric, key), metric, confidence, margin, alpha, power)


@dataclass
class PairTally:
    """A paired comparison of two runs read a block of whole deals at a time: each distinct unit (a deal when
    ``key`` holds ``deal``, else a paired row) as its mean ``(base, other)`` values with how many units had it,
    and what the rows themselves give (their count and sums, whether every value is 0 or 1, whether some deal
    holds several rows). :meth:`add` a block; :func:`paired_from_tally` gives the
    :class:`PairedDifference`."""

    units: Counter = field(default_factory=Counter)
    pairs: int = 0
    base_sum: float = 0.0
    other_sum: float = 0.0
    binary: bool = True
    by_deal: bool = False

    def add(self, base: pl.DataFrame, other: pl.DataFrame, metric: str, key: Sequence[str]) -> None:
        """Pair ``base`` and ``other`` (rows of the same whole deals) on ``key`` and tally them."""
        key = list(key)
        for name, frame in (("base", base), ("other", other)):
            _require(frame, [*key, metric], f"paired_difference ({name})")
        joined = _pairs(base.with_columns(pl.col(metric).cast(pl.Float64).alias("base")),
                        other.with_columns(pl.col(metric).cast(pl.Float64).alias("base")), key, ["base"]) \
            .rename({"base_right": "other"})
        x, y = joined["base"].to_numpy(), joined["other"].to_numpy()
        self.pairs += joined.height
        self.base_sum, self.other_sum = self.base_sum + float(x.sum()), self.other_sum + float(y.sum())
        self.binary = self.binary and bool(np.isin(np.r_[x, y], (0.0, 1.0)).all())
        if "deal" in key:
            self.by_deal = self.by_deal or joined["deal"].n_unique() < joined.height
            joined = joined.group_by("deal").agg(pl.col("base").mean(), pl.col("other").mean())
        for base_value, other_value, count in joined.group_by("base", "other").len().iter_rows():
            self.units[(base_value, other_value)] += count

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(base values, other values, units with each pair), one entry per distinct pair, in a fixed order."""
        pairs = sorted(self.units)
        return (np.array([p[0] for p in pairs], dtype=np.float64), np.array([p[1] for p in pairs], dtype=np.float64),
                np.array([self.units[p] for p in pairs], dtype=np.float64))


def pair_tally(base: pl.DataFrame, other: pl.DataFrame, metric: str = "win",
               key: Sequence[str] = ("deal", "rotation", "seat"), tally: PairTally | None = None) -> PairTally:
    """``tally`` (a new one when None) with the rows of ``base`` and ``other`` (the same whole deals) added."""
    tally = tally if tally is not None else PairTally()
    tally.add(base, other, metric, key)
    return tally


def paired_from_tally(tally: PairTally, metric: str = "win", confidence: float = CONFIDENCE,
                      margin: float | None = None, alpha: float = 0.05, power: float = 0.8) -> PairedDifference:
    """The :class:`PairedDifference` of a :class:`PairTally` (see :func:`paired_difference`): every statistic on
    the per-unit differences, each distinct one repeated as often as units had it (statsmodels ``DescrStatsW``
    with frequency weights: the same t interval, t test and TOST)."""
    x, y, weights = tally.arrays()
    if not weights.size:
        raise StatsError(f"paired comparison of {metric}: expected paired rows, got none")
    d = y - x
    units = int(weights.sum())
    interval = mean_interval(d, confidence, weights=weights)
    p_value = _paired_p(d, weights)
    base_only = other_only = None
    if tally.binary and not tally.by_deal:
        base_only = int(weights[(x == 1) & (y == 0)].sum())
        other_only = int(weights[(x == 0) & (y == 1)].sum())
    sd = _sd(d, weights)
    if tally.binary:
        effect = float(proportion_effectsize(_mean(y, weights), _mean(x, weights)))
        effect_name = "Cohen's h"
    else:
        effect, effect_name = (_mean(d, weights) / sd if sd > 0 else float("nan")), "Cohen's d_z"
    detectable = float("nan")
    if sd > 0 and units > 2:
        detectable = sd * detectable_z(alpha, power) / math.sqrt(units)
    equivalence = None
    if margin is not None and units > 1:
        equivalence = (float(DescrStatsW(d, weights=weights).ttost_mean(-margin, margin)[0]) if sd > 0
                       else float(abs(_mean(d, weights)) >= margin))
    unpaired = _sd(x, weights) ** 2 + _sd(y, weights) ** 2
    return PairedDifference(
        metric=metric, pairs=tally.pairs, base_mean=tally.base_sum / tally.pairs,
        other_mean=tally.other_sum / tally.pairs, mean=interval, p_value=p_value, base_only=base_only,
        other_only=other_only, units=units, unit="deals" if tally.by_deal else "pairs", effect_size=effect,
        effect_name=effect_name, detectable=detectable, margin=margin, equivalence_p=equivalence,
        variance_ratio=_sd(d, weights) ** 2 / unpaired if unpaired > 0 else float("nan"), alpha=alpha,
        binary=tally.binary,
    )


def _mean(values: np.ndarray, weights: np.ndarray) -> float:
    return float(np.average(values, weights=weights)) if weights.sum() > 0 else float("nan")


def _sd(values: np.ndarray, weights: np.ndarray) -> float:
    """The standard deviation (ddof 1) of ``values`` repeated ``weights`` times; NaN under two values."""
    if weights.sum() < 2:
        return float("nan")
    return float(DescrStatsW(values, weights=weights, ddof=1).std)


def seat_fractions(records: pl.DataFrame, players: int | None = None) -> pl.DataFrame:
    """``records`` with ``fraction``, the seat's share of its game's first place (1 alone first, 1/m of a first
    place shared by m seats, else 0), and ``counted``: whether the game counts towards the seat shares as
    :func:`analysis.stats.seat_advantage` counts it (with 2 players a game with one winner, ties and stalls out;
    with 3-4 a game with a first place, stalls out). A game that ended ``blocked`` has its ranks: it counts."""
    _require(records, ["game", "win"], "seat_fractions")
    players = players if players is not None else int(records["seat"].max()) + 1
    firsts = pl.col("win").cast(pl.Float64).sum().over("game")
    return records.with_columns(
        pl.when(firsts > 0).then(pl.col("win").cast(pl.Float64) / firsts).otherwise(0.0).alias("fraction"),
        ((firsts == 1) if players == 2 else (firsts > 0)).alias("counted"))


SHARE_CHANGE_METHOD = "delta-method pseudo-values by deal"


def seat_share_change(base: pl.DataFrame, other: pl.DataFrame, seat: int | None = 0,
                      key: Sequence[str] = ("deal", "rotation", "seat"), margin: float | None = None,
                      confidence: float = CONFIDENCE, seed: int = SEED, alpha: float = 0.05,
                      power: float = 0.8, metric: str = "seat share") -> PairedDifference:
    """The change of a seat's share of decided games (first places with 3-4 players), as the headline counts it,
    between two runs on the same seeds: ``other`` minus ``base``.

    ``base`` and ``other`` are records with :func:`seat_fractions`'s columns (or plain records: they are added),
    paired by ``key`` like :func:`paired_difference`; ``seat`` picks one seat's rows (None: every row given,
    such as the seats that used an item). Each run's share is the one
    :func:`analysis.stats.seat_advantage` reports between equal players: per deal the seat's first-place
    fractions over its counted games, averaged over the deals with a counted game (with one game a deal, first
    places over decided games). A deal tied in one run and decided in the other counts in the second run's
    share only, so no deal is selected by an outcome the change may move.

    Inference: the difference of the two shares is a smooth function of per-deal sums, so each deal gets a
    pseudo-value, the difference plus its first-order (delta-method) influence, whose mean is the difference
    exactly; the interval is :func:`mean_interval` on them, the test a one-sample t test against 0
    (``scipy.stats.ttest_1samp``), equivalence ``DescrStatsW.ttost_mean`` within +-``margin``. When every deal
    is decided in both runs and holds one game, the pseudo-values are the paired win differences.

    With a mixed lineup in rotated seats the shares are that lineup's per-deal seat shares, as the seat analysis
    reports them (every bot in every seat of a deal).
    """
    tally = share_tally(base, other, seat, key)
    return share_change_from_tally(tally, margin, confidence, alpha, power, metric)


@dataclass
class ShareTally:
    """The change of a seat's share between two runs read a block of whole deals at a time: each distinct deal as
    its first-place fractions and counted games in each run, ``(n_base, k_base, n_other, k_other)``, with how
    many deals had it; the paired rows; whether some deal holds several."""

    deals: Counter = field(default_factory=Counter)
    pairs: int = 0
    by_deal: bool = False

    def add(self, base: pl.DataFrame, other: pl.DataFrame, seat: int | None = 0,
            key: Sequence[str] = ("deal", "rotation", "seat")) -> None:
        """Pair ``base`` and ``other`` (records of the same whole deals, or with :func:`seat_fractions`'s columns)
        on ``key`` and tally them."""
        key = list(key)
        frames = []
        for frame in (base, other):
            if "counted" not in frame.columns:
                frame = seat_fractions(frame)
            frames.append(frame)
        base, other = frames
        if seat is not None:
            base, other = base.filter(pl.col("seat") == seat), other.filter(pl.col("seat") == seat)
        joined = _pairs(base, other, key, ["fraction", "counted"])
        self.pairs += joined.height
        self.by_deal = self.by_deal or ("deal" in key and joined["deal"].n_unique() < joined.height)
        per_deal = joined.group_by("deal").agg(
            (pl.col("fraction") * pl.col("counted")).sum().alias("n_base"), pl.col("counted").cast(pl.Float64).sum()
            .alias("k_base"), (pl.col("fraction_right") * pl.col("counted_right")).sum().alias("n_other"),
            pl.col("counted_right").cast(pl.Float64).sum().alias("k_other"))
        for *values, count in per_deal.drop("deal").group_by(pl.all()).len().iter_rows():
            self.deals[tuple(values)] += count


def share_tally(base: pl.DataFrame, other: pl.DataFrame, seat: int | None = 0,
                key: Sequence[str] = ("deal", "rotation", "seat"), tally: ShareTally | None = None) -> ShareTally:
    """``tally`` (a new one when None) with ``base`` and ``other`` (the same whole deals) added."""
    tally = tally if tally is not None else ShareTally()
    tally.add(base, other, seat, key)
    return tally


def share_change_from_tally(tally: ShareTally, margin: float | None = None, confidence: float = CONFIDENCE,
                            alpha: float = 0.05, power: float = 0.8, metric: str = "seat share") -> PairedDifference:
    """:func:`seat_share_change` of a :class:`ShareTally`: the delta-method pseudo-values of the distinct deals,
    each repeated as often as deals had it (statsmodels ``DescrStatsW`` with frequency weights)."""
    keys = sorted(tally.deals)
    values = np.array(keys, dtype=np.float64).reshape(-1, 4)
    weights = np.array([tally.deals[k] for k in keys], dtype=np.float64)
    units = int(weights.sum())
    parts, shares = [], []
    for n, k in ((values[:, 0], values[:, 1]), (values[:, 2], values[:, 3])):
        decided = k > 0
        ratio = np.where(decided, n / np.where(decided, k, 1.0), 0.0)
        share = _mean(ratio[decided], weights[decided]) if decided.any() else float("nan")
        shares.append(share)
        parts.append(np.where(decided, ratio - share, 0.0) * (units / max(int(weights[decided].sum()), 1)))
    difference = shares[1] - shares[0]
    pseudo = difference + parts[1] - parts[0]
    finite = bool(np.isfinite(difference))
    sd = _sd(pseudo, weights) if units > 1 and finite else float("nan")
    equivalence = None
    if margin is not None and units > 1 and finite:
        equivalence = (float(DescrStatsW(pseudo, weights=weights).ttost_mean(-margin, margin)[0])
                       if varies(pseudo) else float(abs(difference) >= margin))
    interval = (mean_interval(pseudo, confidence, weights=weights) if finite
                else MeanInterval(units, difference, np.nan, np.nan, ""))
    interval = MeanInterval(interval.n, interval.mean, max(-1.0, interval.low), min(1.0, interval.high),
                            f"{interval.method} on {SHARE_CHANGE_METHOD}")  # a difference of two shares
    unpaired = _sd(parts[0], weights) ** 2 + _sd(parts[1], weights) ** 2 if units > 1 else float("nan")
    return PairedDifference(
        metric=metric, pairs=tally.pairs, base_mean=shares[0], other_mean=shares[1], mean=interval,
        p_value=_paired_p(pseudo, weights) if finite else float("nan"), base_only=None, other_only=None,
        units=units, unit="deals" if tally.by_deal else "pairs",
        effect_size=float(proportion_effectsize(shares[1], shares[0])) if finite else float("nan"),
        effect_name="Cohen's h",
        detectable=sd * detectable_z(alpha, power) / math.sqrt(units) if sd > 0 and units > 2 else float("nan"),
        margin=margin, equivalence_p=equivalence,
        variance_ratio=_sd(pseudo, weights) ** 2 / unpaired if unpaired > 0 else float("nan"), alpha=alpha,
        binary=True)


def _pairs(base: pl.DataFrame, other: pl.DataFrame, key: list[str], columns: list[str]) -> pl.DataFrame:
    """``base`` and ``other`` joined on ``key`` (``column`` and ``column_right``) after the checks of a paired
    comparison: the same keys once each in both runs, the same seed per key."""
    for name, frame in (("base", base), ("other", other)):
        _require(frame, [*key, *columns], f"paired comparison ({name})")
        if frame.select(key).is_duplicated().any():
            raise StatsError(f"paired comparison: {name} has several rows for one key ({', '.join(key)}); "
                             "expected one row per key")
    only_base = base.select(key).join(other.select(key), on=key, how="anti")
    only_other = other.select(key).join(base.select(key), on=key, how="anti")
    if only_base.height or only_other.height:
        example = (only_base if only_base.height else only_other).row(0, named=True)
        raise StatsError(f"paired comparison: expected the same {', '.join(key)} in both runs (same seeds, same "
                         f"games), got {only_base.height:,} only in base and {only_other.height:,} only in other, "
                         f"e.g. {example}")
    extra = ["seed"] if "seed" in base.columns and "seed" in other.columns and "seed" not in key else []
    joined = base.select(*key, *extra, *columns).join(other.select(*key, *extra, *columns), on=key).sort(key)
    if extra and (joined["seed"] != joined["seed_right"]).any():
        raise StatsError("paired comparison: expected both runs on the same seeds (common random numbers), "
                         "got different seeds for the same key; pair runs played with the same --seed")
    return joined
def _paired_p(d: np.ndarray, weights: np.ndarray | None = None) -> float:
    """The t test of the mean difference against 0 (``d`` repeated ``weights`` times: statsmodels ``DescrStatsW``,
    the same test as ``scipy.stats.ttest_1samp``); differences that do not vary have no t statistic: then the
    exact sign test (``scipy.stats.binomtest`` on the non-zero differences), so a few alike deals are not
    taken as certainty."""
    weights = np.ones(d.size) if weights is None else np.asarray(weights, dtype=np.float64)
    present = weights > 0
    d, weights = d[present], weights[present]
    if weights.sum() < 2:
        return float("nan")
    if varies(d):
        return float(DescrStatsW(d, weights=weights).ttest_mean(0.0)[1])
    nonzero = np.abs(d) > 1e-12
    above, total = int(weights[nonzero & (d > 0)].sum()), int(weights[nonzero].sum())
    return float(stats.binomtest(above, total, 0.5).pvalue) if total else 1.0


def first_place_share(records: pl.DataFrame, stall_share: float = 0.0) -> pl.DataFrame:
    """``records`` with ``share``: each seat's share of its game's first place, defined on every game.

    1 alone first, 1/m for each of m seats sharing it, 0 otherwise; a stalled
    game (no first place) gives every seat ``stall_share``. Being defined on
    every game, it pairs deal by deal on common deals (:func:`paired_difference`)
    without selecting them by an outcome the change may move (docs/statistics.md).
    """
    _require(records, ["game", "win"], "first_place_share")
    firsts = pl.col("win").cast(pl.Float64).sum().over("game")
    return records.with_columns(pl.when(firsts > 0).then(pl.col("win").cast(pl.Float64) / firsts)
                                .otherwise(stall_share).alias("share"))


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

    The difference p-values of every run whose seat test ran are Holm-corrected
    together (:func:`correct`), and so are the equivalence p-values (each run's
    largest per-seat equivalence p) of the runs that can show balance (equal
    players). "Balanced" needs the adjusted equivalence p below ``alpha``,
    "unbalanced" the adjusted difference p. A run that cannot show balance (a
    mixed lineup, whose shares are its own, not equal players') is
    "unbalanced" or :data:`VERDICT_NOT_MEASURED`, as on its own; runs without a
    test keep :data:`VERDICT_NOT_MEASURED`. The same rule gives every cell's
    verdict and the sweep's headline, so they cannot disagree.
    """
    p = correct([a.p_value if a.tested else np.nan for a in advantages], "holm")
    tost = correct([a.tost_p if a.can_show_balance else np.nan for a in advantages], "holm")
    verdicts = []
    for a, p_holm, tost_holm in zip(advantages, p, tost):
        if not a.tested:
            verdict = VERDICT_NOT_MEASURED
        elif not a.can_show_balance:
            verdict = VERDICT_UNBALANCED if p_holm < alpha else VERDICT_NOT_MEASURED
        else:
            verdict = (VERDICT_BALANCED if tost_holm < alpha else
                       VERDICT_UNBALANCED if p_holm < alpha else VERDICT_UNSURE)
        verdicts.append((verdict, float(p_holm), float(tost_holm)))
    return verdicts
