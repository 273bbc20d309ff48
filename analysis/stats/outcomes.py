"""Score margin, lead changes, game length and end reasons."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from scipy import stats
from statsmodels.stats.weightstats import DescrStatsW

from analysis.report.text import _confidence, _interval_pct, _pct, format_p
from analysis.stats.common import (BAND_SHARE, BLOCKED, CONFIDENCE, SEED, UNFINISHED_LIMIT, StatsError, _per_game,
                                   _players, _require, columns_of)
from analysis.stats.intervals import (
    MeanInterval,
    Proportion,
    clustered_mean,
    clustered_proportion,
    deal_mean,
    deal_proportion,
    mean_interval,
    proportion,
)
from analysis.stats.outcome_tally import OutcomeTally, outcome_tally


# ---------------------------------------------------------------- score margin


@dataclass(frozen=True)
class Margin:
    """How close games are: first place's score minus second place's, per game with a result.

    ``mean`` with its interval (:func:`mean_interval`); ``smallest`` is the
    smallest positive margin seen (the game's scoring step, usually 1) and
    ``smallest_share`` the games won by exactly that (Wilson); ``ties`` are
    shared first places (margin 0); ``not_outscored`` are games won with a
    score no higher than second place's, split into ``tie_break`` (won alone
    at second place's score: a rule breaks equal points, such as Vorex's
    resources) and ``fewer_points`` (won below second place's score: the
    game ends on a goal, not on points). ``distribution`` has columns
    ``margin``, ``games``.
    """

    games: int
    stalls_excluded: int
    mean: MeanInterval
    smallest: float | None
    smallest_share: Proportion
    ties: Proportion
    not_outscored: Proportion
    distribution: pl.DataFrame
    tie_break: Proportion | None = None
    fewer_points: Proportion | None = None

    def describe(self) -> str:
        m = self.mean
        lines = [f"score margin (first minus second place) {m.mean:.2f} [{m.low:.2f}, {m.high:.2f}] "
                 f"({m.method}), n = {self.games:,} games ({self.stalls_excluded:,} stalls excluded)"]
        if self.smallest is not None:
            lines.append("  " + self.smallest_share.describe(f"won by the smallest margin ({self.smallest:g})", ""))
        lines.append("  " + self.ties.describe("shared first places", ""))
        for share, label in ((self.tie_break, "won at equal points (a tie-break)"),
                             (self.fewer_points, "won with fewer points than second place (a goal)")):
            if share is not None and share.k:
                lines.append("  " + share.describe(label, ""))
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
        tie_break=clustered_proportion((margins == 0) & ~shared, deals, confidence, seed),
        fewer_points=clustered_proportion((margins < 0) & ~shared, deals, confidence, seed),
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


def _tallied(records: pl.DataFrame | OutcomeTally, columns: list[str], what: str,
             band: tuple[float, float] | None = None) -> OutcomeTally:
    """``records`` as an :class:`OutcomeTally` (a tally is read as it is; a table is tallied with ``band``)."""
    if isinstance(records, OutcomeTally):
        if not records.deals:
            raise StatsError(f"{what}: expected at least one game, got an empty tally")
        return records
    _require(records, columns, what)
    return outcome_tally(records, band)


def end_reasons(records: pl.DataFrame | OutcomeTally, confidence: float = CONFIDENCE,
                seed: int = SEED) -> pl.DataFrame:
    """Why games ended: ``end``, ``games``, ``share``, ``share_low``, ``share_high`` (Wilson; the interval of
    per-deal shares when deals hold several games), most common first. ``records``: a records table or its
    :class:`OutcomeTally`."""
    tally = _tallied(records, ["game", "end"], "end_reasons")
    deals = tally.distinct()
    total = int((deals.games * deals.count).sum())
    rows = []
    for end in tally.end_names():
        k = deals.ended(end)
        share = deal_proportion(k, deals.games, deals.count, confidence)
        rows.append((end, int((k * deals.count).sum()), share.low, share.high))
    table = pl.DataFrame(rows, schema={"end": pl.String, "games": pl.UInt32, "share_low": pl.Float64,
                                       "share_high": pl.Float64}, orient="row")
    return table.sort(["games", "end"], descending=[True, False]).select(
        "end", "games", (pl.col("games") / total).alias("share"), "share_low", "share_high")


def game_length(records: pl.DataFrame | OutcomeTally, events: pl.DataFrame | None = None,
                confidence: float = CONFIDENCE, seed: int = SEED) -> GameLength:
    """Turns per game (mean with :func:`mean_interval`, quartiles, histogram), end reasons, stall rate (Wilson).

    ``records`` is a records table or its :class:`OutcomeTally` (a run read a
    block of deals at a time). ``lead_changes`` is filled only when ``events``
    has a per-turn ``score`` column (see :func:`lead_changes`; it needs the
    records table); Overgrowth has none, so it is None.
    """
    tally = _tallied(records, ["game", "turns", "end", "rank"], "game_length")
    deals = tally.distinct()
    return GameLength(
        games=tally.games,
        mean=deal_mean(deals.turns, deals.games, deals.count, confidence),
        minimum=float(min(tally.turns)),
        q1=tally.quantile(0.25),
        median=tally.quantile(0.5),
        q3=tally.quantile(0.75),
        maximum=float(max(tally.turns)),
        histogram=tally.histogram(),
        ends=end_reasons(tally, confidence, seed),
        stalls=deal_proportion(deals.stalled, deals.games, deals.count, confidence),
        lead_changes=(lead_changes(records, events, confidence=confidence, seed=seed)
                      if isinstance(records, pl.DataFrame) else None),
    )


def lead_changes(records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame | None, score_column: str = "score",
                 confidence: float = CONFIDENCE, seed: int = SEED) -> LeadChanges | None:
    """Lead changes per game, or None if the events carry no per-turn running score.

    Needs events with ``game``, ``seat`` and ``score_column`` (the seat's score
    after that event), in play order. A seat's score before its first event is
    taken as 0. The leader is the seat with the strictly highest score; on a
    tie the previous leader keeps the lead. A change is a new leader after
    there was one. Games without events count 0 changes.
    """
    if events is None or not {"game", "seat", score_column} <= set(columns_of(events)):
        return None
    players = _players(records)
    ordered = events.lazy().select("game", "seat", score_column).collect()
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


# ---------------------------------------------------------------- verdicts on length and on unfinished games


def _share_tests(k: np.ndarray, sizes: np.ndarray, deals: np.ndarray,
                 target: float) -> tuple[float, float, str, str, int]:
    """One-sided tests of a share of games against ``target``: (p that it is above, p that it is below, the test,
    the unit, the units), from distinct deals (``k`` games with the flag of ``sizes``, ``deals`` deals alike).
    One game a deal: exact binomial (``scipy.stats.binomtest``). Several: the per-deal shares by one-sample t
    tests (statsmodels ``DescrStatsW(...).ttest_mean``, the shares repeated as often as deals had them), or, when
    every deal has the same share, exact binomial on the deals (``round(mean x deals)`` successes), as the seat
    tests do."""
    present = deals > 0
    k, sizes, deals = k[present], sizes[present], deals[present]
    units = int(round(float(deals.sum())))
    if units == 0:
        return 1.0, 1.0, "none (no game)", "games", 0
    if np.all(sizes == 1):
        hits = int(round(float((k * deals).sum())))
        return (float(stats.binomtest(hits, units, target, alternative="greater").pvalue),
                float(stats.binomtest(hits, units, target, alternative="less").pvalue),
                f"one-sided exact binomial tests against {_pct(target)} (scipy binomtest)", "games", units)
    per_deal = k / sizes
    if np.all(per_deal == per_deal[0]):
        hits = int(round(float(per_deal[0]) * units))
        return (float(stats.binomtest(hits, units, target, alternative="greater").pvalue),
                float(stats.binomtest(hits, units, target, alternative="less").pvalue),
                f"one-sided exact binomial tests on the deals against {_pct(target)} (every deal alike)", "deals",
                units)
    described = DescrStatsW(per_deal, weights=deals)
    return (float(described.ttest_mean(target, alternative="larger")[1]),
            float(described.ttest_mean(target, alternative="smaller")[1]),
            f"one-sided t tests of the per-deal shares against {_pct(target)} (statsmodels DescrStatsW.ttest_mean)", "deals", units)


@dataclass(frozen=True)
class BandShare:
    """How many games last as long as the designer wants: the share of games inside ``band`` (turns, inclusive)
    with its interval, and the verdict against the ``required`` share.

    ``verdict``: ``inside`` when a one-sided test shows more than ``required`` of the games inside the band
    (``p_inside`` below ``alpha``), ``outside`` when one shows fewer (``p_outside``), else ``undecided``. The
    median says nothing here: a median inside the band can sit beside two thirds of the games outside it.
    """

    band: tuple[float, float]
    required: float
    share: Proportion
    below: float  # share of games shorter than the band
    above: float  # share of games longer
    median: float
    p_inside: float
    p_outside: float
    test: str
    unit: str
    units: int
    alpha: float = 0.05

    @property
    def verdict(self) -> str:
        if self.p_inside < self.alpha:
            return "inside"
        if self.p_outside < self.alpha:
            return "outside"
        return "undecided"

    @property
    def band_text(self) -> str:
        return f"{self.band[0]:g}\u2013{self.band[1]:g} turns"

    @property
    def n_text(self) -> str:
        games = self.share.n
        return f"n = {self.units:,} deals ({games:,} games)" if self.unit == "deals" else f"n = {games:,} games"

    def describe(self) -> str:
        """``81.2% [79.0, 83.3] of games inside 16-40 turns (Wilson 95%, n = 2,000 games); needs 75%: inside``."""
        s = self.share
        return (f"{_pct(s.rate)} {_interval_pct(s.low, s.high)} of games inside {self.band_text} "
                f"({s.method} {_confidence(s.confidence)}, {self.n_text}; {_pct(self.below)} shorter, "
                f"{_pct(self.above)} longer, median {self.median:g}); the target needs at least "
                f"{_pct(self.required, 0)} inside: {self.verdict} ({self.test}: {format_p(self.p_inside)} above, "
                f"{format_p(self.p_outside)} below)")


def band_share(records: pl.DataFrame | OutcomeTally, band: tuple[float, float], required: float = BAND_SHARE,
               alpha: float = 0.05, confidence: float = CONFIDENCE, seed: int = SEED) -> BandShare:
    """The share of games whose turns lie inside ``band`` (both ends included), the deal as the unit when deals
    hold several games (:func:`clustered_proportion`), tested one-sided against ``required`` (exact binomial with
    one game a deal, else t tests of the per-deal shares). ``records``: a records table or its
    :class:`OutcomeTally` tallied with the same ``band``."""
    if not 0 < required < 1:
        raise StatsError(f"band_share: expected a required share strictly between 0 and 1, got {required}")
    if isinstance(records, OutcomeTally) and records.band != (band[0], band[1]):
        raise StatsError(f"band_share: expected a tally of the band {band}, got one of {records.band}")
    tally = _tallied(records, ["game", "turns"], "band_share", (float(band[0]), float(band[1])))
    deals = tally.distinct()
    turns, games = tally.turn_values()
    p_inside, p_outside, test, unit, units = _share_tests(deals.inside, deals.games, deals.count, required)
    return BandShare(band=(float(band[0]), float(band[1])), required=required,
                     share=deal_proportion(deals.inside, deals.games, deals.count, confidence),
                     below=float(games[turns < band[0]].sum() / games.sum()),
                     above=float(games[turns > band[1]].sum() / games.sum()),
                     median=tally.quantile(0.5),
                     p_inside=p_inside, p_outside=p_outside, test=test, unit=unit, units=units, alpha=alpha)


@dataclass(frozen=True)
class Unfinished:
    """Games that stalled (the turn cap, no result) or ended blocked (no seat could move again; scored), against
    a ``limit`` on their share.

    ``verdict``: ``within`` when a one-sided exact binomial test shows the share below the limit
    (``p_within`` under ``alpha``; equivalently the one-sided upper 95% Clopper-Pearson bound is under it),
    ``over`` when one shows it above, else ``undecided``. With several games a deal the deal is the unit: the
    deals holding any such game are tested for "within" and the deals whose every game is one for "over", each
    a conservative bound on the share of games.
    """

    stalls: Proportion
    blocked: Proportion
    either: Proportion  # stalled or blocked
    limit: float
    p_within: float
    p_over: float
    test: str
    alpha: float = 0.05

    @property
    def verdict(self) -> str:
        if self.p_within < self.alpha:
            return "within"
        if self.p_over < self.alpha:
            return "over"
        return "undecided"

    @property
    def above_limit(self) -> bool:
        """The estimate (not the test) above the limit: what a report's flag and a headline mention."""
        return self.either.rate > self.limit

    def rates_text(self) -> str:
        """``stalls 2.2% [1.8, 2.7] and blocked 0.0% of 4,000 games``."""
        return (f"stalls {_pct(self.stalls.rate, 2)} {_interval_pct(self.stalls.low, self.stalls.high, 2)} and "
                f"blocked {_pct(self.blocked.rate, 2)} {_interval_pct(self.blocked.low, self.blocked.high, 2)} of "
                f"{self.either.n:,} games ({self.either.method} 95%)")

    def describe(self) -> str:
        e = self.either
        return (f"stalled or blocked {_pct(e.rate, 2)} {_interval_pct(e.low, e.high, 2)} ({self.rates_text()}); "
                f"limit {_pct(self.limit, 1)}: {self.verdict} ({self.test}: {format_p(self.p_within)} below, "
                f"{format_p(self.p_over)} above)")


