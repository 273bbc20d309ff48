"""Constants, the error type and the input checks every statistic shares."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import polars as pl


CONFIDENCE = 0.95
SEED = 20240611  # every bootstrap draws from default_rng(SEED) unless told otherwise
BOOTSTRAP_RESAMPLES = 4999
_BOOTSTRAP_BATCH_VALUES = 2_000_000  # resampled values held in memory at once
ELO_PER_LOGIT = 400 / math.log(10)
CORRECTIONS = ("holm", "fdr_bh", "bonferroni")

BLOCKED = "blocked"  # the end reason of a game no seat can ever move in again (ended at once, scored)
STALL = "stall"  # the end reason of a game that hit the turn cap (no result)
UNFINISHED_LIMIT = 0.01  # at most this share of games may stall or end blocked (tune's default, the reports' flag)
BAND_SHARE = 0.75  # a length verdict is OK when at least this share of games is inside the target band

VERDICT_BALANCED = "balanced"
VERDICT_UNBALANCED = "unbalanced"
VERDICT_UNSURE = "not enough games yet"
VERDICT_NOT_MEASURED = "not measured by this lineup"


class StatsError(ValueError):
    """Records or arguments a statistic cannot use; the message says what was expected."""


# ---------------------------------------------------------------- input checks


def _require(frame: pl.DataFrame | pl.LazyFrame, columns: Sequence[str], what: str) -> None:
    names = columns_of(frame)
    missing = [c for c in columns if c not in names]
    if missing:
        raise StatsError(f"{what}: expected columns {', '.join(missing)} (records written by glade play), "
                         f"got {', '.join(names) or 'none'}")
    if is_empty(frame):
        raise StatsError(f"{what}: expected at least one row, got an empty table")


def columns_of(frame: pl.DataFrame | pl.LazyFrame) -> list[str]:
    """A table's column names, a lazy frame's without reading it."""
    return frame.collect_schema().names() if isinstance(frame, pl.LazyFrame) else frame.columns


def is_empty(frame: pl.DataFrame | pl.LazyFrame) -> bool:
    """True for a table without rows (a lazy frame reads at most one row to tell)."""
    return (frame.head(1).collect() if isinstance(frame, pl.LazyFrame) else frame).height == 0


EVENT_BLOCK_GAMES = 1 << 13  # games whose events a lazy frame is reduced at a time (about 300,000 Overgrowth rows)


def by_games(frame: pl.DataFrame | pl.LazyFrame,
             reduce: Callable[[pl.LazyFrame], pl.LazyFrame | list[pl.LazyFrame]],
             block_games: int | None = None) -> pl.DataFrame | list[pl.DataFrame]:
    """``reduce`` (grouping by ``game``, or by game and more) applied to ``frame`` and collected. A lazy frame (a
    run's events) is reduced ``block_games`` games at a time (default :data:`EVENT_BLOCK_GAMES`) and the results
    stacked, so only one block's rows
    are ever in memory; ``reduce`` may return several frames, each collected alike."""
    lazy = frame.lazy()
    several = isinstance(reduce(lazy.head(0)), list)
    if isinstance(frame, pl.DataFrame):
        found = pl.collect_all(reduce(lazy)) if several else [reduce(lazy).collect()]
        return found if several else found[0]
    low, high = lazy.select(pl.col("game").min().alias("low"), pl.col("game").max().alias("high")).collect(
        engine="streaming").row(0)
    size = block_games or EVENT_BLOCK_GAMES
    blocks = [lazy.head(0)] if low is None else [
        lazy.filter(pl.col("game").is_between(start, start + size, closed="left"))
        for start in range(int(low), int(high) + 1, size)]
    parts: list[list[pl.DataFrame]] = []
    for block in blocks:  # collected in memory, where a group keeps the file's row order
        found = reduce(block)
        parts.append(pl.collect_all(found) if several else [found.collect()])
    stacked = [pl.concat([p[i] for p in parts], how="vertical") for i in range(len(parts[0]))]
    return stacked if several else stacked[0]


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
