"""What game length, end reasons, stalls, the target band and the per-seat and per-bot rates need of a run,
tallied a block of whole deals at a time.

Every one of those figures takes the deal as its unit when deals hold several
games, so it needs per-deal values, and those take few distinct values: a
deal is its number of games, the sum of their turns, how many stalled, ended
blocked or lasted inside the target band, and its end reasons. An
:class:`OutcomeTally` keeps each distinct deal with the number of deals like
it, the games at each number of turns, and per seat and per bot the counts
at each final score, so a run of ten million games tallies in memory that
does not grow with it. The statistics read the tally
(:func:`analysis.stats.game_length`, :func:`~analysis.stats.end_reasons`,
:func:`~analysis.stats.band_share`, :func:`~analysis.stats.unfinished`,
:func:`~analysis.stats.proportion_table`) and give the numbers they give on
the whole table.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import polars as pl

from analysis.stats.common import BLOCKED, STALL, _require
from analysis.stats.intervals import add_counts, rate_counts

_ENDS = "\x1f"  # joins a deal's sorted end reasons into one key
KEYS = ("seat", "bot")  # the keys of the rate tables a tally keeps


@dataclass(frozen=True)
class Deals:
    """A tally's distinct deals as arrays (one entry per distinct deal, ``count`` deals like it)."""

    games: np.ndarray  # games in the deal
    turns: np.ndarray  # the sum of their turns
    stalled: np.ndarray
    blocked: np.ndarray  # ended blocked (no seat could move again), not stalled
    inside: np.ndarray  # turns inside the band
    ends: tuple[tuple[str, ...], ...]  # the deal's games' end reasons, sorted
    count: np.ndarray

    def ended(self, end: str) -> np.ndarray:
        """Games of each distinct deal that ended by ``end``."""
        return np.array([ends.count(end) for ends in self.ends], dtype=np.float64)


@dataclass
class OutcomeTally:
    """Distinct deals (games, turns, stalls, blocked games, games inside ``band``, end reasons) with how many
    deals had each, games per number of turns, and :func:`~analysis.stats.intervals.rate_counts` per seat and
    per bot. Feed it records of whole deals (:meth:`add`), a block at a time."""

    band: tuple[float, float] | None = None
    deals: Counter = field(default_factory=Counter)
    turns: Counter = field(default_factory=Counter)  # turns -> games
    rates: dict[str, pl.DataFrame] = field(default_factory=dict)  # "seat" / "bot" -> rate_counts
    turns_dtype: pl.DataType = pl.Int32
    key_dtypes: dict[str, pl.DataType] = field(default_factory=dict)

    @property
    def games(self) -> int:
        return int(sum(self.turns.values()))

    @property
    def deal_count(self) -> int:
        return int(sum(self.deals.values()))

    def add(self, block: pl.DataFrame) -> None:
        """Tally ``block``: records of whole deals (every game of each deal it holds)."""
        _require(block, ["game", "turns"], "outcome tally")
        if not block.height:
            return
        self.turns_dtype = block.schema["turns"]
        games = _per_game(block)
        low, high = self.band if self.band is not None else (1.0, 0.0)
        per_deal = games.group_by("deal").agg(
            pl.len().alias("games"), pl.col("turns").cast(pl.Int64).sum(),
            pl.col("stalled").sum().cast(pl.Int64),
            (pl.col("end").eq(BLOCKED) & ~pl.col("stalled")).sum().cast(pl.Int64).alias("blocked"),
            pl.col("turns").is_between(low, high).sum().cast(pl.Int64).alias("inside"),
            pl.col("end").sort().str.join(_ENDS).alias("ends"))
        distinct = per_deal.drop("deal").group_by(pl.all()).len()
        for *key, count in distinct.iter_rows():
            self.deals[tuple(key)] += count
        for turns, count in games.group_by("turns").len().iter_rows():
            self.turns[turns] += count
        for key in KEYS:
            if key in block.columns and {"win", "tie", "rank", "score"} <= set(block.columns):
                self.key_dtypes[key] = block.schema[key]
                self.rates[key] = add_counts(self.rates.get(key), rate_counts(block, [key]), [key, "score"])

    def distinct(self) -> Deals:
        """The distinct deals as arrays, in a fixed order."""
        keys = sorted(self.deals)
        column = lambda i: np.array([k[i] for k in keys], dtype=np.float64)  # noqa: E731
        return Deals(games=column(0), turns=column(1), stalled=column(2), blocked=column(3), inside=column(4),
                     ends=tuple(tuple(k[5].split(_ENDS)) if k[5] else () for k in keys),
                     count=np.array([self.deals[k] for k in keys], dtype=np.float64))

    def histogram(self) -> pl.DataFrame:
        """``turns``, ``games``: games per number of turns, ascending."""
        turns = sorted(self.turns)
        return pl.DataFrame({"turns": pl.Series(turns, dtype=self.turns_dtype),
                             "games": pl.Series([self.turns[t] for t in turns], dtype=pl.UInt32)})

    def turn_values(self) -> tuple[np.ndarray, np.ndarray]:
        """(distinct turns ascending, games with each) as float arrays."""
        turns = sorted(self.turns)
        return np.array(turns, dtype=np.float64), np.array([self.turns[t] for t in turns], dtype=np.float64)

    def quantile(self, q: float) -> float:
        """The ``q`` quantile of the games' turns, interpolated linearly between neighbouring games (numpy's and
        polars' ``linear``)."""
        values, counts = self.turn_values()
        if not counts.size:
            return float("nan")
        position = q * (counts.sum() - 1)
        below, above = int(np.floor(position)), int(np.ceil(position))
        ends = np.cumsum(counts)
        low, high = values[np.searchsorted(ends, below, side="right")], values[np.searchsorted(ends, above, "right")]
        return float(low + (position - below) * (high - low))

    def end_names(self) -> list[str]:
        """The end reasons the games ended by."""
        return sorted({end for key in self.deals for end in (key[5].split(_ENDS) if key[5] else ())})

    def rate_table(self, key: str) -> pl.DataFrame | None:
        """The :func:`~analysis.stats.intervals.rate_counts` of ``key`` ("seat" or "bot"), None if not tallied."""
        counts = self.rates.get(key)
        return None if counts is None else counts.with_columns(pl.col(key).cast(self.key_dtypes[key]))


def _per_game(records: pl.DataFrame) -> pl.DataFrame:
    """One row per game: its deal, turns, end reason and whether it stalled (no rank); records without ``deal``
    are one game a deal, without ``end`` or ``rank`` a stall is the ``stall`` end reason or nothing."""
    names = records.columns
    return records.group_by("game").agg(
        (pl.col("deal") if "deal" in names else pl.col("game")).first().alias("deal"),
        pl.col("turns").first(),
        (pl.col("end").first().cast(pl.String) if "end" in names else pl.lit("")).alias("end"),
        (pl.col("rank").is_null().all() if "rank" in names
         else (pl.col("end").first().cast(pl.String) == STALL) if "end" in names else pl.lit(False)).alias("stalled"),
    )


def outcome_tally(records: pl.DataFrame | Iterable[pl.DataFrame],
                  band: tuple[float, float] | None = None) -> OutcomeTally:
    """The :class:`OutcomeTally` of a records table, or of blocks of whole deals (``sims.records.deal_blocks``)."""
    tally = OutcomeTally(band=band)
    for block in [records] if isinstance(records, pl.DataFrame) else records:
        tally.add(block)
    return tally


__all__ = ["Deals", "OutcomeTally", "outcome_tally"]
