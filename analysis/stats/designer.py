"""Why a seat wins (score sources), tempo and drama."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from scipy import stats

from analysis.report.text import _confidence, _pct, format_p
from analysis.stats.common import (BOOTSTRAP_RESAMPLES, CONFIDENCE, SEED, _BOOTSTRAP_BATCH_VALUES, _per_game, _require,
                                   by_games, columns_of, is_empty)
from analysis.stats.intervals import Proportion, _wilson, mean_interval, proportion
from analysis.stats.outcomes import LeadChanges, Margin, lead_changes, score_margin


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


def _deal_columns(frame: pl.DataFrame, columns: Sequence[str], groups: Sequence[str], name: str,
                  confidence: float = CONFIDENCE, seed: int = SEED) -> pl.DataFrame:
    """:func:`_deal_means` of each of ``columns`` per group, as if the table were long (one row per value, its
    column's name in ``name``): the same rows, read from the wide table without unpivoting it."""
    per_deal = frame.group_by(*groups, "deal").agg(pl.col(list(columns)).cast(pl.Float64).mean()).sort(*groups, "deal")
    parts = per_deal.group_by(list(groups), maintain_order=True) if groups else [((), per_deal)]
    rows = []
    for key, part in parts:
        for column in sorted(columns):  # a long table's values of a group in the order _deal_means sorts them
            values = part[column].to_numpy()
            m = mean_interval(values, confidence, seed)
            p = (float(stats.ttest_1samp(values, 0.0).pvalue) if values.size > 1 and np.ptp(values) > 0
                 else float("nan"))
            rows.append({**dict(zip(groups, key)), name: column, "mean": m.mean, "low": m.low, "high": m.high,
                         "deals": m.n, "method": m.method, "p_value": p})
    schema = {g: frame.schema[g] for g in groups} | {name: pl.String, "mean": pl.Float64, "low": pl.Float64,
                                                     "high": pl.Float64, "deals": pl.Int64, "method": pl.String,
                                                     "p_value": pl.Float64}
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
    per_seat = _deal_columns(frame, names, ["seat"], "source", confidence, seed).drop("p_value")
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
    total = _deal_means(per_game, "score", [], confidence, seed) if per_game.height else None
    lead = _deal_columns(per_game, names, [], "source", confidence, seed)
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
    ``game_turns``: the records' mean game length (``turns``, averaged by
    deal); ``other_turns``: its part with no move event (turns of the game
    that are nobody's move by ``moves``, such as setup turns), so that the
    seats' turns sum to ``game_turns - other_turns`` when no two seats share a
    turn index. Both NaN when the records have no ``turns``.
    """

    turns: pl.DataFrame
    last_mover: pl.DataFrame
    on_winner: Proportion
    on_leader: Proportion
    columns: str
    game_turns: float = float("nan")
    other_turns: float = float("nan")


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


def tempo(records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame | None, order: str, moves: pl.Expr | None = None,
          moves_text: str = "every event", confidence: float = CONFIDENCE, seed: int = SEED) -> Tempo | None:
    """Turns per seat and the seat whose move ended each game; None when the events cannot say.

    ``order`` is the events column that orders play (a turn or decision index);
    ``moves`` selects the events that are a seat's own move (None: every
    event; ``moves_text`` says which in words). The last move of a game is its move event with the largest
    ``order`` (the last such row in the file when several share it). ``events`` may be a lazy frame (a run's
    events): it is reduced per seat-game a block of games at a time.
    """
    if events is None or not {"game", "seat", order} <= set(columns_of(events)) or is_empty(events):
        return None
    _require(records, ["game", "deal", "seat", "score", "rank", "end"], "tempo")
    moved = events if moves is None else events.filter(moves)
    moved = moved.select("game", pl.col("seat").cast(pl.Int64), pl.col(order))
    taken, last = by_games(moved, lambda e: [
        e.group_by("game", "seat").agg(pl.col(order).n_unique().cast(pl.Float64).alias("turns")),
        # a group keeps the file's row order: the last row of the largest order is the game's last move
        e.group_by("game").agg(pl.col("seat").filter(pl.col(order) == pl.col(order).max()).last().alias("last"),
                               pl.col(order).n_unique().cast(pl.Float64).alias("moved"))])
    seat_games = records.select("game", "deal", pl.col("seat").cast(pl.Int64))
    turns = seat_games.join(taken, on=["game", "seat"], how="left").with_columns(pl.col("turns").fill_null(0.0))
    per_seat = _deal_means(turns, "turns", ["seat"], confidence, seed).drop("p_value")
    moved_turns = last.select("game", "moved")
    last = last.select("game", "last")
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
    game_turns = other_turns = float("nan")
    if "turns" in records.columns:
        lengths = (records.group_by("game").agg(pl.col("deal").first(), pl.col("turns").first().cast(pl.Float64))
                   .join(moved_turns, on="game", how="left").with_columns(pl.col("moved").fill_null(0.0)))
        by_deal = lengths.group_by("deal").agg(pl.col("turns").mean(), (pl.col("turns") - pl.col("moved")).mean()
                                               .alias("other"))
        game_turns, other_turns = float(by_deal["turns"].mean()), float(by_deal["other"].mean())
    return Tempo(per_seat, by_end, _proportion_of(one_winner, "flag", confidence, seed),
                 _proportion_of(one_top, "flag", confidence, seed),
                 f"events columns game, seat, {order} (moves: {moves_text}); records columns rank, score, end"
                 + (", turns" if "turns" in records.columns else ""), game_turns, other_turns)


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


def drama(records: pl.DataFrame, events: pl.DataFrame | pl.LazyFrame | None = None, confidence: float = CONFIDENCE,
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
