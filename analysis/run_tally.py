"""A run read once, a block of whole deals at a time: every figure a report gives over all of its deals.

The headline's seat analysis (:class:`analysis.stats.SeatTally`), game length,
end reasons, stalls and blocked games, the target band and the per-seat and
per-bot rates (:class:`analysis.stats.outcome_tally.OutcomeTally`) need only
tallies of the records, so :func:`tally_run` streams a run directory's chunk
files through them a block of deals at a time (``sims.records.record_blocks``)
and memory does not grow with the run. The convergence figure rides along:
the headline's share of seat 0 is taken from the tally as it passes each
deal count of its grid (a block ends there), so its last point is the
headline; a solitaire run's running win rate likewise.

:func:`tally_records` does the same for a records table in memory, block by
block at the same deal counts: a table and its run directory give the same
numbers.

    >>> tally = tally_run("runs/demo", players=2, band=(16, 40))  # doctest: +SKIP
    >>> stats.game_length(tally.outcomes).median  # doctest: +SKIP
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import polars as pl

from analysis import stats
from analysis.stats.outcome_tally import OutcomeTally
from analysis.stats.seat_tally import SeatTally, add_block

# The columns the tallies read (those a run's records have).
COLUMNS = ("game", "deal", "seat", "bot", "score", "rank", "win", "tie", "turns", "end")
HEADLINE_POINTS, HEADLINE_START = 24, 20  # the convergence figure: at most 24 deal counts from the 20th deal
RUNNING_POINTS, RUNNING_START = 160, 10  # a solitaire run's running win rate: at most 160 game counts


def deal_grid(deals: int, points: int = HEADLINE_POINTS, start: int = HEADLINE_START) -> np.ndarray:
    """The deal counts the convergence figure takes the headline at: a geometric grid from ``start`` to every
    deal, at most ``points`` values."""
    if deals == 0:
        return np.zeros(0, dtype=np.int64)
    return np.unique(np.round(np.geomspace(min(start, deals), deals, num=min(points, deals))).astype(np.int64))


def game_grid(games: int, points: int = RUNNING_POINTS, start: int = RUNNING_START) -> np.ndarray:
    """The game counts a running win rate is drawn at: a geometric grid from ``start`` to every game."""
    if games == 0:
        return np.zeros(0, dtype=np.int64)
    start = min(start, games)
    return np.unique(np.round(np.geomspace(start, games, num=min(points, games))).astype(np.int64))


def running_rate(n: np.ndarray, k: np.ndarray) -> tuple[np.ndarray, ...]:
    """(n, k / n, and the pointwise Wilson 95% interval) of ``k`` wins in the first ``n`` games."""
    intervals = [stats.proportion(float(ki), int(ni)) for ki, ni in zip(k, n)]
    return (np.asarray(n, dtype=float), np.asarray(k, dtype=float) / np.asarray(n, dtype=float),
            np.array([p.low for p in intervals]), np.array([p.high for p in intervals]))


def _empty() -> tuple[np.ndarray, ...]:
    return tuple(np.array([]) for _ in range(4))


@dataclass
class RunTally:
    """The tallies of a run's games in the seats below ``players``, and its running figures.

    ``convergence``: games, seat ``seat``'s share, its low and high end, at each deal count of
    :func:`deal_grid` (the headline's analysis on the first deals; a count whose share cannot be estimated is
    left out). ``running``: a solitaire run's games, win rate and Wilson interval at each count of
    :func:`game_grid` (empty arrays otherwise). ``deals``: the deals read.
    """

    players: int
    seats: SeatTally
    outcomes: OutcomeTally
    convergence: tuple[np.ndarray, ...] = field(default_factory=_empty)
    running: tuple[np.ndarray, ...] = field(default_factory=_empty)
    deals: int = 0

    @property
    def games(self) -> int:
        return self.outcomes.games

    @property
    def bots(self) -> tuple[str, ...]:
        """The bots in order of first appearance (by game, then seat)."""
        return tuple(self.seats.bots)


def tally_blocks(blocks: Iterable[tuple[int, int, pl.DataFrame]], deal_counts: dict[int, int], games: int,
                 players: int | None, band: tuple[float, float] | None = None, delta: float = 0.025,
                 seat: int = 0, all_seats: bool = False) -> RunTally:
    """Feed every block ``(start, stop, records)`` (whole deals, in deal order) to the tallies.

    ``deal_counts`` maps a block end (a deal number) to the number of deals read by then: where the headline's
    share is taken for the convergence figure. ``games``: the games the blocks hold, for a solitaire run's grid.
    ``players`` keeps the seats below it (None: every seat); with ``all_seats`` the outcome tally (length, ends,
    the seat and bot tables) keeps every seat, as ``glade play``'s summary shows them, and only the headline's
    tally leaves a game's own seats out.
    """
    seats, outcomes = None, OutcomeTally(band=band)
    convergence: list[tuple[float, ...]] = []
    grid = np.zeros(0, dtype=np.int64)
    wins_at: list[float] = []
    seen = wins = 0
    deals = 0
    for _, stop, block in blocks:
        played = block if players is None else block.filter(pl.col("seat") < players)
        seats = add_block(seats, played, players)
        if "turns" in block.columns:  # records without game lengths (a few tests' tables) tally the seats only
            outcomes.add(block if all_seats else played)
        if seats.players == 1 and played.height:
            grid = game_grid(games) if not seen else grid
            won = played.sort("game")["win"].cast(pl.Float64).to_numpy()
            inside = grid[(grid > seen) & (grid <= seen + won.size)]
            wins_at += (wins + np.cumsum(won)[inside - seen - 1]).tolist()
            seen, wins = seen + won.size, wins + float(won.sum())
        if stop in deal_counts:
            deals = deal_counts[stop]
            if seats.players > 1 and seats.games:
                convergence += _headline_point(seats, delta, seat)
    result = RunTally(players=seats.players if seats is not None else players or 1,
                      seats=seats or SeatTally(players=players or 1), outcomes=outcomes, deals=deals)
    if convergence:
        result.convergence = tuple(np.array(column, dtype=float) for column in zip(*convergence))
    if wins_at:
        result.running = running_rate(grid[:len(wins_at)], np.array(wins_at))
    return result


def _headline_point(seats: SeatTally, delta: float, seat: int) -> list[tuple[float, ...]]:
    try:
        row = stats.seat_advantage(seats, delta=delta).seats.filter(pl.col("seat") == seat).row(0, named=True)
    except stats.StatsError:
        return []
    if not all(math.isfinite(row[k]) for k in ("share", "share_low", "share_high")):
        return []
    return [(float(seats.games), row["share"], row["share_low"], row["share_high"])]


def _bounds(ranges: Sequence[tuple[int, int]], block_deals: int | None,
            counts: np.ndarray) -> tuple[list[int], dict]:
    """Block bounds over ``ranges`` (every ``block_deals`` deals, default ``sims.records.BLOCK_DEALS``, and at each
    deal count of ``counts``) and the
    deals read at each block end that closes a count (the last always does)."""
    from sims.records import block_bounds, first_deals

    total = sum(stop - start for start, stop in ranges)
    cuts = {first_deals(ranges, int(n)): int(n) for n in counts}
    cuts[first_deals(ranges, total)] = total
    bounds: set[int] = set()
    for start, stop in ranges:
        bounds.update(block_bounds(start, stop, block_deals, list(cuts)))
    return sorted(bounds), cuts


def tally_run(out_dir: str | Path, players: int | None, band: tuple[float, float] | None = None,
              delta: float = 0.025, block_deals: int | None = None, points: int = HEADLINE_POINTS,
              start: int = HEADLINE_START, all_seats: bool = False) -> RunTally:
    """The :class:`RunTally` of a run directory's seats below ``players``, read a block of deals at a time
    (``points=0``: no convergence figure; ``all_seats``: see :func:`tally_blocks`)."""
    from sims.records import count_games, deal_ranges, record_blocks

    ranges = deal_ranges(out_dir)
    bounds, cuts = _bounds(ranges, block_deals, deal_grid(sum(b - a for a, b in ranges), points, start))
    columns = _columns(out_dir)
    return tally_blocks(record_blocks(out_dir, bounds, columns), cuts, count_games(out_dir), players, band, delta,
                        all_seats=all_seats)


def _columns(out_dir: str | Path) -> list[str]:
    from sims.records import scan_records

    names = scan_records(out_dir, (0, 1)).collect_schema().names()
    return [c for c in COLUMNS if c in names]


def tally_records(records: pl.DataFrame, players: int | None = None, band: tuple[float, float] | None = None,
                  delta: float = 0.025, block_deals: int | None = None, points: int = HEADLINE_POINTS,
                  start: int = HEADLINE_START, seat: int = 0, all_seats: bool = False) -> RunTally:
    """:func:`tally_run` of a records table in memory (every seat below ``players``, default all)."""
    deal = "deal" if "deal" in records.columns else "game"
    held = np.sort(records[deal].unique().to_numpy()) if records.height else np.zeros(0, dtype=np.int64)
    ranges = _ranges(held)
    bounds, cuts = _bounds(ranges, block_deals, deal_grid(held.size, points, start))
    games = records.filter(pl.col("seat") == 0).height
    return tally_blocks(_split(records, deal, bounds), cuts, games, players, band, delta, seat, all_seats)


def _ranges(deals: np.ndarray) -> list[tuple[int, int]]:
    """Sorted distinct deal numbers as ``[start, stop)`` ranges."""
    if not deals.size:
        return []
    breaks = np.flatnonzero(np.diff(deals) != 1) + 1
    return [(int(part[0]), int(part[-1]) + 1) for part in np.split(deals, breaks)]


def _split(records: pl.DataFrame, deal: str, bounds: Sequence[int]) -> Iterator[tuple[int, int, pl.DataFrame]]:
    for start, stop in zip(bounds[:-1], bounds[1:]):
        block = records.filter(pl.col(deal).is_between(start, stop, closed="left"))
        if block.height:
            yield start, stop, block


__all__ = ["RunTally", "deal_grid", "game_grid", "running_rate", "tally_blocks", "tally_records",
           "tally_run"]
