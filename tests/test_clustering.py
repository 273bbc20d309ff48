"""The deal as the unit: intervals that must not shrink when a deal's games are copies, and that cover.

Synthetic records with a known answer: (a) duplicating every deal k times adds
no information, so the interval must stay about as wide (an analysis that
counted seat-games as independent would narrow it by sqrt(k)); (b) over many
seeded datasets where the item has no effect, the 95% interval covers 0 about
95% of the time, where the independent-rows interval covers far less.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from analysis import stats


def null_deals(rng: np.random.Generator, deals: int, games: int = 4) -> tuple[np.ndarray, ...]:
    """Two-seat deals where the item has no effect on winning, and everything is correlated within a deal.

    A deal gives each of its two hands the item or not (a fair coin each) and a strength drawn from
    Beta(0.3, 0.3) (most deals lopsided); the deal's ``games`` games (seat rotations) each crown hand 0
    with that probability. Use and strength are independent, so the true difference is 0.
    Returns per seat-game: win, used, deal, game.
    """
    use = rng.random((deals, 2)) < 0.5
    strength = rng.beta(0.3, 0.3, deals)
    hand0_wins = rng.random((deals, games)) < strength[:, None]
    win = np.stack([hand0_wins, ~hand0_wins], axis=-1)  # deal, game, hand
    used = np.broadcast_to(use[:, None, :], win.shape)
    deal = np.broadcast_to(np.arange(deals)[:, None, None], win.shape)
    game = np.broadcast_to((np.arange(deals)[:, None] * games + np.arange(games))[:, :, None], win.shape)
    return win.reshape(-1), used.reshape(-1), deal.reshape(-1), game.reshape(-1)


def strength_tables(records: pl.DataFrame, events: pl.DataFrame) -> dict:
    return {r["card"]: r for r in stats.item_strength(records, events, "card").to_dicts()}


def records_and_events(win: np.ndarray, used: np.ndarray, deal: np.ndarray, game: np.ndarray
                       ) -> tuple[pl.DataFrame, pl.DataFrame]:
    seat = np.tile([0, 1], win.size // 2)
    records = pl.DataFrame({"game": game, "deal": deal, "seat": seat, "win": win})
    events = records.filter(pl.Series(used)).select("game", "seat", pl.lit("crown").alias("card"))
    plain = records.select("game", "seat", pl.lit("plain").alias("card")).filter(
        (pl.col("game") % 3 == 0) & (pl.col("seat") == 0))
    return records, pl.concat([events, plain])


def copies(records: pl.DataFrame, events: pl.DataFrame, k: int) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every game of every deal k times (new game ids, the same deal)."""
    games = int(records["game"].max()) + 1
    return (pl.concat([records.with_columns(pl.col("game") + i * games) for i in range(k)]),
            pl.concat([events.with_columns(pl.col("game") + i * games) for i in range(k)]))


def test_copies_of_every_deal_leave_the_item_interval_as_wide():
    records, events = records_and_events(*null_deals(np.random.default_rng(5), 300, games=1))
    once = strength_tables(records, events)
    four = strength_tables(*copies(records, events, 4))
    for card in ("crown", "plain"):
        width_once = once[card]["diff_high"] - once[card]["diff_low"]
        width_four = four[card]["diff_high"] - four[card]["diff_low"]
        assert four[card]["difference"] == pytest.approx(once[card]["difference"])
        assert 0.85 < width_four / width_once < 1.15, card  # independent rows would give 0.5
        assert four[card]["p_value"] == pytest.approx(once[card]["p_value"], abs=0.05)
        assert four[card]["design_effect"] > 3.5


def test_copies_of_every_deal_leave_the_drama_intervals_as_wide():
    rng = np.random.default_rng(3)
    rows = []
    for g in range(200):
        s0, s1 = rng.integers(0, 12, 2)
        rows += [dict(game=g, deal=g, seat=0, score=float(s0), rank=1 if s0 >= s1 else 2, turns=int(rng.integers(8, 30)),
                      end="goal"),
                 dict(game=g, deal=g, seat=1, score=float(s1), rank=1 if s1 >= s0 else 2, turns=0, end="goal")]
    once = pl.DataFrame(rows).with_columns(pl.col("turns").max().over("game"), (pl.col("rank") == 1).alias("win"))
    three = pl.concat([once.with_columns(pl.col("game") + i * 200) for i in range(3)])
    a, b = stats.drama(once), stats.drama(three)

    def ratio(low_high_a: tuple[float, float], low_high_b: tuple[float, float]) -> float:
        return (low_high_b[1] - low_high_b[0]) / (low_high_a[1] - low_high_a[0])

    assert 0.8 < ratio((a.margin.mean.low, a.margin.mean.high), (b.margin.mean.low, b.margin.mean.high)) < 1.2
    assert 0.8 < ratio((a.ties.low, a.ties.high), (b.ties.low, b.ties.high)) < 1.2
    assert 0.8 < ratio((a.turns_sd_low, a.turns_sd_high), (b.turns_sd_low, b.turns_sd_high)) < 1.2
    assert b.ties.method.endswith("by deal") and b.margin.mean.method.endswith("by deal")
    length = stats.game_length(three)
    assert length.mean.n == 200 and 0.8 < ratio((stats.game_length(once).mean.low, stats.game_length(once).mean.high),
                                                  (length.mean.low, length.mean.high)) < 1.2


def test_the_item_interval_covers_a_null_effect_at_about_its_level():
    rng = np.random.default_rng(20240611)
    covered = naive = 0
    datasets = 300
    for _ in range(datasets):
        win, used, deal, _ = null_deals(rng, 60)
        d = stats.clustered_difference(win, used, deal)
        covered += d.low <= 0 <= d.high
        k1, n1, k0, n0 = win[used].sum(), used.sum(), win[~used].sum(), (~used).sum()
        low, high = confint_proportions_2indep(k1, n1, k0, n0, method="newcomb", compare="diff")
        naive += low <= 0 <= high
    assert 0.91 <= covered / datasets <= 0.99
    assert naive / datasets < 0.85  # seat-games counted as independent: far too narrow on these deals


@pytest.mark.parametrize("flagged", [False, True])
def test_a_share_no_game_or_every_game_has_is_wilson_over_the_deals_not_a_point(flagged):
    deals = 500
    flags = np.full(deals * 2, flagged)
    rotated = stats.clustered_proportion(flags, np.repeat(np.arange(deals), 2))
    over_deals = stats.proportion(deals if flagged else 0, deals)
    assert rotated.rate == float(flagged) and rotated.n == deals * 2
    assert (rotated.low, rotated.high) == (over_deals.low, over_deals.high)
    assert rotated.high - rotated.low > 0.005  # not the point [0, 0] the per-deal shares' interval gives
    assert rotated.method == "Wilson by deal"