def unfinished(records: pl.DataFrame | OutcomeTally, limit: float = UNFINISHED_LIMIT, alpha: float = 0.05,
               confidence: float = CONFIDENCE, seed: int = SEED) -> Unfinished:
    """Stalls and blocked games (``end == "blocked"``) and their share against ``limit``; ``records``: a records
    table or its :class:`OutcomeTally`."""
    tally = _tallied(records, ["game", "end", "rank"], "unfinished")
    if not 0 < limit < 1:
        raise StatsError(f"unfinished: expected a limit strictly between 0 and 1, got {limit}")
    deals = tally.distinct()
    either = deals.stalled + deals.blocked
    units = int(deals.count.sum())
    if np.all(deals.games == 1):
        k_any = k_all = int((either * deals.count).sum())
        test = "one-sided exact binomial tests (scipy binomtest)"
    else:
        k_any, k_all = int(deals.count[either > 0].sum()), int(deals.count[either == deals.games].sum())
        test = ("one-sided exact binomial tests on the deals (scipy binomtest): deals with any such game "
                "against the limit for 'within', deals whose every game is one for 'over'")
    p_within = float(stats.binomtest(k_any, units, limit, alternative="less").pvalue) if units else 1.0
    p_over = float(stats.binomtest(k_all, units, limit, alternative="greater").pvalue) if units else 1.0
    return Unfinished(stalls=deal_proportion(deals.stalled, deals.games, deals.count, confidence),
                      blocked=deal_proportion(deals.blocked, deals.games, deals.count, confidence),
                      either=deal_proportion(either, deals.games, deals.count, confidence), limit=limit,
                      p_within=p_within, p_over=p_over, test=test, alpha=alpha)
