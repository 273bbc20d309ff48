"""Constants, the error type and the input checks every statistic shares."""

from __future__ import annotations

import math
from collections.abc import Sequence

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
