"""What the seat analysis needs of a run, tallied a block of whole deals at a time.

:func:`analysis.stats.seat_advantage` never needs the records themselves,
only a few counts and the per-deal seat shares, and those take few distinct
values (a deal's share is a mean of its games' first-place fractions:
multiples of 1/(rotations x 12) at most). A :class:`SeatTally` keeps the
counts and each distinct per-deal share vector with the number of deals that
had it, so a run of ten million games tallies in memory that does not grow
with it: :func:`seat_tally` reads a records table (or lazy frame) block by
block of deals.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from analysis.stats.common import BLOCKED
from analysis.stats.seat_result import _counted_shares, _seat_matrix

BLOCK_DEALS = 1 << 16  # deals read at a time from a lazy frame (about 170 MB for 2-player games)
_DIGITS = 12  # per-deal shares are rounded this far, so equal vectors from different blocks meet
_COLUMNS = ["game", "deal", "seat", "bot", "win", "rank", "end"]  # "end" where the records have it (blocked games)


@dataclass
class SeatTally:
    """Counts and per-deal share vectors of a run's games, for the seat analysis.

    ``first``: first places per seat over the counted games (2 players: games
    with a single winner; 3-4: games with a first place, a shared one split).
    ``shares``: each distinct per-deal share vector (a seat's mean share over
    the deal's counted games) and how many deals had it. ``pairs``: for each
    pair of bots (in order of first appearance) the first bot's points and the
    decided comparisons between them (each pair of seats with different
    places in a game).
    """

    players: int
    games: int = 0
    stalls: int = 0
    ties: int = 0  # games with a shared first place
    blocked: int = 0  # games that ended blocked (no seat could move again): scored, counted like any other
    tested: int = 0  # counted games
    first: np.ndarray = field(default=None)
    shares: dict[tuple[float, ...], int] = field(default_factory=dict)
    bot_wins: dict[str, list[int]] = field(default_factory=dict)  # bot -> [first places, seat-games]
    lineups: set[tuple[str, ...]] = field(default_factory=set)
    uneven_deals: int = 0  # deals that do not seat every bot equally often in every seat
    pairs: dict[tuple[str, str], list[float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.first is None:
            self.first = np.zeros(self.players)

    @property
    def bots(self) -> list[str]:
        """The bots in order of first appearance (by game, then seat)."""
        return list(self.bot_wins)

    @property
    def mixed(self) -> bool:
        return len(self.bot_wins) > 1

    @property
    def counted_deals(self) -> int:
        return sum(self.shares.values())

    def share_vectors(self) -> tuple[np.ndarray, np.ndarray]:
        """(distinct per-deal share vectors ``[k, players]``, deals with each ``[k]``), in a fixed order."""
        if not self.shares:
            return np.zeros((0, self.players)), np.zeros(0)
        keys = sorted(self.shares)
        return np.array(keys, dtype=np.float64), np.array([self.shares[k] for k in keys], dtype=np.float64)

    def add(self, block: pl.DataFrame) -> None:
        """Tally ``block``: records of whole deals (every game of each deal it holds)."""
        if not block.height:
            return
        games = block.group_by("game").agg(pl.col("deal").first(), pl.col("win").sum().alias("first_places"),
                                           pl.col("rank").is_null().all().alias("stalled"),
                                           *([pl.col("end").first()] if "end" in block.columns else []))
        self.games += games.height
        self.stalls += int(games["stalled"].sum())
        if "end" in games.columns:
            self.blocked += int(((games["end"].cast(pl.String) == BLOCKED) & ~games["stalled"]).sum())
        self.ties += int((games["first_places"] > 1).sum())
        counted = _counted_shares(block, games, self.players)
        tested = counted["game"].n_unique()
        if tested:
            self.tested += tested
            self.first += _seat_matrix(counted, self.players, "game").sum(axis=0)
            per_deal = np.round(_seat_matrix(counted, self.players, "deal"), _DIGITS)
            vectors, counts = np.unique(per_deal, axis=0, return_counts=True)
            for vector, count in zip(map(tuple, vectors.tolist()), counts.tolist()):
                self.shares[vector] = self.shares.get(vector, 0) + count
        self._add_bots(block)

    def _add_bots(self, block: pl.DataFrame) -> None:
        ordered = block.sort("game", "seat")
        wins = ordered.group_by("bot", maintain_order=True).agg(pl.col("win").sum(), pl.len())
        for bot, won, seat_games in wins.iter_rows():
            tally = self.bot_wins.setdefault(bot, [0, 0])
            tally[0] += int(won)
            tally[1] += int(seat_games)
        if len(self.bot_wins) == 1:
            self.lineups.add(tuple(ordered["bot"][:self.players].to_list()))
            return
        lineups = ordered.group_by("game", maintain_order=True).agg(pl.col("bot"))["bot"]
        self.lineups.update(tuple(lineup) for lineup in lineups.unique().to_list())
        seating = (block.group_by("deal", "bot", "seat").len()
                   .group_by("deal", "bot").agg(pl.len().alias("seats"), pl.col("len").min().alias("fewest"),
                                                pl.col("len").max().alias("most")))
        uneven = seating.filter((pl.col("seats") != self.players) | (pl.col("fewest") != pl.col("most")))
        self.uneven_deals += uneven["deal"].n_unique()
        self._add_pairs(block)

    def _add_pairs(self, block: pl.DataFrame) -> None:
        from analysis.stats.skill import _comparisons  # skill reads the seat tally's neighbours

        order = {bot: i for i, bot in enumerate(self.bot_wins)}
        decided = _comparisons(block).filter(pl.col("result") != 0.5)
        totals = decided.group_by("bot_a", "bot_b").agg(pl.col("result").sum(), pl.len())
        for a, b, points, n in totals.iter_rows():
            if a == b:
                continue
            key, points_first = ((a, b), points) if order[a] < order[b] else ((b, a), n - points)
            tally = self.pairs.setdefault(key, [0.0, 0])
            tally[0] += float(points_first)
            tally[1] += int(n)


def seat_tally(records: pl.DataFrame | pl.LazyFrame | Iterable[pl.DataFrame], players: int | None = None,
               block_deals: int = BLOCK_DEALS) -> SeatTally:
    """The :class:`SeatTally` of a records table, of a lazy frame read ``block_deals`` deals at a time, or of
    blocks of whole deals (``sims.records.deal_blocks`` reads a run directory's chunk files that way).

    ``players`` keeps seats below it (a solo mode's opponent seat is left out);
    by default every seat the records hold.
    """
    if isinstance(records, pl.DataFrame):
        blocks: Iterable[pl.DataFrame] = [records]
    elif isinstance(records, pl.LazyFrame):
        blocks = _lazy_blocks(records, block_deals)
    else:
        blocks = records
    tally = None
    for block in blocks:
        tally = add_block(tally, block, players)
    return tally if tally is not None else SeatTally(players=players or 1)


def add_block(tally: SeatTally | None, block: pl.DataFrame, players: int | None = None) -> SeatTally:
    """``tally`` (a new one when None) with ``block``, records of whole deals, added: the columns the tally
    reads of the seats below ``players``."""
    block = _tally_columns(block, players)
    if tally is None:
        tally = SeatTally(players=players or (int(block["seat"].max()) + 1 if block.height else 1))
    tally.add(block)
    return tally


def _tally_columns(block: pl.DataFrame, players: int | None) -> pl.DataFrame:
    names = block.columns
    block = block.select([c for c in _COLUMNS if c in names])
    if "deal" not in names:
        block = block.with_columns(pl.col("game").alias("deal"))
    if "bot" not in names:
        block = block.with_columns(pl.lit("bot").alias("bot"))
    return block if players is None else block.filter(pl.col("seat") < players)


def _lazy_blocks(frame: pl.LazyFrame, block_deals: int) -> Iterator[pl.DataFrame]:
    names = frame.collect_schema().names()
    frame = frame.select([c for c in _COLUMNS if c in names])
    deal = pl.col("deal") if "deal" in names else pl.col("game")
    low, high = frame.select(deal.min().alias("low"), deal.max().alias("high")).collect(engine="streaming").row(0)
    if low is None:
        return
    for start in range(int(low), int(high) + 1, block_deals):
        yield frame.filter(deal.is_between(start, start + block_deals, closed="left")).collect()
