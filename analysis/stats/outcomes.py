"""Score margin, lead changes, game length and end reasons."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from analysis.report.text import _confidence, _interval_pct, _pct
from analysis.stats.common import CONFIDENCE, SEED, _per_game, _players, _require
from analysis.stats.intervals import (
    MeanInterval,
    Proportion,
    clustered_mean,
    clustered_proportion,
    mean_interval,
    proportion,
)


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
