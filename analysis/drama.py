"""How a game feels over its course, from each seat's score at each round end (the run's trajectories table).

A run directory's ``trajectories/`` table holds, per game, round and seat, the
seat's score at that round end (``sims.records.load_trajectories``; the last
round of a game is its end). From it:

* lead changes per game: the leader is the one seat strictly ahead at a round
  end; a tied round keeps no one and changes nothing; a change is a new sole
  leader after an earlier one;
* the comeback rate: of games with one winner (no shared first place, no stall)
  and at least two rounds, the share whose winner was strictly behind some seat
  at half time (round ``rounds // 2``);
* wire to wire: of the same games, the share whose winner was never behind any
  seat at a round end;
* the seat gap: per round, the mean over games of seat 0's score less the mean
  of the other seats' (:func:`analysis.stats.trajectory.seat_gap`), with its
  interval by deal, and the first round whose interval excludes 0;
* score bands: per seat and round, the median and quartiles over the games
  still running; with more than one bot in the run, the same per bot kind
  (a bot's seat-games in whatever seat it sat), since with rotated seats a
  seat's band mixes the bots that sat in it.

Every interval takes the deal as the unit when deals hold several games
(rotated seats): :func:`analysis.stats.clustered_mean` and
:func:`analysis.stats.clustered_proportion` average a deal's games first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from analysis.stats import (CONFIDENCE, SEED, MeanInterval, Proportion, clustered_mean, clustered_proportion,
                            proportion)
from analysis.stats.trajectory import seat_gap

# The score bands stop at the last round that at least this share of the games reached.
BAND_MIN_SHARE = 0.1


@dataclass(frozen=True)
class Course:
    """Lead changes, comebacks and wire-to-wire wins of a run, with the per-game figures and the score bands.

    ``per_game``: ``game``, ``deal``, ``rounds``, ``lead_changes``, ``winner`` (-1: shared first place or
    stall), ``comeback``, ``wire_to_wire`` (null where there is no single winner or fewer than two rounds).
    ``bands``: ``seat``, ``round``, ``games``, ``q25``, ``median``, ``q75``; ``bot_bands`` the same with
    ``bot`` for ``seat`` (``games`` then counts the bot's seat-games), None when one bot played every seat.
    ``gap``: seat 0's mean lead over the other seats per round (:func:`analysis.stats.trajectory.seat_gap`).
    """

    games: int
    decided: int
    lead_changes: MeanInterval
    with_change: Proportion
    comeback: Proportion
    wire_to_wire: Proportion
    per_game: pl.DataFrame
    bands: pl.DataFrame
    bot_bands: pl.DataFrame | None = None
    gap: pl.DataFrame | None = None

    def describe(self) -> str:
        m = self.lead_changes
        return (f"lead changes {m.mean:.2f} a game [{m.low:.2f}, {m.high:.2f}] ({m.method}), n = {m.n:,}; "
                + self.comeback.describe("comebacks (the winner trailed at half time)", "") + "; "
                + self.wire_to_wire.describe("wire to wire (the winner never trailed)", ""))


def _leaders(values: np.ndarray) -> np.ndarray:
    """The seat strictly ahead in each row of ``values [n, seats]``, -1 where first place is shared."""
    top = values.max(axis=1, keepdims=True)
    alone = (values == top).sum(axis=1) == 1
    return np.where(alone, values.argmax(axis=1), -1)


def _lead_changes(games: np.ndarray, leaders: np.ndarray) -> np.ndarray:
    """Per row: 1 where a sole leader differs from the game's previous sole leader (rows by game and round)."""
    led = np.flatnonzero(leaders >= 0)
    changed = np.zeros(games.size, dtype=np.int64)
    same_game = games[led[1:]] == games[led[:-1]]
    changed[led[1:]] = (same_game & (leaders[led[1:]] != leaders[led[:-1]])).astype(np.int64)
    return changed


def _winners(records: pl.DataFrame) -> pl.DataFrame:
    """``game``, ``deal``, ``winner``: the one seat ranked first, -1 for a shared first place or a stall."""
    deal = pl.col("deal") if "deal" in records.columns else pl.col("game")
    return records.group_by("game").agg(
        deal.first().alias("deal"),
        pl.when((pl.col("rank") == 1).sum() == 1).then(pl.col("seat").filter(pl.col("rank") == 1).first())
        .otherwise(-1).cast(pl.Int64).alias("winner"),
    ).sort("game")


def per_game(records: pl.DataFrame, trajectories: pl.DataFrame) -> pl.DataFrame:
    """One row per game of ``records`` that has trajectories (see :class:`Course`)."""
    frame = trajectories.sort("game", "round", "seat")
    seats = int(frame["seat"].max()) + 1
    values = frame["value"].to_numpy().astype(np.float64).reshape(-1, seats)
    games = frame["game"].to_numpy()[::seats]
    rounds = frame["round"].to_numpy()[::seats].astype(np.int64)
    leaders = _leaders(values)
    changes = _lead_changes(games, leaders)
    ids, first, count = np.unique(games, return_index=True, return_counts=True)
    table = pl.DataFrame({"game": ids, "rounds": count.astype(np.int64),
                          "lead_changes": np.add.reduceat(changes, first) if ids.size else changes[:0]})
    table = table.with_columns(pl.col("game").cast(records.schema["game"])).join(_winners(records), on="game")
    winner_of = dict(zip(table["game"].to_list(), table["winner"].to_list()))
    winner = np.array([winner_of.get(g, -1) for g in games.tolist()], dtype=np.int64)
    behind = np.zeros(games.size, dtype=bool)
    has = winner >= 0
    behind[has] = values[has, winner[has]] < values[has].max(axis=1)
    total = np.repeat(count, count)
    half = rounds == total // 2
    trailed_half = dict(zip(games[half].tolist(), behind[half].tolist()))
    ever_behind = {int(g): bool(b) for g, b in zip(ids, np.logical_or.reduceat(behind, first))} if ids.size else {}
    judged = (pl.col("winner") >= 0) & (pl.col("rounds") >= 2)
    return table.with_columns(
        pl.when(judged).then(pl.col("game").replace_strict(trailed_half, default=None, return_dtype=pl.Boolean))
        .alias("comeback"),
        pl.when(judged).then(~pl.col("game").replace_strict(ever_behind, default=None, return_dtype=pl.Boolean))
        .alias("wire_to_wire"),
    ).select("game", "deal", "rounds", "lead_changes", "winner", "comeback", "wire_to_wire")


def score_bands(trajectories: pl.DataFrame, min_share: float = BAND_MIN_SHARE, by: str = "seat") -> pl.DataFrame:
    """Per ``by`` (a seat, or a bot with :func:`bot_bands`) and round: the seat-games still running and the
    quartiles of their scores; rounds reached by fewer than ``min_share`` of the group's seat-games are left
    out (the few long games would make the band's tail)."""
    totals = trajectories.group_by(by).agg(pl.struct("game", "seat").n_unique().alias("total"))
    bands = trajectories.group_by(by, "round").agg(
        pl.len().alias("games"),
        pl.col("value").quantile(0.25, interpolation="linear").alias("q25"),
        pl.col("value").median().alias("median"),
        pl.col("value").quantile(0.75, interpolation="linear").alias("q75"),
    ).join(totals, on=by).sort(by, "round")
    return bands.filter(pl.col("games") >= pl.max_horizontal(pl.lit(1.0), min_share * pl.col("total"))).drop("total")


def bot_bands(records: pl.DataFrame, trajectories: pl.DataFrame,
              min_share: float = BAND_MIN_SHARE) -> pl.DataFrame | None:
    """:func:`score_bands` per bot kind (each seat-game under the bot that played it), or None with one bot."""
    if "bot" not in records.columns or records["bot"].n_unique() < 2:
        return None
    seats = records.select(pl.col("game").cast(trajectories.schema["game"]),
                           pl.col("seat").cast(trajectories.schema["seat"]), "bot")
    return score_bands(trajectories.join(seats, on=["game", "seat"]), min_share, by="bot")


def course(records: pl.DataFrame, trajectories: pl.DataFrame | None, confidence: float = CONFIDENCE,
           seed: int = SEED, gap: bool = True) -> Course | None:
    """Lead changes, comebacks, wire-to-wire wins, score bands and (``gap``) the seat gap per round, or None
    without trajectories."""
    if trajectories is None or not trajectories.height:
        return None
    table = per_game(records, trajectories)
    if not table.height:
        return None
    deals = table["deal"].to_numpy()
    changes = table["lead_changes"].to_numpy().astype(np.float64)
    judged = table.filter(pl.col("comeback").is_not_null())
    judged_deals = judged["deal"].to_numpy()
    played = trajectories.filter(pl.col("game").is_in(table["game"].implode()))
    return Course(
        games=table.height, decided=judged.height,
        lead_changes=clustered_mean(changes, deals, confidence, seed),
        with_change=clustered_proportion(changes > 0, deals, confidence, seed),
        comeback=_share(judged["comeback"].to_numpy(), judged_deals, confidence, seed),
        wire_to_wire=_share(judged["wire_to_wire"].to_numpy(), judged_deals, confidence, seed),
        per_game=table, bands=score_bands(played), bot_bands=bot_bands(records, played),
        gap=seat_gap(records, played, 0, BAND_MIN_SHARE, confidence, seed) if gap else None,
    )


def _share(flags: np.ndarray, deals: np.ndarray, confidence: float, seed: int) -> Proportion:
    if not flags.size:
        return proportion(0, 0, confidence)
    return clustered_proportion(flags.astype(bool), deals, confidence, seed)


__all__ = ["BAND_MIN_SHARE", "Course", "bot_bands", "course", "per_game", "score_bands"]
