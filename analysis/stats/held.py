"""Cards held: each item's win rate when a seat held it at any point (dealt, gathered or drawn) against when it
never did, and the difference, the improvement when drawn (17lands' GIH WR, GNS WR and IWD)."""

from __future__ import annotations

import polars as pl

from analysis.stats.common import CONFIDENCE
from analysis.stats.components import component_strength
from analysis.stats.paired import correct


def held_strength(records: pl.DataFrame, held: pl.DataFrame, item: str, alpha: float = 0.05,
                  confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Per item (a row of ``held`` is a seat-game's item entering its hand, columns ``game``, ``seat``, ``item``):
    ``held`` (seat-games that held it at any point), ``win_held`` (GIH WR: their win rate), ``win_not_held``
    (GNS WR: the win rate of seat-games that never held it) and ``iwd`` = win_held - win_not_held with
    ``iwd_low``/``iwd_high`` and ``iwd_p`` (the deal as the unit: :func:`analysis.stats.components.
    clustered_difference`, Newcombe on counts divided by the design effect, score test), ``iwd_holm`` and
    ``iwd_bh`` (Holm and Benjamini-Hochberg across the items).

    OBSERVATIONAL AND BIASED, as :func:`analysis.stats.component_strength`: a seat that draws more cards holds
    more of everything, and long games hold more; only an ablation on the same deals is causal.
    """
    table = component_strength(records, held, item, alpha=alpha, confidence=confidence)
    return table.select(
        item, pl.col("used").alias("held"), pl.col("use_rate").alias("held_rate"), pl.col("win_used").alias("win_held"),
        pl.col("win_not_used").alias("win_not_held"), pl.col("difference").alias("iwd"),
        pl.col("diff_low").alias("iwd_low"), pl.col("diff_high").alias("iwd_high"), pl.col("p_value").alias("iwd_p"),
        pl.col("p_holm").alias("iwd_holm"),
        pl.Series("iwd_bh", correct(table["p_value"].to_numpy(), "fdr_bh"), dtype=pl.Float64))


__all__ = ["held_strength"]
