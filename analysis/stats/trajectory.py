"""The seat gap over a game: from each seat's score at each round end (a run's trajectories), the mean gap
between one seat and the others per round, with its interval by deal."""

from __future__ import annotations

import numpy as np
import polars as pl

from analysis.stats.common import CONFIDENCE, SEED
from analysis.stats.intervals import clustered_mean


def seat_gap(records: pl.DataFrame, trajectories: pl.DataFrame, seat: int = 0, min_share: float = 0.1,
             confidence: float = CONFIDENCE, seed: int = SEED) -> pl.DataFrame:
    """Per round: ``round``, ``games`` (still running then), ``mean``, ``low``, ``high``, ``method``: the mean over
    games of ``seat``'s score at that round end less the mean of the other seats' scores, with its interval
    (:func:`analysis.stats.clustered_mean`: a deal's games averaged first when deals hold several, a
    t interval). Rounds reached by fewer than ``min_share`` of the games are left out (the few long
    games would make the tail), as the score bands do."""
    deal = records.group_by("game").agg((pl.col("deal") if "deal" in records.columns else pl.col("game"))
                                        .first().alias("deal"))
    frame = trajectories.with_columns(pl.col("seat").cast(pl.Int64))
    gaps = frame.group_by("game", "round").agg(
        (pl.col("value").filter(pl.col("seat") == seat).first()
         - pl.col("value").filter(pl.col("seat") != seat).mean()).alias("gap"))
    gaps = gaps.join(deal.with_columns(pl.col("game").cast(gaps.schema["game"])), on="game").sort("round", "game")
    total = gaps["game"].n_unique()
    rows = []
    for (round_,), part in gaps.group_by("round", maintain_order=True):
        if part.height < max(1.0, min_share * total):
            continue
        m = clustered_mean(part["gap"].to_numpy(), part["deal"].to_numpy(), confidence, seed)
        rows.append((int(round_), part.height, m.mean, m.low, m.high, m.method))
    return pl.DataFrame(rows, schema={"round": pl.Int64, "games": pl.Int64, "mean": pl.Float64, "low": pl.Float64,
                                      "high": pl.Float64, "method": pl.String}, orient="row")


def first_clear_round(gap: pl.DataFrame) -> dict | None:
    """The first round whose interval excludes 0 (the seat clearly ahead or behind), or None."""
    clear = gap.filter((pl.col("low") > 0) | (pl.col("high") < 0))
    return clear.to_dicts()[0] if clear.height else None


__all__ = ["first_clear_round", "seat_gap"]
